//! `/v1/webhooks`, `/v1/webhook_deliveries` and `/v1/events` on Lambda.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_http(billing_api::webhooks::router).await
}
