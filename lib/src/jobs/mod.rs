//! Queue messages and their producer (DESIGN §6). Each queue has its own message type, in a file
//! of its own that says its format and how its worker stays idempotent; a worker reads only its
//! own kind: a body of another kind, or no message at all, fails and ends in the queue's DLQ
//! after its receive limit. [`Queues`] sends them (`queues`), on the local stack through a lane
//! per tenant (`lanes`); [`handle_batch`] runs a worker's batch (`batch`).

use std::fmt::Debug;

use anyhow::{bail, Context as _};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::values::AccountId;

mod batch;
mod billet_registration;
mod bulk_expansion;
mod card_release;
mod cascade;
pub mod cascade_state;
mod export_step;
mod lanes;
mod pix_charge;
mod queues;
mod receivable_settlement;
mod reminders;
mod schedule_cycle;
pub mod tasks;
mod webhook_delivery;

pub use batch::handle_batch;
pub use billet_registration::BilletRegistration;
pub use bulk_expansion::BulkExpansion;
pub use card_release::CardRelease;
pub use cascade::Cascade;
pub use export_step::ExportStep;
pub use lanes::{queue_name_of, Bell, LANE_INFIX};
pub use pix_charge::{Automatic, PixCharge};
pub use queues::Queues;
pub use receivable_settlement::ReceivableSettlement;
pub use reminders::{Reminder, ReminderScan};
pub use schedule_cycle::ScheduleCycle;
pub use webhook_delivery::WebhookDelivery;

/// The message type of one queue.
pub trait Message: Serialize + DeserializeOwned + Debug {
    /// The `kind` every body of this queue carries (which names the queue: `Queues`).
    const KIND: &'static str;

    /// The tenant the message works for: its message group (`Queues`).
    fn account(&self) -> AccountId;
}

/// The body of a message: its fields and its `kind`.
pub fn body<M: Message>(message: &M) -> anyhow::Result<String> {
    let mut value = serde_json::to_value(message)?;
    let fields = value.as_object_mut().context("a message is an object")?;
    fields.insert("kind".to_owned(), serde_json::Value::String(M::KIND.to_owned()));
    Ok(value.to_string())
}

/// The message a body holds, when it is one of `M`'s kind.
pub fn parse<M: Message>(body: &str) -> anyhow::Result<M> {
    let value: serde_json::Value = serde_json::from_str(body).context("the body is not JSON")?;
    match value.get("kind").and_then(|k| k.as_str()) {
        Some(kind) if kind == M::KIND => {}
        other => bail!("a message of kind {other:?} on the queue of {}", M::KIND),
    }
    serde_json::from_value(value).with_context(|| format!("not a {} message", M::KIND))
}

/// Work reordered in turns of its accounts: each account's first, then each one's second…, so
/// that one account's many do not hold back another's few (what a fair queue does, for a day's run
/// in one process: reminders, schedules).
pub fn in_turns<T>(items: Vec<T>, account: impl Fn(&T) -> AccountId) -> Vec<T> {
    let mut queues: std::collections::BTreeMap<AccountId, std::collections::VecDeque<T>> = Default::default();
    for item in items {
        queues.entry(account(&item)).or_default().push_back(item);
    }
    let mut turns = Vec::new();
    while !queues.is_empty() {
        queues.retain(|_, queue| match queue.pop_front() {
            Some(item) => {
                turns.push(item);
                true
            }
            None => false,
        });
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::BillingId;

    #[test]
    fn the_message_format() {
        let job = BilletRegistration {
            account_id: AccountId::new(7),
            billing_id: BillingId::new(42),
            generation: 2,
            requested_at: "t".into(),
        };
        let sent: serde_json::Value = serde_json::from_str(&body(&job).unwrap()).unwrap();
        assert_eq!(
            sent,
            serde_json::json!({"kind": "billet_registration", "account_id": 7, "billing_id": 42, "generation": 2, "requested_at": "t"})
        );
        let old: BilletRegistration =
            parse(r#"{"kind":"billet_registration","account_id":7,"billing_id":42,"requested_at":"t"}"#).unwrap();
        assert_eq!(old.generation, 1);
        // Another queue's message is not this queue's.
        assert!(parse::<BilletRegistration>(r#"{"kind":"bulk_expansion","account_id":7}"#).is_err());
        assert!(parse::<BulkExpansion>(&body(&job).unwrap()).is_err());
    }
}
