//! The webhook sender on Lambda (SQS event source on the webhook-deliveries queue).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_webhook_sender().await
}
