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
//! spread over `keys::event::EVENT_SHARDS` partitions by their id, so that a burst of one account's changes
//! writes no partition past DynamoDB's limit.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, KeyRange, Sort, Store, StoreError, StoreResult, Update, Write};
use crate::values::{AccountId, OutboxStatus, Timestamp, WebhookId};

pub const BILLING_UPDATED: &str = "billing.updated";
pub const SALE_UPDATED: &str = "sale.updated";
pub const STORE_CREDIT_CREATED: &str = "store_credit.created";
/// A payment kept to refund: a billing paid twice (through two channels, or after it was settled
/// otherwise), the second payment's amount to give back to the payer (`payments`).
pub const PAYMENT_TO_REFUND: &str = "payment.to_refund";
/// A payment applied: it settled its billing (`payments`). Sent only to receivers that ask for it.
pub const PAYMENT_APPLIED: &str = "payment.applied";
/// A refund of a payment recorded (`payments::refunds`). Sent only to receivers that ask for it.
pub const PAYMENT_REFUNDED: &str = "payment.refunded";
/// A test delivery an account asks for (`POST /v1/webhooks/{id}/test`): sent to that receiver only.
pub const PING: &str = "ping";

/// How long events, deliveries and attempts are kept: 30 days.
pub const KEPT_SECONDS: i64 = 30 * 24 * 3600;

/// Every event type the service sends about changes: what a receiver may choose among
/// (`event_types`), for the documentation and the tests. A `ping` goes only where it is asked to.
pub const TYPES: [&str; 6] =
    [BILLING_UPDATED, SALE_UPDATED, STORE_CREDIT_CREATED, PAYMENT_TO_REFUND, PAYMENT_APPLIED, PAYMENT_REFUNDED];

/// The types a receiver gets only when it names them in its `event_types` (one that names none
/// gets every other type): the ledger's events, one per payment, that a receiver of billings'
/// changes already hears of through `billing.updated`.
pub const ASKED_ONLY: [&str; 2] = [PAYMENT_APPLIED, PAYMENT_REFUNDED];

/// Whether an event of type `kind` goes to a receiver that chose `types` (`None`: it chose none,
/// and gets every type but those of [`ASKED_ONLY`]).
pub fn goes_to(types: Option<&[String]>, kind: &str) -> bool {
    match types {
        Some(types) => types.iter().any(|t| t == kind),
        None => !ASKED_ONLY.contains(&kind),
    }
}

/// The types a receiver that chose none gets.
pub fn unasked_types() -> Vec<String> {
    TYPES.iter().filter(|kind| !ASKED_ONLY.contains(kind)).map(|kind| (*kind).to_owned()).collect()
}

/// Whether `kind` is a type of event the service records (the types of [`TYPES`] and `ping`).
pub fn is_type(kind: &str) -> bool {
    kind == PING || TYPES.contains(&kind)
}

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
    /// The one receiver it goes to (a `ping`); none: every receiver of the account that takes
    /// its type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_id: Option<WebhookId>,
}

impl Stored for Event {
    const KIND: Option<&'static str> = Some("event");
    type Scope<'a> = ();

    /// In the shard of its id, in order of creation.
    fn key(&self, (): ()) -> Key {
        (keys::event::events(self.account_id, &self.event_id), keys::event::event(self.millis(), &self.event_id))
    }

    /// In the outbox's pending index until dispatched ([`dispatched`] takes it out).
    fn index(&self, (): ()) -> Option<Key> {
        (self.delivery_status == OutboxStatus::Pending).then(|| {
            (
                keys::event::outbox_pending(keys::event::outbox_shard(&self.event_id)),
                keys::event::outbox_order(self.millis(), &self.event_id),
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
            receiver_id: None,
        }
    }

    /// A `ping` for one receiver: `data` names it (`{"webhook": {"id", "url"}}`).
    pub fn ping(account: AccountId, receiver: WebhookId, url: &str) -> Event {
        let data = json!({"webhook": {"id": receiver, "url": url}});
        Event { receiver_id: Some(receiver), ..Event::new(account, PING, data) }
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
    stored::find(store, (keys::event::events(account, event_id), keys::event::event(millis, event_id))).await
}

/// The bodies of the account's recorded events (of the last 30 days), oldest first: for tests and
/// operators; nothing in the service lists an account's events.
pub async fn recorded(store: &Store, account: AccountId) -> StoreResult<Vec<Value>> {
    let mut events = Vec::new();
    for partition in keys::event::event_partitions(account) {
        events
            .extend(stored::with_prefix::<Event>(store, partition, keys::event::EVENT_PREFIX.to_owned(), true).await?);
    }
    events.sort_by_cached_key(|event| event.key(()).1);
    events.iter().map(Event::body).collect()
}

/// Which of the account's events a listing shows (`GET /v1/events`).
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// Only this type ([`is_type`]).
    pub event_type: Option<String>,
    /// Created at or after this moment.
    pub since: Option<Timestamp>,
    /// Created at or before this moment.
    pub until: Option<Timestamp>,
    /// Only events older than this one (the cursor: the last event the previous page examined).
    pub after: Option<String>,
}

/// The most events one listing examines: what bounds a page whose filter matches rarely, or a
/// page number far down the list.
pub const LIST_READ_LIMIT: usize = 500;

/// A page of events, newest first, and the cursor of the next one while more may follow.
#[derive(Clone, Debug, Default)]
pub struct Listed {
    pub events: Vec<Event>,
    /// The id of the last event examined: the next page starts after it.
    pub next: Option<String>,
}

/// One shard of the account's events in a listing: what was read of it and not yet merged.
struct ShardReader {
    range: KeyRange,
    buffered: std::collections::VecDeque<(String, Event)>,
    start: Option<crate::store::Item>,
    done: bool,
}

impl ShardReader {
    /// Reads up to `limit` more events of the shard (newest first), keeping those below `below`.
    async fn fill(&mut self, store: &Store, limit: usize, below: Option<&str>) -> StoreResult<()> {
        let page = store.page(&self.range, limit, self.start.take()).await?;
        self.done = page.next.is_none();
        self.start = page.next;
        for event in stored::read_all::<Event>(page.items)? {
            let sk = event.key(()).1;
            if below.is_none_or(|below| sk.as_str() < below) {
                self.buffered.push_back((sk, event));
            }
        }
        Ok(())
    }

    fn may_have_more(&self) -> bool {
        !self.buffered.is_empty() || !self.done
    }
}

/// The account's events of the last 30 days matching `listing`, newest first: `take` of them
/// after skipping `skip` (a page number's offset). The events are spread over
/// [`keys::event::EVENT_SHARDS`] partitions; each is read newest first in its key range (the filter's
/// dates, never older than 30 days, below the cursor) a few events at a time, and the shards are
/// merged by sort key (creation millisecond, then id), so a page reads about what it shows plus
/// a couple of events a shard. At most [`LIST_READ_LIMIT`] events are examined: a type that
/// matches rarely, or an offset that deep, gives a short page (or an empty one) with a cursor to
/// go on from, rather than a read of 30 days.
pub async fn list(
    store: &Store,
    account: AccountId,
    listing: &Listing,
    skip: usize,
    take: usize,
) -> StoreResult<Listed> {
    let kept_since = Timestamp::now().0.timestamp_millis() - KEPT_SECONDS * 1000;
    let low = keys::event::events_from(listing.since.map_or(kept_since, |t| t.0.timestamp_millis().max(kept_since)));
    let cursor = listing.after.as_deref().and_then(|id| Some(keys::event::event(created_millis(id)?, id)));
    let through = listing.until.map(|t| keys::event::events_through(t.0.timestamp_millis()));
    let high = match (through, &cursor) {
        (Some(through), Some(cursor)) => Some(through.min(cursor.clone())),
        (one, other) => one.or(other.clone()),
    };
    let sort = match high {
        Some(high) if high < low => return Ok(Listed::default()),
        Some(high) => Sort::Between(low, high),
        None => Sort::From(low),
    };
    let mut shards: Vec<ShardReader> = keys::event::event_partitions(account)
        .into_iter()
        .map(|partition| ShardReader {
            range: KeyRange::listing(partition, sort.clone(), false),
            buffered: Default::default(),
            start: None,
            done: false,
        })
        .collect();
    let shard_count = shards.len();
    let (mut listed, mut examined, mut skipped) = (Listed::default(), 0usize, 0usize);
    let matches = |event: &Event| listing.event_type.as_deref().is_none_or(|kind| event.event_type == kind);
    loop {
        // What each empty shard should read next: its share of what is still wanted (of the
        // examining budget, when a type filter may pass over many), and a little more.
        let budget = LIST_READ_LIMIT - examined;
        let wanted = match listing.event_type {
            Some(_) => budget,
            None => (skip - skipped).saturating_add(take - listed.events.len()).min(budget),
        };
        let chunk = (wanted / shard_count + 2).min(100);
        let empty = shards.iter_mut().filter(|shard| shard.buffered.is_empty() && !shard.done);
        futures::future::try_join_all(empty.map(|shard| shard.fill(store, chunk, cursor.as_deref()))).await?;
        if shards.iter().any(|shard| shard.buffered.is_empty() && !shard.done) {
            continue;
        }
        let newest = shards
            .iter()
            .enumerate()
            .filter_map(|(n, shard)| shard.buffered.front().map(|(sk, _)| (n, sk)))
            .max_by(|a, b| a.1.cmp(b.1))
            .map(|(n, _)| n);
        let Some(newest) = newest else { return Ok(listed) };
        let (_, event) = shards[newest].buffered.pop_front().expect("a buffered event");
        examined += 1;
        let last = event.event_id.clone();
        if matches(&event) {
            if skipped < skip {
                skipped += 1;
            } else {
                listed.events.push(event);
            }
        }
        let more = || shards.iter().any(ShardReader::may_have_more);
        if listed.events.len() == take || examined == LIST_READ_LIMIT {
            listed.next = more().then_some(last);
            return Ok(listed);
        }
    }
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
        assert_eq!(text("sk"), keys::event::event(millis, &event.event_id));
        assert_eq!(created_millis("evt_nope"), None);
        // Older ids (random, version 4) have no time in them.
        assert_eq!(created_millis(&format!("evt_{}", uuid::Uuid::new_v4().simple())), None);
        let body = event.body().unwrap();
        assert_eq!(
            (body["id"].as_str(), body["type"].as_str()),
            (Some(event.event_id.as_str()), Some("billing.updated"))
        );
        let shard = keys::event::outbox_shard(&event.event_id);
        assert_eq!(text("gsi1pk"), format!("OUTBOX#PENDING#{shard}"));
        assert_eq!(text("pk"), keys::event::events(AccountId::new(7), &event.event_id));
        assert_eq!(stored::read::<Event>(item).unwrap(), event);
    }
}
