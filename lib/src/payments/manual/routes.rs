//! The manual channel's route: `POST /v1/billings/{id}/pay_off`, answered as the billings' routes
//! answer (the single representation).

use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use axum::Router;

use super::pay_off;
use crate::billings::input::PayOff;
use crate::billings::view::BillingView;
use crate::http::{response, ApiResult, Path, RequestBody, Tenant};
use crate::state::AppState;
use crate::values::{today, BillingId};

/// The channel's route: `POST /v1/billings/{id}/pay_off`.
pub fn routes() -> Router<AppState> {
    Router::new().route("/v1/billings/{id}/pay_off", post(pay_off_route))
}

async fn pay_off_route(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<BillingId>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let request = PayOff::parse(body.envelope("billing")?);
    let (billing, embedded) = pay_off(&state.store, account, id, request).await?;
    Ok(response::ok(&BillingView::new(&billing, &embedded.related(), today())))
}
