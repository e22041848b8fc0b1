//! The handlers every account-owned resource shares (show, create, update, delete): parse the
//! envelope → gate → rule → store → represent. A resource module only says how to parse its fields
//! and lists its own routes.

use axum::extract::{Path, State};
use axum::response::Response;
use std::future::Future;

use serde::Serialize;
use serde_json::Value;

use super::routing::parse_id;
use super::{response, ApiError, ApiResult, Fields, RequestBody};
use crate::accounts::AccountId;
use crate::app::AppState;
use crate::auth::Tenant;
use crate::store::records::{self, Editable};
use crate::store::Store;

pub trait Resource: Editable + Send + Sync + 'static {
    /// The body envelope: `tag`, `group`.
    const ENVELOPE: &'static str;

    /// Reads and validates the envelope's fields; on create the required ones must be there.
    fn parse(fields: Fields<'_>, creating: bool) -> Result<Self::Changes, Vec<String>>;

    /// The API representation of records of the account (may read related records once for all).
    fn represent(
        store: &Store,
        account: AccountId,
        records: Vec<Self>,
    ) -> impl Future<Output = ApiResult<Vec<Value>>> + Send;
}

/// The representation of records that are their own JSON.
pub fn as_json<R: Serialize>(records: &[R]) -> Vec<Value> {
    records.iter().map(|r| serde_json::to_value(r).expect("records serialize")).collect()
}

async fn one<R: Resource>(store: &Store, account: AccountId, record: R) -> ApiResult<Value> {
    Ok(R::represent(store, account, vec![record]).await?.into_iter().next().unwrap_or(Value::Null))
}

fn changes<R: Resource>(body: &RequestBody, creating: bool) -> ApiResult<R::Changes> {
    R::parse(body.envelope(R::ENVELOPE)?, creating).map_err(ApiError::Validation)
}

pub async fn show<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let record: R = records::find_or_404(&state.store, account, parse_id(&id)?).await?;
    Ok(response::ok(&one(&state.store, account, record).await?))
}

pub async fn create<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    body: RequestBody,
) -> ApiResult<Response> {
    let changes = changes::<R>(&body, true)?;
    let account = tenant.account_id();
    let record: R = records::create(&state.store, account, &changes).await?;
    Ok(response::created(&one(&state.store, account, record).await?))
}

pub async fn update<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response> {
    let id = parse_id(&id)?;
    let changes = changes::<R>(&body, false)?;
    let account = tenant.account_id();
    let record: R = records::update(&state.store, account, id, &changes).await?;
    Ok(response::ok(&one(&state.store, account, record).await?))
}

pub async fn destroy<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    records::delete::<R>(&state.store, tenant.account_id(), parse_id(&id)?).await?;
    Ok(response::no_content())
}
