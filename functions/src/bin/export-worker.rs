//! The exports worker on Lambda (SQS event source on the exports queue).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_export_worker().await
}
