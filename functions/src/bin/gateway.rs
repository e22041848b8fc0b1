//! The card channel's writes on Lambda, on the payer API: `POST /gateway/stripe/{account_id}` (the
//! accounts' Stripe webhooks) and the card checkout's posts of the payer pages.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    functions::run_gateway().await
}
