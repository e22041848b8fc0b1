//! A hello-world Lambda that exists only as the cold-start bench's baseline (`infra/bench
//! cold-start`): the runtime alone, as its own basic example has it, answering the event back, on a
//! current-thread runtime as the functions run.
//! Not a function of the service: template.yaml does not deploy it.

use lambda_runtime::{service_fn, Error, LambdaEvent};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(
        |event: LambdaEvent<serde_json::Value>| async move { Ok::<_, Error>(event.payload) },
    ))
    .await
}
