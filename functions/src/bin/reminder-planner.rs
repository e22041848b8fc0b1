//! The daily start of the reminders on Lambda (EventBridge Scheduler).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_reminder_planner().await
}
