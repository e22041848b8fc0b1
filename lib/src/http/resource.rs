//! The handlers every account-owned resource shares (show, create, update, delete): parse the
//! envelope → gate → rule → store → represent. A resource module only says how to parse its fields
//! and lists its own routes.

use axum::extract::{Path, State};
use axum::response::Response;
use serde::Serialize;

use super::routing::parse_id;
use super::{response, ApiError, ApiResult, Fields, RequestBody};
use crate::app::AppState;
use crate::auth::Tenant;
use crate::store::records::{self, Editable};

pub trait Resource: Editable + Serialize + Send + Sync + 'static
where
    Self::Changes: Send + Sync,
{
    /// The body envelope: `tag`, `group`.
    const ENVELOPE: &'static str;

    /// Reads and validates the envelope's fields; on create the required ones must be there.
    fn parse(fields: Fields<'_>, creating: bool) -> Result<Self::Changes, Vec<String>>;
}

fn changes<R: Resource>(body: &RequestBody, creating: bool) -> ApiResult<R::Changes>
where
    R::Changes: Send + Sync,
{
    R::parse(body.envelope(R::ENVELOPE)?, creating).map_err(ApiError::Validation)
}

pub async fn show<R: Resource>(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response>
where
    R::Changes: Send + Sync,
{
    let record: R = records::find_or_404(&state.store, tenant.account_id(), parse_id(&id)?).await?;
    Ok(response::ok(&record))
}

pub async fn create<R: Resource>(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response>
where
    R::Changes: Send + Sync,
{
    let changes = changes::<R>(&body, true)?;
    let record: R = records::create(&state.store, tenant.account_id(), changes).await?;
    Ok(response::created(&record))
}

pub async fn update<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    body: RequestBody,
) -> ApiResult<Response>
where
    R::Changes: Send + Sync,
{
    let id = parse_id(&id)?;
    let changes = changes::<R>(&body, false)?;
    let record: R = records::update(&state.store, tenant.account_id(), id, changes).await?;
    Ok(response::ok(&record))
}

pub async fn destroy<R: Resource>(State(state): State<AppState>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response>
where
    R::Changes: Send + Sync,
{
    records::delete::<R>(&state.store, tenant.account_id(), parse_id(&id)?, Vec::new()).await?;
    Ok(response::no_content())
}
