pub mod credits;
pub mod rule;
pub mod sales;
pub mod settlements;

use axum::Router;

use crate::state::AppState;

/// Every point-of-sale route: `/v1/sales`, `/v1/store_credits`, `/v1/receivable_settlements`.
pub fn router() -> Router<AppState> {
    Router::new().merge(sales::router()).merge(credits::router()).merge(settlements::router())
}
