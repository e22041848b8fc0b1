//! `/v1/billings/{billing_id}/bank_billets` (§4.3): the billets of one billing, newest first.

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde_json::Value;

use super::model;
use super::view::represent;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::billings::model::Billing;
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, Params};
use crate::store::records;
use crate::time::today;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/billings/{billing_id}/bank_billets", get(list))
        .route("/v1/billings/{billing_id}/bank_billets/{id}", get(show))
}

/// 404 when the billing is missing or another account's (its key starts with the account).
async fn list(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(billing_id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let billing: Billing = records::find_or_404(&state.store, account, parse_id(&billing_id)?).await?;
    let pagination = Params::parse(query.as_deref()).pagination();
    let billets = model::of_billing(&state.store, account, billing.id).await?;
    let today = today();
    let page: Vec<Value> = pagination.slice(&billets).iter().map(|b| represent(b, today)).collect();
    Ok(response::list("bank_billets", &page, pagination, billets.len()))
}

/// 404 when the billet does not exist, is another billing's, or either is another account's.
async fn show(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((billing_id, id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let (billing_id, id) = (parse_id(&billing_id)?, parse_id(&id)?);
    let billet = model::find(&state.store, account, billing_id, id).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&represent(&billet, today())))
}
