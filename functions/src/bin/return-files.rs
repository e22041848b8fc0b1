//! The return-file trigger on Lambda (S3 ObjectCreated under returns/): the bank's return files
//! applied to their billets.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_return_files().await
}
