//! The remittance job on Lambda (an EventBridge schedule): bank remittance files for every
//! agreement with billets waiting.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_remittance_job().await
}
