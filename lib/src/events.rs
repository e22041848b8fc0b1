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

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::accounts::AccountId;
use crate::store::item::{n, s};
use crate::store::{keys, Condition, ItemExt, Store, StoreResult, Write};
use crate::time::Timestamp;

pub const BILLING_UPDATED: &str = "billing.updated";

/// The write that records an event of `kind` carrying `data`.
pub fn record(account: AccountId, kind: &str, data: Value) -> anyhow::Result<Write> {
    let now = Timestamp::now();
    let id = format!("evt_{}", crate::billets::registrar::uuid_v4().replace('-', ""));
    let body = json!({"id": id, "type": kind, "created_at": now.to_string(), "data": data});
    let item = HashMap::from([
        ("pk".to_owned(), s(keys::events(account))),
        ("sk".to_owned(), s(keys::event(now.0.timestamp_millis(), &id))),
        ("kind".to_owned(), s("event")),
        ("event_id".to_owned(), s(&id)),
        ("type".to_owned(), s(kind)),
        ("account_id".to_owned(), n(account)),
        ("created_at".to_owned(), s(now.to_string())),
        ("delivery_status".to_owned(), s("pending")),
        ("body".to_owned(), s(serde_json::to_string(&body)?)),
    ]);
    Ok(Write::put_if(item, Condition::absent()))
}

/// The bodies of the account's recorded events, oldest first.
pub async fn recorded(store: &Store, account: AccountId) -> StoreResult<Vec<Value>> {
    let items = store.items_with_prefix(keys::events(account), keys::EVENT_PREFIX.to_owned(), true).await?;
    let mut bodies = Vec::new();
    for item in items {
        bodies.push(serde_json::from_str(&item.string("body")?).map_err(anyhow::Error::new)?);
    }
    Ok(bodies)
}
