//! From the outbox to the deliveries queue: one delivery per receiver of the event's account.
//!
//! For an event still `pending`: the account's receivers are read (one query, at most three; once
//! per account for a whole batch of events); each receiver that existed when the event happened
//! and is enabled gets a delivery, written if absent, and a message on the `webhook-deliveries`
//! queue; then, and only then, the event is
//! marked `dispatched` (out of the pending index). Every step is idempotent, so a dispatch that
//! dies half way is simply run again: deliveries already written are kept (one id per event and
//! receiver), their messages are sent again (the sender delivers each delivery once: a second
//! message finds it delivered, or claimed), and the event stays pending until all of it is done.
//!
//! Who runs it: on AWS the table's stream, filtered to new event items, invokes the dispatcher
//! function at once (`handle_stream`); a failed batch is retried and, the event still being
//! pending, the scheduled sweep (`sweep`, every minute, events pending for over a minute) catches
//! whatever the stream could not. Locally the dev server sweeps every half second.

use anyhow::Context as _;
use aws_lambda_events::event::dynamodb::Event as StreamEvent;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use serde::Deserialize;

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::deliveries::{self, Delivery};
use super::receivers::{self, Receiver};
use crate::events::{self, Event};
use crate::jobs::{Queues, WebhookDelivery};
use crate::store::Store;
use crate::values::{AccountId, Timestamp};

/// Dispatches one event to these receivers (the account's, read after the event happened);
/// returns how many deliveries it has.
pub async fn dispatch(store: &Store, queues: &Queues, event: &Event, receivers: &[Receiver]) -> anyhow::Result<usize> {
    if event.delivery_status != "pending" {
        return Ok(0);
    }
    let mut count = 0;
    for receiver in receivers.iter().filter(|r| r.enabled && r.created_at.0 <= event.created_at.0) {
        let delivery = Delivery::new(event, receiver);
        deliveries::create(store, &delivery).await?;
        queues.send(&WebhookDelivery::new(event.account_id, &delivery.delivery_id)).await?;
        count += 1;
    }
    store.write(vec![events::dispatched(event)]).await.context("mark the event dispatched")?;
    Ok(count)
}

/// One batch of events to dispatch. The receivers of each account are read once per batch: read
/// after every event of the batch happened, they are the receivers each event had, less any
/// removed since (whose deliveries would only fail).
pub struct Batch<'a> {
    store: &'a Store,
    queues: &'a Queues,
    receivers: HashMap<AccountId, Vec<Receiver>>,
}

impl<'a> Batch<'a> {
    pub fn new(store: &'a Store, queues: &'a Queues) -> Self {
        Batch { store, queues, receivers: HashMap::new() }
    }

    /// Dispatches the event stored under these keys, when it is still there.
    pub async fn dispatch_at(&mut self, pk: String, sk: String) -> anyhow::Result<usize> {
        let Some(event) = events::read(self.store, pk, sk).await? else { return Ok(0) };
        if event.delivery_status != "pending" {
            return Ok(0);
        }
        let receivers = match self.receivers.entry(event.account_id) {
            Entry::Occupied(found) => found.into_mut(),
            Entry::Vacant(slot) => slot.insert(receivers::list(self.store, event.account_id).await?),
        };
        dispatch(self.store, self.queues, &event, receivers).await
    }
}

/// Dispatches up to `limit` events pending since before `before` (the sweep); returns how many
/// events it dispatched. One failing event does not stop the others.
pub async fn sweep(store: &Store, queues: &Queues, before: Timestamp, limit: usize) -> anyhow::Result<usize> {
    let mut batch = Batch::new(store, queues);
    let mut done = 0;
    for (pk, sk) in events::pending(store, before, limit).await? {
        match batch.dispatch_at(pk, sk.clone()).await {
            Ok(_) => done += 1,
            Err(error) => tracing::error!(error = ?error, event = %sk, "could not dispatch an event"),
        }
    }
    Ok(done)
}

#[derive(Deserialize)]
struct Keys {
    pk: String,
    sk: String,
}

/// The dispatcher function: each new event of the stream batch, in order. On a failure the batch
/// stops there and reports that record, so the stream retries from it (`ReportBatchItemFailures`).
pub async fn handle_stream(store: &Store, queues: &Queues, records: StreamEvent) -> DynamoDbEventResponse {
    let mut response = DynamoDbEventResponse::default();
    let mut batch = Batch::new(store, queues);
    for record in records.records {
        let sequence = record.change.sequence_number.clone();
        // A panic fails at its record like an error (`crate::panics`); the batch stops there.
        let result = crate::panics::caught(async {
            let keys: Keys = serde_dynamo::from_item(record.change.keys.clone()).context("the record's keys")?;
            if !keys.sk.starts_with(crate::store::keys::EVENT_PREFIX) {
                return Ok(0);
            }
            batch.dispatch_at(keys.pk, keys.sk).await
        })
        .await
        .and_then(|result| result);
        match result {
            Ok(count) => tracing::info!(deliveries = count, "event dispatched"),
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

/// What a replay did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Replayed {
    /// The deliveries sent again (their original ids).
    pub delivery_ids: Vec<String>,
    /// Deliveries left as they were: a pending one is already on its way.
    pub skipped: Vec<String>,
}

/// Sends these deliveries again with their original ids: each becomes pending for a new round
/// of attempts, due now, and gets a message. A delivery already pending is left alone.
pub async fn replay(store: &Store, queues: &Queues, found: Vec<Delivery>) -> anyhow::Result<Replayed> {
    let mut replayed = Replayed::default();
    for delivery in found {
        if delivery.status == crate::values::DeliveryStatus::Pending {
            replayed.skipped.push(delivery.delivery_id);
            continue;
        }
        match deliveries::reopen(store, &delivery).await? {
            Some(reopened) => {
                queues.send(&WebhookDelivery::new(reopened.account_id, &reopened.delivery_id)).await?;
                replayed.delivery_ids.push(reopened.delivery_id);
            }
            None => replayed.skipped.push(delivery.delivery_id),
        }
    }
    Ok(replayed)
}
