//! `GET /v1/bill_categories` (§4.7): the account's financial categories, read-only. The spec does
//! not show the shapes; ours: `{bill_categories: [{id, description, category_type, created_at,
//! updated_at}]}`, ordered by description, paginated, filter `category_type` (exact:
//! `receivable` or `payable`; another value matches nothing).

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::view::BillCategoryView;
use crate::http::Tenant;
use crate::http::{response, ApiResult, Params};
use crate::state::AppState;
use crate::values::CategoryType;

pub fn router() -> Router<crate::state::AppState> {
    Router::new().route("/v1/bill_categories", get(list))
}

async fn list(State(state): State<AppState>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let kind = params.get("category_type").map(|k| CategoryType::parse(k.trim()).ok_or(()));
    let listed = super::service::list(&state.store, tenant.account_id(), kind, pagination.window()).await?;
    let views: Vec<BillCategoryView> = listed.records.into_iter().map(BillCategoryView::from).collect();
    Ok(response::list("bill_categories", &views, pagination, listed.total))
}
