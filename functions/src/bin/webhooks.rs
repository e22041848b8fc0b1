//! `/v1/webhooks`, `/v1/webhook_deliveries`, `/v1/events` and `/v1/reminder_schedule` on Lambda.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_http(functions::notification_routes).await
}
