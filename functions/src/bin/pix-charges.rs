//! The Pix charges worker on Lambda (SQS event source on the Pix charges queue): removes the charge
//! of a billing that stopped being payable at its PSP.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    functions::run_pix_charges_worker().await
}
