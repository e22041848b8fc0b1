//! `/v1/billings` on Lambda.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_http(functions::billing_routes).await
}
