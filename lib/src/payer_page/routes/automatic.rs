//! The page where the payer of a schedule's billing authorizes Pix Automático
//! (`/pay/<token>/pix-automatico`; `payments::pix::automatic`). Opening it opens the schedule's
//! recurrence at the PSP when none is waiting (one per schedule: a second visit shows the same).

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::shared::{found_in, html_headers, not_found, psp_unavailable, unavailable};
use crate::billets::link;
use crate::billings::model::Billing;
use crate::billings::standing::Standing;
use crate::payer_page::page;
use crate::payments::pix::automatic::{self, Offer};
use crate::state::AppState;
use crate::store::records;
use crate::values::today;

/// In words, for the page.
fn period_words(period: &str) -> &'static str {
    match period {
        "SEMANAL" => "semanal",
        "TRIMESTRAL" => "trimestral",
        "SEMESTRAL" => "semestral",
        "ANUAL" => "anual",
        _ => "mensal",
    }
}

/// The page, while the billet can be paid and Pix Automático is offered for its schedule
/// (otherwise a 404).
pub(super) async fn page(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (account, billet, billing) = match found_in(&state, &token).await {
        Ok(Some(found)) => found,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    if !matches!(Standing::of(&billet, &billing, today()), Standing::Payable(_)) {
        return not_found();
    }
    let Some(parent) = billing.parent_id else { return not_found() };
    let schedule = match records::find::<Billing>(&state.store, account, parent).await {
        Ok(Some(schedule)) => schedule,
        Ok(None) => return not_found(),
        Err(error) => return unavailable(error),
    };
    let Some(period) = automatic::periodicity(&schedule) else { return not_found() };
    let qr = match automatic::open(&state.store, account, &schedule, &billing, &billet).await {
        Ok(Offer::Authorize(recurrence)) => recurrence.copy_paste,
        Ok(Offer::Authorized) => None,
        Ok(Offer::NotOffered) => return not_found(),
        Err(error) => return psp_unavailable(&error),
    };
    let back = format!("{}{token}", link::PATH);
    let html = page::pix_automatic(&billet, schedule.amount, period_words(period), qr.as_deref(), &back);
    (StatusCode::OK, html_headers(), html).into_response()
}
