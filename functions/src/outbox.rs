//! The outbox's functions: the dispatcher on the table's stream and the sweeper behind it, which
//! hand events and tasks on to every queue.

use aws_lambda_events::dynamodb::Event as StreamEvent;
use billing_api::store::Store;
use lambda_runtime::{service_fn, LambdaEvent};

/// Every queue the outbox hands tasks and deliveries to (`*_QUEUE_URL`).
fn outbox_queues(config: &aws_config::SdkConfig) -> Result<billing_api::jobs::Queues, lambda_runtime::Error> {
    Ok(billing_api::jobs::Queues::from_env(config).ok_or("the *_QUEUE_URL variables must be set")?)
}

/// What the outbox dispatcher and the sweeper start with: logging, the table and every queue.
async fn dispatching() -> Result<(Store, billing_api::jobs::Queues), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    Ok((store, outbox_queues(&config)?))
}

/// Runs the outbox dispatcher on the table's stream (filtered to new events and tasks): one
/// delivery per receiver of an event, queued; a task's messages, sent. A failure stops the batch
/// at that record (`ReportBatchItemFailures`).
pub async fn run_outbox_dispatcher() -> Result<(), lambda_runtime::Error> {
    let (store, queues) = dispatching().await?;
    let (store, queues) = (&store, &queues);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<StreamEvent>| async move {
        let batch = Box::pin(billing_api::outbox::handle_stream(store, queues, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// Runs the outbox sweeper on its schedule: hands on the events and tasks the stream left pending
/// for over a minute (a batch the stream gave up on, a dispatcher outage).
pub async fn run_outbox_sweeper() -> Result<(), lambda_runtime::Error> {
    let (store, queues) = dispatching().await?;
    let (store, queues) = (&store, &queues);
    lambda_runtime::run(service_fn(move |_: LambdaEvent<serde_json::Value>| async move {
        let before =
            billing_api::values::Timestamp(billing_api::values::Timestamp::now().0 - chrono::Duration::minutes(1));
        let done: usize = billing_api::outbox::sweep(store, queues, before, SWEEP_LIMIT).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::json!({ "dispatched": done }))
    }))
    .await
}

/// Events and tasks one sweep hands on at most (a minute's run keeps well inside its timeout).
pub const SWEEP_LIMIT: usize = 500;
