//! The outbox of events for the webhook sender (§6).
//!
//! An event is written in the same transaction as the change it reports, so an event exists if
//! and only if the change was saved. Item: `pk = A#<account>#EVENTS`,
//! `sk = EVENT#<created_at in epoch milliseconds, 13 digits>#<event id>` (oldest first), with
//! `event_id` (`evt_<uuid>`, the `X-Service-Delivery` base the receiver deduplicates on), `type`
//! (`billing.updated`), `created_at`, `delivery_status = pending`, and `body`: the exact JSON
//! the sender will sign and POST, `{"id", "type", "created_at", "data"}`, where `data` for
//! `billing.updated` is `{"billing": <the billing's single representation at that moment>}`.
//! The sender (a later issue) reads the pending events of an account in order, delivers each to
//! the account's receivers and marks it delivered.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::store::item::{from_item, to_item};
use crate::store::{keys, Condition, Store, StoreResult, Write};
use crate::values::{AccountId, Timestamp};

pub const BILLING_UPDATED: &str = "billing.updated";

/// An event as the outbox keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Event {
    pub pk: String,
    pub sk: String,
    pub kind: String,
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub account_id: AccountId,
    pub created_at: Timestamp,
    pub delivery_status: String,
    /// The JSON the sender signs and posts.
    pub body: String,
}

/// The write that records an event of `kind` carrying `data`.
pub fn record(account: AccountId, kind: &str, data: Value) -> StoreResult<Write> {
    let now = Timestamp::now();
    let id = format!("evt_{}", uuid::Uuid::new_v4().simple());
    let body = json!({"id": id, "type": kind, "created_at": now.to_string(), "data": data});
    let event = Event {
        pk: keys::events(account),
        sk: keys::event(now.0.timestamp_millis(), &id),
        kind: "event".to_owned(),
        event_id: id,
        event_type: kind.to_owned(),
        account_id: account,
        created_at: now,
        delivery_status: "pending".to_owned(),
        body: body.to_string(),
    };
    Ok(Write::put_if(to_item(&event)?, Condition::absent()))
}

/// The bodies of the account's recorded events, oldest first.
pub async fn recorded(store: &Store, account: AccountId) -> StoreResult<Vec<Value>> {
    let items = store.items_with_prefix(keys::events(account), keys::EVENT_PREFIX.to_owned(), true).await?;
    let mut bodies = Vec::new();
    for item in items {
        let event: Event = from_item(item)?;
        bodies.push(serde_json::from_str(&event.body).map_err(|e| crate::store::StoreError::Mapping(e.to_string()))?);
    }
    Ok(bodies)
}
