//! `/v1/groups` (§4.6). PUT behaves as PATCH: omitted fields keep their values.

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{index_prefix, Group, GroupChanges, MSG_DESCRIPTION_TAKEN, MSG_IN_USE};
use crate::app::AppState;
use crate::auth::Tenant;
use crate::http::routing::parse_id;
use crate::http::{response, ApiError, ApiResult, Params, RequestBody};
use crate::store::records;
use crate::store::retry_on_conflict;
use crate::text::{contains_ignoring_case, sort_key};
use crate::time::Timestamp;

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
    let account = tenant.account_id();
    let group = retry_on_conflict(|| async {
        let id = records::next_id::<Group>(&state.store, account).await?;
        let group = Group::new(id, changes.clone(), Timestamp::now());
        records::insert(&state.store, account, &group, MSG_DESCRIPTION_TAKEN).await?;
        Ok(group)
    })
    .await?;
    Ok(response::created(&group))
}

async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let account = tenant.account_id();
    let changes = GroupChanges::parse(body.envelope("group")?, false).map_err(ApiError::Validation)?;
    let group = retry_on_conflict(|| async {
        let current: Group = records::find_or_404(&state.store, account, id).await?;
        let Some(next) = current.changed(&changes, Timestamp::now()) else {
            return Ok(current);
        };
        records::replace(&state.store, account, &current, &next, MSG_DESCRIPTION_TAKEN).await?;
        Ok(next)
    })
    .await?;
    Ok(response::ok(&group))
}

/// Refused while billings depend on the group. Contacts that point to it are released when
/// contacts arrive (their `group_id` becomes null).
async fn destroy(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let account = tenant.account_id();
    retry_on_conflict(|| async {
        let current: Group = records::find_or_404(&state.store, account, id).await?;
        if current.billing_refs > 0 {
            return Err(ApiError::validation(MSG_IN_USE));
        }
        records::remove(&state.store, account, &current, Vec::new()).await
    })
    .await?;
    Ok(response::no_content())
}
