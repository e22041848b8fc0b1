//! The providers' reminder events on Lambda (SNS: SES configuration-set events, WhatsApp statuses).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_reminder_events().await
}
