//! The billet-registration worker on Lambda (SQS event source).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_billet_registrar().await
}
