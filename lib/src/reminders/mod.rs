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

pub mod deliveries;
pub mod events;
pub mod message;
pub mod providers;
pub mod run;
pub mod schedule;
pub mod send;
pub mod suppression;

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use crate::contacts::Contact;
use crate::http::{response, ApiResult, RequestBody, Tenant};
use crate::state::AppState;
use crate::store::{records, Condition, Store, StoreError, StoreResult, Update, Write};
use crate::values::{AccountId, ContactId, Timestamp};
use schedule::{Schedule, Step};

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

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/reminder_schedule", get(show).put(update))
}

/// The schedule's representation.
#[derive(Serialize)]
struct ScheduleView<'a> {
    enabled: bool,
    steps: &'a [Step],
    /// Whether the account never changed it (the service's default).
    default: bool,
    /// The address reminders are sent from (the account's, or the service's).
    email_sender: &'a str,
    /// Whether ops gave the account a WhatsApp number: without one, no WhatsApp step sends.
    whatsapp_configured: bool,
    updated_at: Option<Timestamp>,
}

fn view<'a>(schedule: &'a Schedule, default_sender: &'a str) -> ScheduleView<'a> {
    ScheduleView {
        enabled: schedule.enabled,
        steps: &schedule.steps,
        default: schedule.is_default(),
        email_sender: schedule.email_sender.as_deref().unwrap_or(default_sender),
        whatsapp_configured: schedule.whatsapp_phone_number_id.is_some(),
        updated_at: schedule.updated_at,
    }
}

async fn show(State(state): State<AppState>, tenant: Tenant) -> ApiResult<Response> {
    let schedule = schedule::of(&state.store, tenant.account_id()).await?;
    Ok(response::ok(&view(&schedule, &providers::default_sender())))
}

async fn update(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let change = schedule::Change::parse(&body.envelope("reminder_schedule")?)?;
    let schedule = schedule::save(&state.store, tenant.account_id(), &change).await?;
    Ok(response::ok(&view(&schedule, &providers::default_sender())))
}
