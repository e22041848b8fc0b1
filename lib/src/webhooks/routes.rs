//! `/v1/webhooks`, `/v1/webhook_deliveries` and `/v1/events`: the account's receivers, its
//! delivery log and its events, through the same workflows as the ops CLI (`infra/ops webhook …`).
//! Each handler reads like the spec's paragraph: parse → the workflow → represent.

use axum::extract::{FromRef, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::deliveries::{self, Listing as DeliveryListing};
use super::dispatcher;
use super::input::{moment, WebhookInput};
use super::receivers;
use super::secrets::{SecretBox, SigningSecret};
use super::view::{WebhookDeliveryView, WebhookView};
use crate::events::{self, Event, Listing as EventListing};
use crate::http::idempotency::KeptInstead;
use crate::http::{response, ApiError, ApiResult, Params, Path, RequestBody, Tenant};
use crate::refusal::{Problem, Refusal};
use crate::store::Store;
use crate::values::{DeliveryStatus, WebhookId};

/// What the webhooks routes read of the application's state (`state::AppState` gives it): the
/// table, and the master key and policy of [`Settings`].
#[derive(Clone, Debug)]
pub struct Shared {
    pub store: Store,
    pub webhooks: Settings,
}

/// What the webhooks routes need besides the table: the master key that seals and opens signing
/// secrets (read at its first use), and where receivers may point (the same policy as the ops
/// CLI's and the sender's: HTTPS to public addresses; the local switch lets tests use
/// `http://127.0.0.1`).
#[derive(Clone, Debug)]
pub struct Settings {
    pub key: super::secrets::MasterKey,
    pub policy: super::Policy,
}

/// The routes, on any state that gives [`Shared`].
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Shared: FromRef<S>,
{
    Router::new()
        .route("/v1/webhooks", get(list).post(create))
        .route("/v1/webhooks/{id}", get(show).patch(update).delete(destroy))
        .route("/v1/webhooks/{id}/rotate_secret", post(rotate_secret))
        .route("/v1/webhooks/{id}/test", post(test))
        .route("/v1/webhook_deliveries", get(list_deliveries))
        .route("/v1/webhook_deliveries/{id}", get(show_delivery))
        .route("/v1/webhook_deliveries/{id}/replay", post(replay))
        .route("/v1/events", get(list_events))
        .route("/v1/events/{id}", get(show_event))
}

/// The master key that seals and opens signing secrets (read at its first use on Lambda).
async fn vault(state: &Shared) -> ApiResult<std::sync::Arc<SecretBox>> {
    Ok(state.webhooks.key.get().await?)
}

async fn list(State(state): State<Shared>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let found = receivers::list(&state.store, tenant.account_id()).await?;
    let vault = vault(&state).await?;
    let views: Vec<WebhookView> = found.iter().map(|r| WebhookView::masked(r, &vault)).collect();
    Ok(response::list("webhooks", pagination.slice(&views), pagination, views.len()))
}

async fn create(State(state): State<Shared>, tenant: Tenant, body: RequestBody) -> ApiResult<Response> {
    let input = WebhookInput::parse(body.envelope("webhook")?, true).map_err(ApiError::Validation)?;
    let vault = vault(&state).await?;
    let registration = input.registration();
    let (receiver, secret) =
        receivers::register(&state.store, &vault, tenant.account_id(), &registration, state.webhooks.policy)
            .await
            .map_err(Refusal::from)?;
    Ok(revealing(StatusCode::CREATED, &receiver, &secret))
}

/// The answer that shows a secret in full: never cached, and kept for an idempotent replay with
/// the secret masked (no secret rests in plain in the table; a client that lost it rotates it).
fn revealing(status: StatusCode, receiver: &receivers::Receiver, secret: &SigningSecret) -> Response {
    let mut answer = response::json_response(status, &WebhookView::revealed(receiver, secret));
    let masked = serde_json::to_vec(&WebhookView::masking(receiver, secret)).expect("a view serializes");
    answer.extensions_mut().insert(KeptInstead(masked.into()));
    answer.headers_mut().insert(axum::http::header::CACHE_CONTROL, axum::http::HeaderValue::from_static("no-store"));
    answer
}

async fn show(State(state): State<Shared>, tenant: Tenant, Path(id): Path<WebhookId>) -> ApiResult<Response> {
    let receiver = receivers::find(&state.store, tenant.account_id(), id).await?.ok_or(ApiError::NotFound)?;
    Ok(response::ok(&WebhookView::masked(&receiver, &*vault(&state).await?)))
}

async fn update(
    State(state): State<Shared>,
    tenant: Tenant,
    Path(id): Path<WebhookId>,
    body: RequestBody,
) -> ApiResult<Response> {
    let input = WebhookInput::parse(body.envelope("webhook")?, false).map_err(ApiError::Validation)?;
    let changes = input.changes();
    let receiver = receivers::change(&state.store, tenant.account_id(), id, &changes, state.webhooks.policy)
        .await
        .map_err(Refusal::from)?;
    Ok(response::ok(&WebhookView::masked(&receiver, &*vault(&state).await?)))
}

async fn destroy(State(state): State<Shared>, tenant: Tenant, Path(id): Path<WebhookId>) -> ApiResult<Response> {
    receivers::remove(&state.store, tenant.account_id(), id).await.map_err(Refusal::from)?;
    Ok(response::no_content())
}

async fn rotate_secret(State(state): State<Shared>, tenant: Tenant, Path(id): Path<WebhookId>) -> ApiResult<Response> {
    let vault = vault(&state).await?;
    let (receiver, secret) =
        receivers::rotate_secret(&state.store, &vault, tenant.account_id(), id).await.map_err(Refusal::from)?;
    Ok(revealing(StatusCode::OK, &receiver, &secret))
}

async fn test(State(state): State<Shared>, tenant: Tenant, Path(id): Path<WebhookId>) -> ApiResult<Response> {
    let delivery = dispatcher::ping(&state.store, tenant.account_id(), id).await?;
    Ok(response::json_response(StatusCode::ACCEPTED, &WebhookDeliveryView::of(&delivery)))
}

const MSG_BAD_CURSOR: &str = "cursor inválido (use o X-Next-Cursor da página anterior)";

/// A query parameter that must be one of a few values, or a 422 naming it.
fn invalid(name: &str, accepted: &str) -> ApiError {
    ApiError::validation(Problem::invalid(name, format!("{name} inválido (aceitos: {accepted})")))
}

async fn list_deliveries(State(state): State<Shared>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let status = match params.get("status") {
        None => None,
        Some(text) => {
            Some(DeliveryStatus::parse(text.trim()).ok_or_else(|| invalid("status", &DeliveryStatus::list()))?)
        }
    };
    let event_id = params.get("event_id").map(|id| id.trim().to_owned());
    if event_id.as_deref().is_some_and(|id| events::created_millis(id).is_none()) {
        return Err(ApiError::validation(Problem::invalid("event_id", "event_id inválido (um id de evento, evt_…)")));
    }
    let receiver = params.id::<WebhookId>("webhook_id", false)?;
    let after = params.get("cursor").map(|cursor| cursor.trim().to_owned());
    if after.as_deref().is_some_and(|cursor| deliveries::parse_id(cursor).is_none()) {
        return Err(ApiError::validation(Problem::invalid("cursor", MSG_BAD_CURSOR)));
    }
    let listing = DeliveryListing { status, event_id, receiver, after };
    let account = tenant.account_id();
    // Another account's (or no) receiver has no deliveries here: nothing to read.
    if let Some(receiver) = receiver {
        if receivers::find(&state.store, account, receiver).await?.is_none() {
            return Ok(response::cursor_list::<()>("webhook_deliveries", &[], pagination, None));
        }
    }
    let (found, next) =
        deliveries::page(&state.store, account, &listing, pagination.offset(), pagination.per_page).await?;
    let views: Vec<WebhookDeliveryView> = found.iter().map(WebhookDeliveryView::of).collect();
    let next = next.map(|cursor| params.next_page(&cursor));
    Ok(response::cursor_list("webhook_deliveries", &views, pagination, next))
}

async fn show_delivery(State(state): State<Shared>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let delivery = deliveries::find(&state.store, tenant.account_id(), &id).await?.ok_or(ApiError::NotFound)?;
    let attempts = deliveries::attempts(&state.store, &delivery).await?;
    Ok(response::ok(&WebhookDeliveryView::with_attempts(&delivery, &attempts)))
}

async fn replay(State(state): State<Shared>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let delivery = dispatcher::replay_one(&state.store, tenant.account_id(), &id).await?;
    Ok(response::json_response(StatusCode::ACCEPTED, &WebhookDeliveryView::of(&delivery)))
}

/// An event as the API shows it: the body its deliveries carry (`{id, type, created_at, data}`).
fn event_view(event: &Event) -> ApiResult<serde_json::Value> {
    Ok(event.body()?)
}

async fn list_events(State(state): State<Shared>, tenant: Tenant, params: Params) -> ApiResult<Response> {
    let pagination = params.pagination();
    let mut errors = Vec::new();
    let event_type = params.get("type").map(|kind| kind.trim().to_owned());
    if event_type.as_deref().is_some_and(|kind| !events::is_type(kind)) {
        let accepted = format!("type inválido (aceitos: {}, {})", events::TYPES.join(", "), events::PING);
        errors.push(Problem::invalid("type", accepted));
    }
    let mut bound = |name: &str, end: bool| match params.get(name) {
        None => None,
        Some(text) => moment(text, end).or_else(|| {
            let message =
                format!("{name} inválido (use AAAA-MM-DD ou data e hora ISO 8601, como 2026-11-20T09:30:00-03:00)");
            errors.push(Problem::invalid(name, message));
            None
        }),
    };
    let since = bound("start_created_at", false);
    let until = bound("end_created_at", true);
    let after = params.get("cursor").map(|cursor| cursor.trim().to_owned());
    if after.as_deref().is_some_and(|cursor| events::created_millis(cursor).is_none()) {
        errors.push(Problem::invalid("cursor", MSG_BAD_CURSOR));
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let listing = EventListing { event_type, since, until, after };
    let listed =
        events::list(&state.store, tenant.account_id(), &listing, pagination.offset(), pagination.per_page).await?;
    let views = listed.events.iter().map(event_view).collect::<ApiResult<Vec<_>>>()?;
    let next = listed.next.map(|cursor| params.next_page(&cursor));
    Ok(response::cursor_list("events", &views, pagination, next))
}

async fn show_event(State(state): State<Shared>, tenant: Tenant, Path(id): Path<String>) -> ApiResult<Response> {
    let event = events::find(&state.store, tenant.account_id(), &id).await?.ok_or(ApiError::NotFound)?;
    // Kept 30 days: the table's TTL may take a while to remove one.
    let kept_since = crate::values::Timestamp::now().0.timestamp() - events::KEPT_SECONDS;
    if event.created_at.0.timestamp() < kept_since {
        return Err(ApiError::NotFound);
    }
    Ok(response::ok(&event_view(&event)?))
}
