//! Follow-up work recorded with the change that implies it (docs/decisions.md, "Follow-up work is
//! a task in the change's own transaction").
//!
//! A change that implies work in the background (register a billet, expand a bulk billing or its
//! next chunk, settle, clear a deleted tag from its contacts) writes a *task* in its own
//! transaction: the queue messages to send, in an item of one of the account's task partitions
//! (`A#<account>#TASKS#<shard>`, `sk = TASK#<epoch ms>#<task id>`), listed in the outbox's pending
//! index. So a task exists if and only if its change was saved, and nothing is sent before the
//! change commits: a process killed between the two loses nothing.
//!
//! The outbox hands a task on (`jobs::outbox`): on AWS the table's stream passes each new task to
//! the outbox dispatcher at once, and the sweep of the pending index every minute catches any the
//! stream missed; locally the dev server does both. Handing on sends the messages and then
//! deletes the task. A dispatch that dies between the two leaves the task to the next, so a message
//! may go out twice (as SQS may deliver it twice anyway): every worker is idempotent per item.

use serde::{Deserialize, Serialize};

use super::{body, Message, Queues};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreError, StoreResult, Write};
use crate::values::{AccountId, Timestamp};

/// A task as stored (its keys are added by [`record`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub task_id: String,
    pub account_id: AccountId,
    /// The `kind` of its messages, which names their queue.
    pub queue: String,
    /// The message bodies, as sent.
    pub messages: Vec<String>,
    /// Seconds the queue keeps the messages invisible once sent (SQS's `DelaySeconds`, up to 900).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_seconds: u32,
    pub created_at: Timestamp,
}

impl Stored for Task {
    const KIND: Option<&'static str> = Some("task");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        (keys::event::tasks(self.account_id, &self.task_id), keys::event::task(self.millis(), &self.task_id))
    }

    /// Pending until it is handed on (and deleted).
    fn index(&self, (): ()) -> Option<Key> {
        Some((
            keys::event::outbox_pending(keys::event::outbox_shard(&self.task_id)),
            keys::event::outbox_order(self.millis(), &self.task_id),
        ))
    }
}

impl Task {
    /// The millisecond it was recorded at: its place in the keys.
    fn millis(&self) -> i64 {
        self.created_at.0.timestamp_millis()
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The most messages one task carries (a transaction's item stays small: a registration message
/// is about 150 bytes).
const MAX_MESSAGES: usize = 100;

/// A new task id: `tsk_` and a version-7 UUID (time-ordered), without hyphens.
fn new_id(at: Timestamp) -> String {
    let millis = u64::try_from(at.0.timestamp_millis()).unwrap_or_default();
    let random: [u8; 10] = rand::random();
    format!("tsk_{}", uuid::Builder::from_unix_timestamp_millis(millis, &random).into_uuid().simple())
}

/// The write, for the transaction of the change that implies them, that records these messages
/// to be sent once the change is saved. At most [`MAX_MESSAGES`] messages.
pub fn record<M: Message>(account: AccountId, messages: &[M]) -> StoreResult<Write> {
    record_delayed(account, messages, 0)
}

/// [`record`] of messages the queue is to hand out only `delay_seconds` after they are sent (at
/// most 900).
pub fn record_delayed<M: Message>(account: AccountId, messages: &[M], delay_seconds: u32) -> StoreResult<Write> {
    if messages.is_empty() || messages.len() > MAX_MESSAGES {
        return Err(StoreError::Mapping(format!(
            "a task carries 1 to {MAX_MESSAGES} messages, not {}",
            messages.len()
        )));
    }
    let bodies = messages.iter().map(body).collect::<anyhow::Result<Vec<_>>>()?;
    let now = Timestamp::now();
    let task = Task {
        task_id: new_id(now),
        account_id: account,
        queue: M::KIND.to_owned(),
        messages: bodies,
        delay_seconds: delay_seconds.min(900),
        created_at: now,
    };
    stored::insert(&task, ())
}

/// [`record`] of one message.
pub fn one<M: Message>(account: AccountId, message: M) -> StoreResult<Write> {
    record(account, std::slice::from_ref(&message))
}

/// Hands on the task stored under these keys, when it is still there: its messages are sent to
/// their queue, then it is deleted. Returns how many messages went out.
pub async fn dispatch(store: &Store, queues: &Queues, pk: String, sk: String) -> anyhow::Result<usize> {
    let Some(task) = stored::find::<Task>(store, (pk.clone(), sk.clone())).await? else { return Ok(0) };
    queues.send_bodies(&task.queue, task.account_id, &task.messages, task.delay_seconds).await?;
    // Deleted whatever else happened to it: a task is written once and never changed.
    store.write(vec![Write::delete(pk, sk)]).await?;
    Ok(task.messages.len())
}

/// The keys of the tasks an account has not handed on yet, oldest first: for the dev server's
/// tests and for operators. Reads the account's task partitions.
pub async fn pending_of(store: &Store, account: AccountId) -> StoreResult<Vec<(String, String)>> {
    let mut found = Vec::new();
    for partition in keys::event::task_partitions(account) {
        found.extend(store.partition_keys(partition).await?);
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{parse, BilletRegistration};
    use crate::values::BillingId;

    #[test]
    fn a_task_keeps_its_messages_as_sent() {
        let account = AccountId::new(7);
        let messages = [
            BilletRegistration::new(account, BillingId::new(1), 1),
            BilletRegistration::new(account, BillingId::new(2), 1),
        ];
        let Write::Put { item, condition } = record(account, &messages).unwrap() else { panic!("a put") };
        assert!(condition.is_some());
        let task: Task = stored::read(item.clone()).unwrap();
        assert_eq!(task.queue, "billet_registration");
        assert_eq!(parse::<BilletRegistration>(&task.messages[1]).unwrap().billing_id, BillingId::new(2));
        let text = |name: &str| item[name].as_s().unwrap().clone();
        assert_eq!(text("pk"), keys::event::tasks(account, &task.task_id));
        assert!(text("sk").starts_with("TASK#") && text("sk").ends_with(&task.task_id));
        assert!(text("gsi1pk").starts_with("OUTBOX#PENDING#"));
        assert!(record::<BilletRegistration>(account, &[]).is_err());
    }
}
