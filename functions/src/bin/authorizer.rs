//! The API Gateway REQUEST authorizer: token → account context, cached 15 minutes by API Gateway.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_authorizer().await
}
