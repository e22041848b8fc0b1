//! Reminders to payers by e-mail and WhatsApp (DESIGN §11): an account's schedule of steps around
//! the due date (`schedule`, `GET`/`PUT /v1/reminder_schedule`), the daily run that finds the
//! billings due for each step by key (`run`), the sender (`send`, through `providers`, saying what
//! `message` renders), the log of each delivery in the billing (`deliveries`, shown as §2.1's
//! `billing_reminder_deliveries`), the providers' events that move it (`events`) and the addresses
//! that bounced or complained (`suppression`). The payer opts out on a public page beside the payer
//! page (`payer_page`, `/pay/<token>/lembretes`), which sets the contact's `reminders_opt_out`.
//!
//! No event is sent for a reminder: `billing.updated` reports changes of the billing, and a
//! reminder changes only its own log, which the billing's representation shows.

/// A billing's reminder deliveries, kept in its partition (`billings::reminder_deliveries`).
pub use crate::billings::reminder_deliveries as deliveries;
pub mod events;
pub mod message;
pub mod providers;
mod routes;
pub mod run;
pub mod schedule;
pub mod send;
pub mod suppression;

use crate::contacts::Contact;
use crate::store::{records, Condition, Store, StoreError, StoreResult, Update, Write};
use crate::values::{AccountId, ContactId, Timestamp};

pub use routes::router;

/// The page where a payer stops the reminders of the billing a payer link leads to.
pub fn unsubscribe_url(pay_url: &str) -> String {
    format!("{pay_url}/lembretes")
}

/// Opts a contact out of reminders (the unsubscribe page): one update of the contact, which moves
/// its version so that a concurrent edit of the contact reads it again rather than undo it.
/// Whether the contact exists.
pub async fn opt_out(store: &Store, account: AccountId, contact: ContactId) -> StoreResult<bool> {
    let (pk, sk) = records::key_of::<Contact>(account, contact);
    let change = Update::new().set("reminders_opt_out", &true).set("updated_at", &Timestamp::now()).add("version", 1);
    match store.write(vec![Write::update(pk, sk, change, Some(Condition::present()))]).await {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed(_)) => Ok(false),
        Err(other) => Err(other),
    }
}

/// The payer told at once that the billing is still to pay, with its link (a card on file declined,
/// a Pix Automático debit that failed): the account's first reminder step sent today (that step is
/// then spent; the later ones follow as usual).
pub async fn remind_now(
    store: &Store,
    account: AccountId,
    billing: &crate::billings::model::Billing,
    today: chrono::NaiveDate,
) -> anyhow::Result<()> {
    let schedule = schedule::of(store, account).await?;
    let Some(step) = schedule.steps.iter().filter(|step| !step.channels.is_empty()).min_by_key(|step| step.days) else {
        return Ok(());
    };
    if !schedule.enabled {
        return Ok(());
    }
    let channels = step.channels.iter().filter_map(|c| serde_json::to_value(c).ok()?.as_str().map(str::to_owned));
    let reminder = crate::jobs::Reminder {
        account_id: account,
        billing_id: billing.id,
        day: today,
        days: step.days,
        due_date: billing.due_date,
        channels: channels.collect(),
    };
    store.write(vec![crate::jobs::tasks::one(account, reminder)?]).await?;
    Ok(())
}
