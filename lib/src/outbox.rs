//! The outbox: what a change recorded, in its own transaction, to be handed on once it is saved —
//! events for the webhook receivers (`events`, handed to `webhooks::dispatcher`) and tasks for the
//! queues (`jobs::tasks`) — and who hands it on. Both wait in the pending index (`gsi1`,
//! `OUTBOX#PENDING#<shard>`) until handed on.
//!
//! - On AWS the table's stream, filtered to new event and task items, invokes the outbox
//!   dispatcher function ([`handle_stream`]) at once; every minute the sweeper ([`sweep`]) hands on
//!   what is still pending after a minute (a stream batch given up on, a lost record).
//! - Locally the dev server does the same: its store reports every item it puts
//!   ([`crate::store::Store::with_stream`]), a task of the process dispatches the new events and
//!   tasks among them at once ([`LocalStream`]), and it sweeps the pending index every few seconds.
//!
//! Handing on is idempotent: an event keeps its delivery ids, a task is deleted only after its
//! messages were sent, so a dispatch that dies half way is simply run again.

use std::sync::Arc;

use anyhow::Context as _;
use aws_lambda_events::event::dynamodb::Event as StreamEvent;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use serde::Deserialize;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::sync::Mutex;

use crate::jobs::{tasks, Queues};
use crate::store::{keys, KeyItem, KeyRange, Sort, Store, StoreResult};
use crate::values::Timestamp;
use crate::webhooks::dispatcher::Batch;

/// Whether the item under this sort key is one the outbox hands on (an event or a task).
fn is_outbox_item(sk: &str) -> bool {
    sk.starts_with(keys::event::EVENT_PREFIX) || sk.starts_with(keys::event::TASK_PREFIX)
}

/// Handles the item stored under these keys, when it is an event or a task still pending; returns
/// how many deliveries or messages it produced.
pub async fn dispatch_at(batch: &mut Batch<'_>, pk: String, sk: String) -> anyhow::Result<usize> {
    if sk.starts_with(keys::event::EVENT_PREFIX) {
        batch.dispatch_at(pk, sk).await
    } else if sk.starts_with(keys::event::TASK_PREFIX) {
        tasks::dispatch(batch.store(), batch.queues(), pk, sk).await
    } else {
        Ok(0)
    }
}

/// Up to `limit` events and tasks still pending that were written before `before`, oldest first
/// in each shard (their keys: `(pk, sk)`). Bounded: one index page per shard.
pub async fn pending(store: &Store, before: Timestamp, limit: usize) -> StoreResult<Vec<(String, String)>> {
    let cutoff = format!("{:013}", before.0.timestamp_millis());
    let mut found = Vec::new();
    for shard in 0..keys::event::OUTBOX_SHARDS {
        if found.len() >= limit {
            break;
        }
        let range = KeyRange::index(keys::event::outbox_pending(shard), Sort::Below(cutoff.clone()), true);
        let page = store.page(&range, limit - found.len(), None).await?;
        found.extend(page.items.iter().map(KeyItem::keys_of));
    }
    Ok(found)
}

/// Hands on up to `limit` events and tasks pending since before `before` (the sweep); returns how
/// many it handed on. One that fails does not stop the others.
pub async fn sweep(store: &Store, queues: &Queues, before: Timestamp, limit: usize) -> anyhow::Result<usize> {
    let mut batch = Batch::new(store, queues);
    let mut done = 0;
    for (pk, sk) in pending(store, before, limit).await? {
        match dispatch_at(&mut batch, pk, sk.clone()).await {
            Ok(_) => done += 1,
            Err(error) => tracing::error!(error = ?error, item = %sk, "could not hand on an outbox item"),
        }
    }
    Ok(done)
}

#[derive(Deserialize)]
struct Keys {
    pk: String,
    sk: String,
}

/// The outbox dispatcher function: each new event or task of the stream batch, in order. On a
/// failure the batch stops there and reports that record, so the stream retries from it
/// (`ReportBatchItemFailures`).
pub async fn handle_stream(store: &Store, queues: &Queues, records: StreamEvent) -> DynamoDbEventResponse {
    let mut response = DynamoDbEventResponse::default();
    let mut batch = Batch::new(store, queues);
    for record in records.records {
        let sequence = record.change.sequence_number.clone();
        // A panic fails at its record like an error (`crate::panics`); the batch stops there.
        let result = crate::panics::caught(async {
            let keys: Keys = serde_dynamo::from_item(record.change.keys.clone()).context("the record's keys")?;
            dispatch_at(&mut batch, keys.pk, keys.sk).await
        })
        .await
        .and_then(|result| result);
        match result {
            Ok(count) => tracing::info!(handed_on = count, "outbox item dispatched"),
            Err(error) => {
                tracing::error!(error = ?error, "dispatch failed; the stream retries from this record");
                let mut failure = DynamoDbBatchItemFailure::default();
                failure.item_identifier = sequence;
                response.batch_item_failures.push(failure);
                break;
            }
        }
    }
    response
}

/// The dev server's stand-in for the table's stream: the keys of every item its store puts
/// ([`crate::store::Store::with_stream`]); [`LocalStream::dispatch`] hands on the events and tasks
/// among them, as the stream and the outbox dispatcher do on AWS.
#[derive(Clone, Debug)]
pub struct LocalStream {
    written: Arc<Mutex<UnboundedReceiver<(String, String)>>>,
}

impl LocalStream {
    /// A stream and the sender a store reports its puts to.
    pub fn new() -> (LocalStream, UnboundedSender<(String, String)>) {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        (LocalStream { written: Arc::new(Mutex::new(receiver)) }, sender)
    }

    /// Hands on every event and task written since the last call, in the order written; returns
    /// how many. Callers take turns, so when it returns, what was written before the call is
    /// handed on (or logged as failed, left to the sweep).
    pub async fn dispatch(&self, store: &Store, queues: &Queues) -> usize {
        let mut written = self.written.lock().await;
        Self::dispatch_from(&mut written, None, store, queues).await
    }

    /// Hands on `first`, then every write waiting after it.
    async fn dispatch_from(
        written: &mut UnboundedReceiver<(String, String)>,
        first: Option<(String, String)>,
        store: &Store,
        queues: &Queues,
    ) -> usize {
        let mut batch = Batch::new(store, queues);
        let mut done = 0;
        let mut next = first.or_else(|| written.try_recv().ok());
        while let Some((pk, sk)) = next {
            next = written.try_recv().ok();
            if !is_outbox_item(&sk) {
                continue;
            }
            match dispatch_at(&mut batch, pk, sk.clone()).await {
                Ok(_) => done += 1,
                Err(error) => tracing::warn!(error = ?error, item = %sk, "could not hand on; the sweep will"),
            }
        }
        done
    }

    /// Dispatches for ever: what is written, within `every`.
    pub async fn run(self, store: Store, queues: Queues, every: std::time::Duration) {
        loop {
            self.dispatch(&store, &queues).await;
            tokio::time::sleep(every).await;
        }
    }

    /// Dispatches for ever, each write as it comes: it waits for one and hands on all written by
    /// then, so an idle store costs nothing. It must be its stream's only dispatcher: it holds the
    /// stream while it waits.
    pub async fn run_as_written(self, store: Store, queues: Queues) {
        let mut written = self.written.lock().await;
        while let Some(first) = written.recv().await {
            Self::dispatch_from(&mut written, Some(first), &store, &queues).await;
        }
    }
}
