//! `/v1/groups` (§4.6). PUT behaves as PATCH: omitted fields keep their values.

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{index_prefix, Group, GroupChanges};
use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, Params, RequestBody};
use crate::store::records;
use crate::text::{contains_ignoring_case, sort_key};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/groups", get(list).post(create))
        .route("/v1/groups/{id}", get(show).patch(update).put(update).delete(destroy))
}

/// Ordered by contact type, then description (ignoring case and accents), then id. `contact_type`
/// is exact (another value matches nothing); `s` is a case-insensitive substring of the description.
async fn list(State(state): State<AppState>, tenant: Tenant, RawQuery(query): RawQuery) -> ApiResult<Response> {
    let params = Params::parse(query.as_deref());
    let pagination = params.pagination();
    let search = params.get("s");
    let prefix = params.get("contact_type").map(index_prefix);
    let listed = records::list::<Group, _, _, _>(
        &state.store,
        tenant.account_id(),
        prefix.as_deref(),
        |entry| search.is_none_or(|s| contains_ignoring_case(entry.text("description").unwrap_or_default(), s)),
        |entry| {
            let kind = entry.text("contact_type").unwrap_or_default().to_owned();
            (kind, sort_key(entry.text("description").unwrap_or_default()))
        },
        pagination,
    )
    .await?;
    Ok(response::list("groups", &listed.records, pagination, listed.total))
}

async fn show(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let group: Group = records::find_or_404(&state.store, tenant.account_id(), parse_id(&id)?).await?;
    Ok(response::ok(&group))
}

async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let changes = GroupChanges::parse(body.envelope("group")?, true).map_err(ApiError::Validation)?;
    let group: Group = records::create(&state.store, tenant.account_id(), changes).await?;
    Ok(response::created(&group))
}

async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let changes = GroupChanges::parse(body.envelope("group")?, false).map_err(ApiError::Validation)?;
    let group: Group = records::update(&state.store, tenant.account_id(), id, changes).await?;
    Ok(response::ok(&group))
}

/// Refused while billings depend on the group. Contacts that point to it are released when
/// contacts arrive (their `group_id` becomes null).
async fn destroy(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    records::delete::<Group>(&state.store, tenant.account_id(), parse_id(&id)?, Vec::new()).await?;
    Ok(response::no_content())
}
