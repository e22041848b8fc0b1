//! Keys of webhook receivers, deliveries, attempts and failed deliveries.

use super::*;
use crate::values::{AccountId, WebhookId};

/// Partition of an account's webhook deliveries and their attempts (kept 30 days).
pub fn webhook_log(account: AccountId) -> String {
    format!("A#{account}#WEBHOOKS")
}

/// A webhook receiver of an account (in the account's partition).
pub fn webhook(id: WebhookId) -> String {
    record("WEBHOOK", id)
}

pub const WEBHOOK_PREFIX: &str = "WEBHOOK#";

/// A delivery of one event to one receiver, in order of the event's creation (epoch ms, 13 digits).
pub fn delivery(event_ms: i64, event_id: &str, receiver: WebhookId) -> String {
    format!("{DELIVERY_PREFIX}{event_ms:013}#{event_id}#{:010}", receiver.get())
}

pub const DELIVERY_PREFIX: &str = "DELIVERY#";

/// `gsi1` partition of an account's failed deliveries, by the time they failed
/// (`gsi1sk` = [`failed_delivery`]).
pub fn failed_deliveries(account: AccountId) -> String {
    format!("A#{account}#WEBHOOKS#FAILED")
}

/// Sort key of a failed delivery in [`failed_deliveries`]: when it failed (epoch ms, 13 digits),
/// then its own sort key.
pub fn failed_delivery(failed_at_millis: i64, delivery_sk: &str) -> String {
    format!("{failed_at_millis:013}#{delivery_sk}")
}

/// Where the failed deliveries since a moment (epoch ms) start in [`failed_deliveries`].
pub fn failed_since(millis: i64) -> String {
    format!("{millis:013}")
}

/// The deliveries of one event (a prefix of [`delivery`]).
pub fn deliveries_of(event_ms: i64, event_id: &str) -> String {
    format!("{DELIVERY_PREFIX}{event_ms:013}#{event_id}#")
}

/// One attempt of a delivery.
pub fn delivery_attempt(event_ms: i64, event_id: &str, receiver: WebhookId, attempt: u32) -> String {
    format!("ATTEMPT#{event_ms:013}#{event_id}#{:010}#{attempt:03}", receiver.get())
}

/// The attempts of one delivery (a prefix of [`delivery_attempt`]).
pub fn attempts_of(event_ms: i64, event_id: &str, receiver: WebhookId) -> String {
    format!("ATTEMPT#{event_ms:013}#{event_id}#{:010}#", receiver.get())
}
