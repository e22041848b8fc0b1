//! `/v1/billings` (§4.2): the routes and their thin handlers; the rules live in `service`.

use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::input::{cancellation_reason, Draft};
use super::model::Billing;
use super::service;
use super::view::{BillingListView, BillingView, BulkAccepted, Embedded, Related};
use crate::http::Tenant;
use crate::http::{response, ApiError, ApiResult, Params, Path, RequestBody};
use crate::state::AppState;
use crate::values::{today, BillingId, IssueType};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/billings", get(list).post(create))
        .route("/v1/billings/{id}", get(show).patch(update).delete(destroy))
        .route("/v1/billings/{id}/cancel", post(cancel))
}

/// `200` with the single representation of `billing`.
fn single((billing, embedded): (Billing, Embedded)) -> ApiResult<Response> {
    Ok(response::ok(&BillingView::new(&billing, &embedded.related(), today())))
}

async fn show(State(state): State<AppState>, tenant: Tenant, Path(id): Path<BillingId>) -> ApiResult<Response> {
    single(service::shown(&state.store, tenant.account_id(), id).await?)
}

/// `201` with the billing, or for a bulk billing `202` once its expansion is recorded.
async fn create(State(state): State<AppState>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let account = tenant.account_id();
    let draft = Draft::parse(body.envelope("billing")?).map_err(ApiError::Validation)?;
    let draft = service::apply_modules(draft, tenant.0.health_module)?;
    let store = &state.store;
    if draft.issue_type == IssueType::Bulk {
        let billing = body.0.get("billing").cloned().unwrap_or_default();
        let contacts_count = super::bulk::accept(store, account, &draft, billing).await?;
        return Ok(response::json_response(http::StatusCode::ACCEPTED, &BulkAccepted::new(contacts_count)));
    }
    let (billing, embedded) = service::create(store, account, &draft).await?;
    Ok(response::created(&BillingView::new(&billing, &embedded.related(), today())))
}

async fn update(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<BillingId>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let sent = body.envelope("billing")?;
    single(service::update(&state.store, account, tenant.0.health_module, id, sent).await?)
}

async fn cancel(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<BillingId>,
    body: RequestBody,
) -> ApiResult<Response> {
    let account = tenant.account_id();
    let reason = cancellation_reason(body.envelope("billing")?);
    single(service::cancel_with_instalments(&state.store, account, id, reason).await?)
}

async fn destroy(State(state): State<AppState>, tenant: Tenant, Path(id): Path<BillingId>) -> ApiResult<Response> {
    service::delete(&state.store, tenant.account_id(), id).await?;
    Ok(response::no_content())
}

/// The list representation, with each billing's contact and tag (two batch reads at once for the
/// page).
async fn list(State(state): State<AppState>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let account = tenant.account_id();
    let today = today();
    let query = super::list::BillingQuery::read(|name| params.get(name), params.pagination().window());
    let listed = super::list::list(&state.store, account, &query, today).await?;
    let (contacts, tags) = service::related_to_page(&state.store, account, &listed.records).await?;

    let views: Vec<_> = listed
        .records
        .iter()
        .map(|b| {
            let related = Related {
                contact: b.contact_id.and_then(|id| contacts.get(&id)),
                tag: b.tag_id.and_then(|id| tags.get(&id)),
                billets: &[],
                reminders: &[],
            };
            BillingListView::new(b, &related, today)
        })
        .collect();
    let answer = response::list("billings", &views, params.pagination(), listed.total);
    Ok(response::partial_search(answer, listed.partial))
}
