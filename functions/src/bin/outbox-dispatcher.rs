//! The outbox dispatcher on Lambda (the table's stream, filtered to new events and tasks).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_outbox_dispatcher().await
}
