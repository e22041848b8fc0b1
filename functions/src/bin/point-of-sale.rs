//! `/v1/sales`, `/v1/store_credits` and `/v1/receivable_settlements` on Lambda.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_http(billing_api::pos::router).await
}
