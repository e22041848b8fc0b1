//! The outbox sweeper on Lambda (every minute): events and tasks the stream left pending.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_outbox_sweeper().await
}
