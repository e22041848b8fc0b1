//! The handlers every edited resource shares (show, create, update, delete): parse the envelope →
//! gate → workflow → represent. A resource only says how to parse its fields, how it is shown and
//! what deleting it takes with it, and lists its own routes.

use std::future::Future;

use axum::extract::State;
use axum::response::Response;
use serde::Serialize;

use super::Editable;
use crate::http::Tenant;
use crate::http::{response, ApiError, ApiResult, Fields, Path, RequestBody};
use crate::refusal::Problem;
use crate::state::AppState;
use crate::store::Store;
use crate::values::AccountId;

pub trait Resource: Editable + 'static {
    /// The body envelope: `tag`, `group`, `contact`.
    const ENVELOPE: &'static str;
    /// What the API shows of one record.
    type View: Serialize + Send;

    /// Reads and validates the envelope's fields; on create the required ones must be there.
    fn parse(fields: Fields<'_>, creating: bool) -> Result<Self::Changes, Vec<Problem>>;

    /// The API representation of records of the account (may read related records once for all).
    fn represent(
        store: &Store,
        account: AccountId,
        records: Vec<Self>,
    ) -> impl Future<Output = ApiResult<Vec<Self::View>>> + Send;

    /// Deletes the record and what goes with it.
    fn delete(state: &AppState, account: AccountId, id: Self::Id) -> impl Future<Output = ApiResult<()>> + Send;
}

async fn one<R: Resource>(store: &Store, account: AccountId, record: R) -> ApiResult<R::View> {
    let mut views = R::represent(store, account, vec![record]).await?;
    views.pop().ok_or_else(|| anyhow::anyhow!("a record without its representation").into())
}

fn changes<R: Resource>(body: &RequestBody, creating: bool) -> ApiResult<R::Changes> {
    R::parse(body.envelope(R::ENVELOPE)?, creating).map_err(ApiError::Validation)
}

pub async fn show<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<R::Id>,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let record: R = super::find_or_404(&state.store, account, id).await?;
    Ok(response::ok(&one(&state.store, account, record).await?))
}

pub async fn create<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    body: RequestBody,
) -> ApiResult<Response> {
    let changes = changes::<R>(&body, true)?;
    let account = tenant.account_id();
    let record: R = super::create(&state.store, account, &changes).await?;
    Ok(response::created(&one(&state.store, account, record).await?))
}

pub async fn update<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<R::Id>,
    body: RequestBody,
) -> ApiResult<Response> {
    let changes = changes::<R>(&body, false)?;
    let account = tenant.account_id();
    let record: R = super::update(&state.store, account, id, &changes).await?;
    Ok(response::ok(&one(&state.store, account, record).await?))
}

pub async fn destroy<R: Resource>(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<R::Id>,
) -> ApiResult<Response> {
    R::delete(&state, tenant.account_id(), id).await?;
    Ok(response::no_content())
}
