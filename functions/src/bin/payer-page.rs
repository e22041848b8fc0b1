//! `/pay/{token}` on Lambda: the payer's page of a billet, public, on its own API.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_payer_page().await
}
