//! The PSP's Pix webhook on Lambda (its own API, behind a custom domain with mutual TLS).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_pix_webhook().await
}
