//! The settlements worker on Lambda (SQS event source on the settlements queue).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_settlement_worker().await
}
