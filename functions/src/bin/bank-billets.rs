//! `/v1/billings/{billing_id}/bank_billets` on Lambda.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_http(billing_api::billings::billets::router).await
}
