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
//! Who runs it: the outbox (`crate::outbox`): on AWS the table's stream, filtered to new event and
//! task items, invokes the outbox dispatcher function at once; a failed batch is retried and, the
//! event still being pending, the scheduled sweep (every minute, items pending for over a minute)
//! catches whatever the stream could not. Locally the dev server does both.

use anyhow::Context as _;

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::deliveries::{self, Delivery};
use super::receivers::{self, Receiver};
use crate::events::{self, Event};
use crate::jobs::{Queues, WebhookDelivery};
use crate::store::Store;
use crate::values::{AccountId, OutboxStatus};

/// Dispatches one event to these receivers (the account's, read after the event happened);
/// returns how many deliveries it has.
pub async fn dispatch(store: &Store, queues: &Queues, event: &Event, receivers: &[Receiver]) -> anyhow::Result<usize> {
    if event.delivery_status != OutboxStatus::Pending {
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

    pub fn store(&self) -> &'a Store {
        self.store
    }

    pub fn queues(&self) -> &'a Queues {
        self.queues
    }

    /// Dispatches the event stored under these keys, when it is still there.
    pub async fn dispatch_at(&mut self, pk: String, sk: String) -> anyhow::Result<usize> {
        let Some(event) = events::read(self.store, pk, sk).await? else { return Ok(0) };
        if event.delivery_status != OutboxStatus::Pending {
            return Ok(0);
        }
        let receivers = match self.receivers.entry(event.account_id) {
            Entry::Occupied(found) => found.into_mut(),
            Entry::Vacant(slot) => slot.insert(receivers::list(self.store, event.account_id).await?),
        };
        dispatch(self.store, self.queues, &event, receivers).await
    }
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
/// of attempts, due now, with the task of its message in the same transaction. A delivery already
/// pending is left alone.
pub async fn replay(store: &Store, found: Vec<Delivery>) -> anyhow::Result<Replayed> {
    let mut replayed = Replayed::default();
    for delivery in found {
        if delivery.status == crate::values::DeliveryStatus::Pending {
            replayed.skipped.push(delivery.delivery_id);
            continue;
        }
        match deliveries::reopen(store, &delivery).await? {
            Some(reopened) => replayed.delivery_ids.push(reopened.delivery_id),
            None => replayed.skipped.push(delivery.delivery_id),
        }
    }
    Ok(replayed)
}
