//! `GET /v1/bill_categories` (§4.7): the account's financial categories, read-only. The spec does
//! not show the shapes; ours: `{bill_categories: [{id, description, category_type, created_at,
//! updated_at}]}`, ordered by description, paginated, filter `category_type` (exact:
//! `receivable` or `payable`; another value matches nothing).

use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::{response, ApiResult, Params};
use crate::references::{BillCategory, CATEGORY_TYPES};
use crate::store::records;
use crate::text::sort_key;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/bill_categories", get(list))
}

async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    // The prefix only narrows the read; anything but a category type matches nothing.
    let kind = params.get("category_type").map(str::trim);
    let impossible = kind.is_some_and(|k| !CATEGORY_TYPES.contains(&k));
    let prefix = kind.map(|t| format!("{t}#"));
    let listed = records::list::<BillCategory, _, _, _>(
        &state.store,
        tenant.account_id(),
        prefix.as_deref(),
        |_| !impossible,
        |entry| sort_key(entry.text("description").unwrap_or_default()),
        pagination,
    )
    .await?;
    Ok(response::list("bill_categories", &listed.records, pagination, listed.total))
}
