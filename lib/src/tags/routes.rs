//! `/v1/tags` (§4.5).

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::{Tag, TagChanges, MSG_IN_USE, MSG_NAME_TAKEN};
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
    let account = tenant.account_id();
    let tag = retry_on_conflict(|| async {
        let tag = Tag::new(records::next_id::<Tag>(&state.store, account).await?, changes.clone(), Timestamp::now());
        records::insert(&state.store, account, &tag, MSG_NAME_TAKEN).await?;
        Ok(tag)
    })
    .await?;
    Ok(response::created(&tag))
}

async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let account = tenant.account_id();
    let changes = TagChanges::parse(body.envelope("tag")?, false).map_err(ApiError::Validation)?;
    let tag = retry_on_conflict(|| async {
        let current: Tag = records::find_or_404(&state.store, account, id).await?;
        let Some(next) = current.changed(&changes, Timestamp::now()) else {
            return Ok(current);
        };
        records::replace(&state.store, account, &current, &next, MSG_NAME_TAKEN).await?;
        Ok(next)
    })
    .await?;
    Ok(response::ok(&tag))
}

/// Refused while billings use the tag. Contact links go with it (they arrive with contacts).
async fn destroy(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let account = tenant.account_id();
    retry_on_conflict(|| async {
        let current: Tag = records::find_or_404(&state.store, account, id).await?;
        if current.billing_refs > 0 {
            return Err(ApiError::validation(MSG_IN_USE));
        }
        records::remove(&state.store, account, &current, Vec::new()).await
    })
    .await?;
    Ok(response::no_content())
}
