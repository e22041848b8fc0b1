//! The daily start of the schedules' issuing run on Lambda (EventBridge Scheduler).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_schedule_planner().await
}
