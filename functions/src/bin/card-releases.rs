//! The card releases worker on Lambda (SQS event source on the card releases queue): cancels at the
//! gateway the open card intent of a billing settled through another channel.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_card_releases_worker().await
}
