//! Consumer of the bulk-expansion queue on Lambda.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_bulk_expander().await
}
