//! Deliveries and their attempts: the delivery log.
//!
//! A delivery is one event for one receiver; its id, `dlv_<the event's UUID>_<receiver id>`, is the
//! same on every attempt and every replay, so a receiver deduplicates on it. It lives in the
//! account's webhook partition (`pk = A#<account>#WEBHOOKS`, `sk = DELIVERY#<event ms>#<event
//! id>#<receiver>`: the id gives the key), with each attempt beside it (`ATTEMPT#…#<n>`: time,
//! response status, latency, error). The table's TTL removes both 30 days after their last change.
//! A failed delivery is also listed under `A#<account>#WEBHOOKS#FAILED` in `gsi1`, by the time it
//! failed, which `webhook deliveries --status failed` and `replay --failed-since` read.
//!
//! Retries follow [`Schedule`]: after attempt *n* fails, attempt *n + 1* waits the *n*-th wait,
//! ±10 % (jitter spreads a receiver's recovery). Every write of a delivery is conditioned on the
//! version it read, and an attempt first claims the delivery (a lease, [`claim`]), so two copies
//! of its message never send it twice at once. The steps are in `lifecycle`, the reads of the log
//! in `listing`, the waits in `schedule`.

mod lifecycle;
mod listing;
mod schedule;

use serde::{Deserialize, Serialize};

use super::receivers::Receiver;
use crate::events::{self, Event, KEPT_SECONDS};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreError, StoreResult, Write};
use crate::values::{AccountId, DeliveryStatus, Timestamp, WebhookId};

pub use lifecycle::{claim, give_up, reopen, settle, Answer};
pub use listing::{attempts, list, page, Filter, Listing};
pub use schedule::Schedule;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    pub delivery_id: String,
    pub account_id: AccountId,
    pub event_id: String,
    pub event_type: String,
    pub receiver_id: WebhookId,
    /// The receiver's URL when the delivery was made (for the log).
    pub url: String,
    pub status: DeliveryStatus,
    /// Attempts made, replays included.
    pub attempts: u32,
    /// Attempts since the delivery was made or last replayed: the place in the schedule.
    pub round_attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leased_until: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_response_status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last attempt was made, and how long it took (deliveries attempted before these
    /// were kept have neither).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempt_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_latency_ms: Option<u64>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_at: Option<Timestamp>,
    pub expires_at: i64,
    pub version: i64,
}

impl Stored for Delivery {
    const KIND: Option<&'static str> = Some("delivery");
    type Scope<'a> = ();

    /// In the account's webhook log, in order of its event (whose id carries its millisecond).
    fn key(&self, (): ()) -> Key {
        (
            keys::webhook::webhook_log(self.account_id),
            keys::webhook::delivery(self.event_millis(), &self.event_id, self.receiver_id),
        )
    }

    /// In the account's failed index while failed, by the time it failed.
    fn index(&self, (): ()) -> Option<Key> {
        let failed_at = self.failed_at.filter(|_| self.status == DeliveryStatus::Failed)?;
        let (_, sk) = self.key(());
        Some((
            keys::webhook::failed_deliveries(self.account_id),
            keys::webhook::failed_delivery(failed_at.0.timestamp_millis(), &sk),
        ))
    }
}

/// One attempt of a delivery.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub delivery_id: String,
    pub event_id: String,
    pub receiver_id: WebhookId,
    pub url: String,
    pub attempt: u32,
    pub at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_status: Option<u16>,
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub expires_at: i64,
}

impl Stored for Attempt {
    const KIND: Option<&'static str> = Some("delivery_attempt");
    /// The account: its webhook log.
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        let millis = events::created_millis(&self.event_id).unwrap_or_default();
        (
            keys::webhook::webhook_log(account),
            keys::webhook::delivery_attempt(millis, &self.event_id, self.receiver_id, self.attempt),
        )
    }
}

/// The id of the delivery of `event_id` to `receiver`.
pub fn delivery_id(event_id: &str, receiver: WebhookId) -> String {
    format!("dlv_{}_{}", event_id.strip_prefix("evt_").unwrap_or(event_id), receiver.get())
}

/// The event id, its millisecond and the receiver a delivery id names.
pub fn parse_id(delivery_id: &str) -> Option<(String, i64, WebhookId)> {
    let (event, receiver) = delivery_id.strip_prefix("dlv_")?.split_once('_')?;
    let event_id = format!("evt_{event}");
    let millis = events::created_millis(&event_id)?;
    let receiver = receiver.parse::<i64>().ok().filter(|id| *id > 0)?;
    Some((event_id, millis, WebhookId::new(receiver)))
}

fn kept_until(at: Timestamp) -> i64 {
    at.0.timestamp() + KEPT_SECONDS
}

impl Delivery {
    /// The pending delivery of `event` to `receiver`, due at once.
    pub fn new(event: &Event, receiver: &Receiver) -> Delivery {
        let now = Timestamp::now();
        Delivery {
            delivery_id: delivery_id(&event.event_id, receiver.id),
            account_id: event.account_id,
            event_id: event.event_id.clone(),
            event_type: event.event_type.clone(),
            receiver_id: receiver.id,
            url: receiver.url.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            round_attempts: 0,
            next_attempt_at: Some(now),
            leased_until: None,
            last_response_status: None,
            last_error: None,
            last_attempt_at: None,
            last_latency_ms: None,
            created_at: now,
            updated_at: now,
            delivered_at: None,
            failed_at: None,
            replayed_at: None,
            expires_at: kept_until(now),
            version: 1,
        }
    }

    /// The millisecond of its event (in the event's id): its place in its keys.
    fn event_millis(&self) -> i64 {
        events::created_millis(&self.event_id).unwrap_or_default()
    }

    /// The keys of the event it delivers.
    pub fn event_keys(&self) -> Option<(String, String)> {
        let millis = events::created_millis(&self.event_id)?;
        Some((keys::event::events(self.account_id, &self.event_id), keys::event::event(millis, &self.event_id)))
    }

    /// When it may be attempted: now, or the later of its next attempt and its lease.
    pub fn due_at(&self) -> Option<Timestamp> {
        [self.next_attempt_at, self.leased_until].into_iter().flatten().max_by_key(|t| t.0)
    }

    /// `self` changed into `next`, provided it is still the version read.
    fn replaced_by(&self, next: &Delivery) -> StoreResult<Write> {
        stored::put_if(next, (), Condition::version(self.version))
    }

    fn next_version(&self, now: Timestamp) -> Delivery {
        Delivery { version: self.version + 1, updated_at: now, expires_at: kept_until(now), ..self.clone() }
    }
}

/// Stores a new delivery; `false` when it already exists (a repeated dispatch).
pub async fn create(store: &Store, delivery: &Delivery) -> StoreResult<bool> {
    match store.write(vec![stored::insert(delivery, ())?]).await {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed(_)) => Ok(false),
        Err(error) => Err(error),
    }
}

pub async fn find(store: &Store, account: AccountId, delivery_id: &str) -> StoreResult<Option<Delivery>> {
    let Some((event_id, millis, receiver)) = parse_id(delivery_id) else { return Ok(None) };
    stored::find(store, (keys::webhook::webhook_log(account), keys::webhook::delivery(millis, &event_id, receiver)))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_delivery_id_names_its_key() {
        let event = Event::new(AccountId::new(3), events::BILLING_UPDATED, json!({}));
        let id = delivery_id(&event.event_id, WebhookId::new(12));
        assert!(id.starts_with("dlv_") && id.ends_with("_12"), "{id}");
        let (event_id, millis, receiver) = parse_id(&id).unwrap();
        assert_eq!((event_id.as_str(), receiver), (event.event_id.as_str(), WebhookId::new(12)));
        assert_eq!(millis, event.created_at.0.timestamp_millis());
        for bad in ["", "dlv_", "dlv_x_1", &format!("dlv_{}_0", &event.event_id[4..]), "evt_1"] {
            assert_eq!(parse_id(bad), None, "{bad}");
        }
    }
}
