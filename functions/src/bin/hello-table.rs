//! The cold-start bench's second baseline (`infra/bench cold-start`): the runtime with the
//! service's table client, made as the functions make it, answering each event after one GetItem
//! of a key that holds nothing. Its first answer less its init is one storage round trip from a
//! cold process (the client's first call: its connection opened), against which the bench holds
//! each read route's first answer ("at most twice its init plus one storage round
//! trip"). Not a function of the service: template.yaml does not deploy it.

use billing_api::store::{keys, Store};
use lambda_runtime::{service_fn, Error, LambdaEvent};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    functions::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| async move {
        store.get(keys::NOTHING_PK.to_owned(), keys::NOTHING_PK).await.map_err(|error| error.to_string())?;
        Ok::<_, Error>(event.payload)
    }))
    .await
}
