//! The Pix reconciliation on Lambda (an EventBridge schedule): applies the Pix every PSP received
//! in the last hours that no webhook brought.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_pix_reconciler().await
}
