//! The daily step that makes card payments `available` on Lambda (EventBridge Scheduler).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_gateway_availability().await
}
