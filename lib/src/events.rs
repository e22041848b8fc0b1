//! The outbox of events for the webhook receivers (§6).
//!
//! An event is written in the same transaction as the change it reports, so an event exists if and
//! only if the change was saved. Item: `pk = A#<account>#EVENTS#<shard of the id>`,
//! `sk = EVENT#<created_at in epoch milliseconds, 13 digits>#<event id>` (oldest first), with
//! `event_id` (`evt_` and a time-ordered UUID, v7, whose first 48 bits are that millisecond: the
//! key is known from the id alone), `type`, `created_at`, `delivery_status` and `body`: the exact
//! JSON the sender signs and POSTs, `{"id", "type", "created_at", "data"}`. The table's TTL
//! removes an event 30 days after it happened (`expires_at`), with its deliveries.
//!
//! Until it is dispatched (one delivery per receiver, `webhooks::dispatcher`) an event is listed in
//! `gsi1` under `OUTBOX#PENDING#<shard>` (`delivery_status = pending`); dispatching removes it from
//! there (`delivery_status = dispatched`). The outbox (`crate::outbox`) hands it on: the table's
//! stream at once, a sweep of the pending index for any the stream missed. An account's events are
//! spread over `keys::EVENT_SHARDS` partitions by their id, so that a burst of one account's changes
//! writes no partition past DynamoDB's limit.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreError, StoreResult, Update, Write};
use crate::values::{AccountId, OutboxStatus, Timestamp};

pub const BILLING_UPDATED: &str = "billing.updated";
pub const SALE_UPDATED: &str = "sale.updated";
pub const STORE_CREDIT_CREATED: &str = "store_credit.created";

/// How long events, deliveries and attempts are kept: 30 days.
pub const KEPT_SECONDS: i64 = 30 * 24 * 3600;

/// Every event type the service sends, for the documentation and the tests.
pub const TYPES: [&str; 3] = [BILLING_UPDATED, SALE_UPDATED, STORE_CREDIT_CREATED];

/// An event as the outbox keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub account_id: AccountId,
    pub created_at: Timestamp,
    pub delivery_status: OutboxStatus,
    /// The JSON the sender signs and posts.
    pub body: String,
    /// When the table's TTL removes it (epoch seconds).
    #[serde(default)]
    pub expires_at: i64,
}

impl Stored for Event {
    const KIND: Option<&'static str> = Some("event");
    type Scope<'a> = ();

    /// In the shard of its id, in order of creation.
    fn key(&self, (): ()) -> Key {
        (keys::events(self.account_id, &self.event_id), keys::event(self.millis(), &self.event_id))
    }

    /// In the outbox's pending index until dispatched ([`dispatched`] takes it out).
    fn index(&self, (): ()) -> Option<Key> {
        (self.delivery_status == OutboxStatus::Pending).then(|| {
            (
                keys::outbox_pending(keys::outbox_shard(&self.event_id)),
                keys::outbox_order(self.millis(), &self.event_id),
            )
        })
    }
}

/// A new event id: `evt_` and a version-7 UUID (time-ordered, its first 48 bits the millisecond of
/// `at`), without hyphens.
fn new_id(at: Timestamp) -> String {
    let millis = u64::try_from(at.0.timestamp_millis()).unwrap_or_default();
    let random: [u8; 10] = rand::random();
    format!("evt_{}", uuid::Builder::from_unix_timestamp_millis(millis, &random).into_uuid().simple())
}

/// The millisecond an event id was made at (its key), when it is one of ours.
pub fn created_millis(event_id: &str) -> Option<i64> {
    let uuid = uuid::Uuid::try_parse(event_id.strip_prefix("evt_")?).ok()?;
    if uuid.get_version_num() != 7 {
        return None;
    }
    let (seconds, nanos) = uuid.get_timestamp()?.to_unix();
    Some(seconds as i64 * 1000 + i64::from(nanos / 1_000_000))
}

impl Event {
    /// An event of `kind` carrying `data`, pending dispatch.
    pub fn new(account: AccountId, kind: &str, data: Value) -> Event {
        let now = Timestamp::now();
        let id = new_id(now);
        let body = json!({"id": id, "type": kind, "created_at": now.to_string(), "data": data});
        Event {
            event_id: id,
            event_type: kind.to_owned(),
            account_id: account,
            created_at: now,
            delivery_status: OutboxStatus::Pending,
            body: body.to_string(),
            expires_at: now.0.timestamp() + KEPT_SECONDS,
        }
    }

    /// The millisecond it was created at: its place in its keys.
    fn millis(&self) -> i64 {
        self.created_at.0.timestamp_millis()
    }

    /// The body as JSON.
    pub fn body(&self) -> StoreResult<Value> {
        serde_json::from_str(&self.body).map_err(|e| StoreError::Mapping(e.to_string()))
    }
}

/// The write that records an event of `kind` carrying `data`.
pub fn record(account: AccountId, kind: &str, data: Value) -> StoreResult<Write> {
    stored::insert(&Event::new(account, kind, data), ())
}

/// The account's event `event_id`, when it exists.
pub async fn find(store: &Store, account: AccountId, event_id: &str) -> StoreResult<Option<Event>> {
    let Some(millis) = created_millis(event_id) else { return Ok(None) };
    stored::find(store, (keys::events(account, event_id), keys::event(millis, event_id))).await
}

/// The bodies of the account's recorded events (of the last 30 days), oldest first: for tests and
/// operators; nothing in the service lists an account's events.
pub async fn recorded(store: &Store, account: AccountId) -> StoreResult<Vec<Value>> {
    let mut events = Vec::new();
    for partition in keys::event_partitions(account) {
        events.extend(stored::with_prefix::<Event>(store, partition, keys::EVENT_PREFIX.to_owned(), true).await?);
    }
    events.sort_by_cached_key(|event| event.key(()).1);
    events.iter().map(Event::body).collect()
}

/// The write that marks an event dispatched: out of the pending index.
pub fn dispatched(event: &Event) -> Write {
    let update = Update::new().set("delivery_status", &OutboxStatus::Dispatched).unindex();
    stored::update(event, (), update, Condition::present())
}

/// The event an item of the outbox holds.
pub async fn read(store: &Store, pk: String, sk: String) -> StoreResult<Option<Event>> {
    stored::find(store, (pk, sk)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_id_carries_its_key() {
        let event = Event::new(AccountId::new(7), BILLING_UPDATED, json!({"billing": {"id": 1}}));
        assert!(event.event_id.starts_with("evt_") && event.event_id.len() == 36, "{}", event.event_id);
        let millis = created_millis(&event.event_id).unwrap();
        assert_eq!(millis, event.created_at.0.timestamp_millis());
        let item = stored::item_of(&event, ()).unwrap();
        let text = |name| crate::store::item::text(&item, name).unwrap().to_owned();
        assert_eq!(text("sk"), keys::event(millis, &event.event_id));
        assert_eq!(created_millis("evt_nope"), None);
        // Older ids (random, version 4) have no time in them.
        assert_eq!(created_millis(&format!("evt_{}", uuid::Uuid::new_v4().simple())), None);
        let body = event.body().unwrap();
        assert_eq!(
            (body["id"].as_str(), body["type"].as_str()),
            (Some(event.event_id.as_str()), Some("billing.updated"))
        );
        let shard = keys::outbox_shard(&event.event_id);
        assert_eq!(text("gsi1pk"), format!("OUTBOX#PENDING#{shard}"));
        assert_eq!(text("pk"), keys::events(AccountId::new(7), &event.event_id));
        assert_eq!(stored::read::<Event>(item).unwrap(), event);
    }
}
