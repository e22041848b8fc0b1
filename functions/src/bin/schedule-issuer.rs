//! The schedules' issuer on Lambda (SQS event source on the schedule cycles queue).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_schedule_issuer().await
}
