//! The composition of endpoint groups: every router of the API, as the dev server serves them
//! (each Lambda serves one).

use axum::Router;

pub use crate::state::AppState;

pub fn all_routes() -> Router<AppState> {
    Router::new()
        .merge(crate::tags::router())
        .merge(crate::groups::router())
        .merge(crate::contacts::router())
        .merge(crate::bill_categories::router())
        .merge(crate::billings::router())
        .merge(crate::schedules::routes::router())
        .merge(crate::carnes::routes::router())
        .merge(crate::payments::card::routes::api())
        .merge(crate::payments::manual::routes())
        .merge(crate::payments::routes::router())
        .merge(crate::exports::routes::router())
        .merge(crate::billings::billets::router())
        .merge(crate::pos::router())
        .merge(crate::webhooks::router())
        .merge(crate::reminders::router())
}

/// Wires what lower layers ask for without knowing (the payment channels a billing asks:
/// `billings::channels`). Every entry point calls it before its first request: the functions, the
/// dev server, the ops CLI, the benches and the test harness. Calling it again does nothing.
pub fn wire() {
    crate::billings::channels::install(&crate::payments::withdrawals::PaymentChannels);
}
