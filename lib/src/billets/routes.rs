//! `/v1/billings/{billing_id}/bank_billets` (§4.3): the billets of one billing, newest first.

use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::model;
use super::view::BilletView;
use crate::auth::Tenant;
use crate::billings::Billing;
use crate::editing::find_or_404;
use crate::http::{response, ApiError, ApiResult, Params, Path};
use crate::state::AppState;
use crate::values::{today, BilletId, BillingId};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/billings/{billing_id}/bank_billets", get(list))
        .route("/v1/billings/{billing_id}/bank_billets/{id}", get(show))
}

/// 404 when the billing is missing or another account's (its key starts with the account).
async fn list(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(billing_id): Path<BillingId>,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let billing: Billing = find_or_404(&state.store, account, billing_id).await?;
    let pagination = Params::parse(query.as_deref()).pagination();
    let billets = model::of_billing(&state.store, account, billing.id).await?;
    let today = today();
    let page: Vec<BilletView> = pagination.slice(&billets).iter().map(|b| BilletView::new(b, today)).collect();
    Ok(response::list("bank_billets", &page, pagination, billets.len()))
}

/// 404 when the billet does not exist, is another billing's, or either is another account's.
async fn show(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((billing_id, id)): Path<(BillingId, BilletId)>,
) -> ApiResult<Response> {
    let billet = model::find(&state.store, tenant.account_id(), billing_id, id).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&BilletView::new(&billet, today())))
}
