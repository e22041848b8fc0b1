//! The SQS workers: each takes a batch of messages from its queue and reports the failed ones one
//! by one (`ReportBatchItemFailures`); Lambda deletes the others.

use std::sync::Arc;

use aws_lambda_events::sqs::SqsEvent;
use billing_api::store::Store;
use billing_api::webhooks::secrets::MasterKey;
use billing_api::webhooks::{Policy, Schedule, SecretBox, Sender};
use lambda_runtime::{service_fn, LambdaEvent};

/// Runs the billet-registration worker on its SQS event source; failed messages are reported
/// one by one (`ReportBatchItemFailures`), the others are deleted by Lambda.
pub async fn run_billet_registrar() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        // Boxed: the worker's future is deep enough to overflow the compiler's layout limit inline.
        let batch = Box::pin(billing_api::payments::registrar::handle_batch(store, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// Runs the bulk-expansion worker on its SQS event source: each message expands a chunk of
/// contacts, with their billets' registrations and the next chunk recorded as tasks.
pub async fn run_bulk_expander() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::billings::bulk::handle_batch).await
}

/// Runs the settlements worker on its SQS event source: each message settles a chunk of open
/// sales and records the next, and the last makes the payer's billing.
pub async fn run_settlement_worker() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::pos::settlements::handle_batch).await
}

/// Runs the cascades worker on its SQS event source: each message clears a deleted tag or group
/// from up to a hundred contacts and records the next while any remain.
pub async fn run_cascade_worker() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::contacts::cascade::handle_batch).await
}

/// The card releases worker (SQS event source on the card releases queue): cancels the open card
/// intent of a billing settled otherwise at its gateway.
pub async fn run_card_releases_worker() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::payments::card::releases::handle_batch).await
}

/// The schedules' issuer (SQS event source on the schedule cycles queue): each message runs one
/// schedule on its day, its cycle's billing issued once.
pub async fn run_schedule_issuer() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::schedules::run::handle_batch).await
}

/// The exports worker (SQS event source on the exports queue): each message writes one part of an
/// export's file to the bucket and records the next; the last completes the file.
pub async fn run_export_worker() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let (store, files) = (Store::from_config(&config), billing_api::files::Files::from_config(&config));
    let (store, files) = (&store, &files);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        let batch = Box::pin(billing_api::exports::step::handle_batch(store, files, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// Runs an SQS worker that needs only the table (what it implies next, it records as tasks).
async fn run_worker<F>(handle: F) -> Result<(), lambda_runtime::Error>
where
    F: for<'a> AsyncBatch<'a>,
{
    crate::init();
    let store = Store::from_env().await;
    let (store, handle) = (&store, &handle);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        // Boxed: the workers' futures are deep enough to overflow the compiler's layout limit inline.
        let batch = Box::pin(handle.call(store, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// A worker's batch handler: `async fn(&Store, SqsEvent) -> SqsBatchResponse`.
pub trait AsyncBatch<'a> {
    type Future: std::future::Future<Output = aws_lambda_events::sqs::SqsBatchResponse> + 'a;
    fn call(&self, store: &'a Store, event: SqsEvent) -> Self::Future;
}

impl<'a, F, Fut> AsyncBatch<'a> for F
where
    F: Fn(&'a Store, SqsEvent) -> Fut,
    Fut: std::future::Future<Output = aws_lambda_events::sqs::SqsBatchResponse> + 'a,
{
    type Future = Fut;
    fn call(&self, store: &'a Store, event: SqsEvent) -> Fut {
        self(store, event)
    }
}

/// Runs the Pix charges worker on its SQS event source: each message removes a billing's charge
/// at its PSP.
pub async fn run_pix_charges_worker() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::payments::pix::handle_batch).await
}

/// The reminders' worker (SQS event source on the reminders queue): scans a page of the due-day
/// index and queues its reminders, or sends one reminder, paced to its share of the sending rate.
pub async fn run_reminder_worker() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    let queues = billing_api::jobs::Queues::from_env(&config).ok_or("REMINDERS_QUEUE_URL is not set")?;
    let providers = billing_api::reminders::providers::Providers::from_env(&config);
    let (store, queues, providers) = (&store, &queues, &providers);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        let handled = billing_api::reminders::run::handle_batch(store, queues, providers, event.payload);
        Ok::<_, std::convert::Infallible>(Box::pin(handled).await)
    }))
    .await
}

/// The deliveries queue of the webhook sender (`WEBHOOK_DELIVERIES_QUEUE_URL`).
fn webhook_queues(config: &aws_config::SdkConfig) -> Result<billing_api::jobs::Queues, lambda_runtime::Error> {
    let missing = "WEBHOOK_DELIVERIES_QUEUE_URL must be set";
    std::env::var("WEBHOOK_DELIVERIES_QUEUE_URL").ok().filter(|url| !url.is_empty()).ok_or(missing)?;
    Ok(billing_api::jobs::Queues::from_env(config).ok_or(missing)?)
}

/// Runs the webhook sender on the deliveries queue: signed POSTs, retries held on the queue. The
/// master key is read by the first batch, not at start: a network round trip that the start
/// would otherwise wait for just the same (docs/cold-start.md).
pub async fn run_webhook_sender() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let key = MasterKey::lazy(&config);
    let sender = webhook_sender(&config)?;
    let (key, sender) = (&key, &sender);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        let sender = sender(key.get().await?);
        Ok::<_, lambda_runtime::Error>(Box::pin(sender.handle_batch(event.payload)).await)
    }))
    .await
}

/// The sender as its function builds it, given the master key: strict delivery policy (the local
/// switch is ignored on Lambda), the default retry schedule unless overridden.
fn webhook_sender(config: &aws_config::SdkConfig) -> Result<impl Fn(Arc<SecretBox>) -> Sender, lambda_runtime::Error> {
    let store = Store::from_config(config);
    let queues = webhook_queues(config)?;
    let client = billing_api::webhooks::client::Client::new(Policy::from_env())?;
    let schedule = Schedule::from_env();
    Ok(move |vault| Sender {
        store: store.clone(),
        queues: queues.clone(),
        vault,
        client: client.clone(),
        schedule: schedule.clone(),
    })
}
