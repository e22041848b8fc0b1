//! The cascades worker on Lambda (SQS event source on the cascades queue): clears deleted tags
//! and groups from their contacts.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_cascade_worker().await
}
