//! Keys of the outbox: events, tasks and the index of what is not handed on yet.

use super::*;
use crate::values::AccountId;

/// Partitions an account's events are spread over (by their id), so that a burst of changes of
/// one account does not write one partition past DynamoDB's 1,000 write units a second: an event
/// carries the billing's whole representation (a few KB, twice that in its transaction), and
/// every registration of a billet writes one.
pub const EVENT_SHARDS: i64 = 32;

/// Partition of one shard of an account's event outbox (the shard of the event's id).
pub fn events(account: AccountId, event_id: &str) -> String {
    event_shard(account, shard_of(event_id, EVENT_SHARDS))
}

fn event_shard(account: AccountId, shard: i64) -> String {
    format!("A#{account}#EVENTS#{shard}")
}

/// Every partition of an account's event outbox.
pub fn event_partitions(account: AccountId) -> Vec<String> {
    (0..EVENT_SHARDS).map(|shard| event_shard(account, shard)).collect()
}

/// Prefix of every event's sort key in the outbox.
pub const EVENT_PREFIX: &str = "EVENT#";

/// An event in the outbox, in order of creation (epoch milliseconds, 13 digits).
pub fn event(created_at_millis: i64, event_id: &str) -> String {
    format!("{EVENT_PREFIX}{created_at_millis:013}#{event_id}")
}

/// Where an account shard's events created at or after a millisecond start (a bound of
/// [`event`]'s range).
pub fn events_from(created_at_millis: i64) -> String {
    format!("{EVENT_PREFIX}{created_at_millis:013}#")
}

/// Where an account shard's events created at or before a millisecond end (a bound of [`event`]'s
/// range: every id sorts below `~`).
pub fn events_through(created_at_millis: i64) -> String {
    format!("{EVENT_PREFIX}{created_at_millis:013}#~")
}

/// Partitions an account's tasks (follow-up work recorded with a change, `jobs::tasks`) are
/// spread over, by their id.
const TASK_SHARDS: i64 = 8;

/// Partition of one shard of an account's tasks.
pub fn tasks(account: AccountId, task_id: &str) -> String {
    task_shard(account, shard_of(task_id, TASK_SHARDS))
}

fn task_shard(account: AccountId, shard: i64) -> String {
    format!("A#{account}#TASKS#{shard}")
}

/// Every partition of an account's tasks.
pub fn task_partitions(account: AccountId) -> Vec<String> {
    (0..TASK_SHARDS).map(|shard| task_shard(account, shard)).collect()
}

/// Prefix of every task's sort key.
pub const TASK_PREFIX: &str = "TASK#";

/// A task, in order of creation (epoch milliseconds, 13 digits).
pub fn task(created_at_millis: i64, task_id: &str) -> String {
    format!("{TASK_PREFIX}{created_at_millis:013}#{task_id}")
}

/// Shards of the index of what the outbox has not handed on yet (`gsi1`): events not dispatched
/// to webhook receivers and tasks not sent to their queues. Each item goes to the shard of its
/// id, so no index partition takes every write of an account, or of the service.
pub const OUTBOX_SHARDS: i64 = 16;

/// `gsi1` partition of one shard of the outbox's pending items.
pub fn outbox_pending(shard: i64) -> String {
    format!("OUTBOX#PENDING#{shard}")
}

/// The pending-index partition of an event or task id.
pub fn outbox_shard(id: &str) -> i64 {
    shard_of(id, OUTBOX_SHARDS)
}

/// The pending-index sort key of an event or task: its millisecond, then its id.
pub fn outbox_order(created_at_millis: i64, id: &str) -> String {
    format!("{created_at_millis:013}#{id}")
}
