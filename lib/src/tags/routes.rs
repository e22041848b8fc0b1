//! `/v1/tags` (§4.5).

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{Tag, TagChanges};
use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, Params, RequestBody};
use crate::store::records;
use crate::text::{contains_ignoring_case, sort_key};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/tags", get(list).post(create))
        .route("/v1/tags/{id}", get(show).patch(update).delete(destroy))
}

/// Ordered by name (ignoring case and accents), then id; `s` is a case-insensitive substring.
async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    let search = params.get("s");
    let listed = records::list::<Tag, _, _, _>(
        &state.store,
        tenant.account_id(),
        None,
        |entry| search.is_none_or(|s| contains_ignoring_case(entry.text("name").unwrap_or_default(), s)),
        |entry| sort_key(entry.text("name").unwrap_or_default()),
        pagination,
    )
    .await?;
    Ok(response::list("tags", &listed.records, pagination, listed.total))
}

async fn show(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let tag: Tag = records::find_or_404(&state.store, tenant.account_id(), parse_id(&id)?).await?;
    Ok(response::ok(&tag))
}

async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let changes = TagChanges::parse(body.envelope("tag")?, true).map_err(ApiError::Validation)?;
    let tag: Tag = records::create(&state.store, tenant.account_id(), changes).await?;
    Ok(response::created(&tag))
}

async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let changes = TagChanges::parse(body.envelope("tag")?, false).map_err(ApiError::Validation)?;
    let tag: Tag = records::update(&state.store, tenant.account_id(), id, changes).await?;
    Ok(response::ok(&tag))
}

/// Refused while billings use the tag. Contact links go with it (they arrive with contacts).
async fn destroy(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    records::delete::<Tag>(&state.store, tenant.account_id(), parse_id(&id)?, Vec::new()).await?;
    Ok(response::no_content())
}
