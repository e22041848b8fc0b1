//! The webhook dispatcher on Lambda (the table's stream, filtered to new events).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_webhook_dispatcher().await
}
