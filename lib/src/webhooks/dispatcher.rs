//! From the outbox to the deliveries queue: one delivery per receiver of the event's account.
//!
//! For an event still `pending`: the account's receivers are read (one query, at most three; once
//! per account for a whole batch of events); each receiver that existed when the event happened,
//! is enabled and takes the event's type (`event_types`) gets a delivery — a `ping` goes to the
//! one receiver it names, whatever its types — written if absent, and a message on the `webhook-deliveries`
//! queue; then, and only then, the event is
//! marked `dispatched` (out of the pending index). Every step is idempotent, so a dispatch that
//! dies half way is simply run again: deliveries already written are kept (one id per event and
//! receiver), their messages are sent again (the sender delivers each delivery once: a second
//! message finds it delivered, or claimed), and the event stays pending until all of it is done.
//!
//! Who runs it: the outbox (`outbox`): on AWS the table's stream, filtered to new event and
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
use crate::refusal::Refusal;
use crate::store::{stored, Store};
use crate::values::{AccountId, DeliveryStatus, OutboxStatus, WebhookId};

/// Dispatches one event to these receivers (the account's, read after the event happened);
/// returns how many deliveries it has.
pub async fn dispatch(store: &Store, queues: &Queues, event: &Event, receivers: &[Receiver]) -> anyhow::Result<usize> {
    if event.delivery_status != OutboxStatus::Pending {
        return Ok(0);
    }
    let mut count = 0;
    for receiver in receivers.iter().filter(|r| r.takes(event)) {
        let delivery = Delivery::new(event, receiver);
        deliveries::create(store, &delivery).await?;
        queues.send(&WebhookDelivery::new(event.account_id, &delivery.delivery_id)).await?;
        count += 1;
    }
    // A ping's delivery was written with it: queued even when its receiver was removed since, so
    // that the sender settles it (failed, "receiver removed") rather than it staying pending.
    if let Some(only) = event.receiver_id.filter(|only| receivers.iter().all(|r| r.id != *only)) {
        let delivery_id = deliveries::delivery_id(&event.event_id, only);
        queues.send(&WebhookDelivery::new(event.account_id, &delivery_id)).await?;
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

/// Sends a signed `ping` to one receiver (`POST /v1/webhooks/{id}/test`): a `ping` event naming
/// that receiver is recorded with its pending delivery in one transaction, and the outbox hands it
/// on like any other (the dispatcher finds the delivery written and queues its message), so the
/// ping goes the way every delivery goes: outbox, queue, sender, signature. The delivery exists
/// at once, so its id can be looked up as soon as this answers. A disabled receiver is refused:
/// its deliveries would only fail.
pub async fn ping(store: &Store, account: AccountId, receiver: WebhookId) -> Result<Delivery, Refusal> {
    let receiver = receivers::find(store, account, receiver).await?.ok_or(Refusal::NotFound)?;
    if !receiver.enabled {
        return Err(Refusal::Rule {
            code: "webhook_disabled",
            message: "O webhook está desativado; ative-o (enabled: true) antes de testá-lo".to_owned(),
        });
    }
    let event = Event::ping(account, receiver.id, &receiver.url);
    let delivery = Delivery::new(&event, &receiver);
    store.write(vec![stored::insert(&event, ())?, stored::insert(&delivery, ())?]).await?;
    Ok(delivery)
}

/// Sends one delivery again with its original id (`POST /v1/webhook_deliveries/{id}/replay`):
/// a `delivered` or `failed` delivery becomes pending for a new round of attempts, due now
/// ([`deliveries::reopen`]). Refused while it is pending (it is on its way), when its receiver
/// was removed or is disabled, or when its event is gone (kept 30 days): it would only fail.
pub async fn replay_one(store: &Store, account: AccountId, delivery_id: &str) -> Result<Delivery, Refusal> {
    let delivery = deliveries::find(store, account, delivery_id).await?.ok_or(Refusal::NotFound)?;
    let refused = |code: &'static str, message: &str| Refusal::Rule { code, message: message.to_owned() };
    if delivery.status == DeliveryStatus::Pending {
        return Err(refused("delivery_pending", "A entrega ainda está pendente: ela já será enviada"));
    }
    match receivers::find(store, account, delivery.receiver_id).await? {
        None => return Err(refused("webhook_removed", "O webhook desta entrega foi removido")),
        Some(receiver) if !receiver.enabled => {
            return Err(refused("webhook_disabled", "O webhook está desativado; ative-o antes de reenviar a entrega"))
        }
        Some(_) => {}
    }
    let (pk, sk) = delivery.event_keys().ok_or(Refusal::NotFound)?;
    if events::read(store, pk, sk).await?.is_none() {
        return Err(refused(
            "event_expired",
            "O evento desta entrega não existe mais (eventos são mantidos por 30 dias)",
        ));
    }
    deliveries::reopen(store, &delivery).await?.ok_or(Refusal::Conflict)
}
