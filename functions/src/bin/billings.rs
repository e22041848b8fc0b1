//! `/v1/billings` on Lambda.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_http(billing_api::billings::router).await
}
