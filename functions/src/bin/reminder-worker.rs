//! The reminders' worker on Lambda (SQS event source on the reminders queue).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_reminder_worker().await
}
