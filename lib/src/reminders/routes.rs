//! `/v1/reminder_schedule`: the account's reminder schedule, read and changed through the same
//! workflow as the ops CLI's (`schedule`). Parse → the workflow → represent.

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::providers;
use super::schedule::{self, Schedule, Step};
use crate::http::{response, ApiResult, RequestBody, Tenant};
use crate::state::AppState;
use crate::values::Timestamp;

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
