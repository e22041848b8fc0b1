//! The functions API Gateway invokes: the endpoint groups of `/v1` and the REQUEST authorizer in
//! front of them, the payer's pages, the PSP's Pix webhook and the card channel's writes.

use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use axum::Router;
use billing_api::app::AppState;
use billing_api::http::authentication::api_gateway_context;
use billing_api::http::authorizer::AuthorizerError;
use billing_api::http::idempotency::idempotency;
use billing_api::http::rate_limit::{rate_limit, RateLimits};
use billing_api::http::routing::finish;
use billing_api::store::Store;
use billing_api::webhooks::secrets::MasterKey;
use billing_api::webhooks::Policy;
use lambda_runtime::{service_fn, Diagnostic, LambdaEvent};

/// An endpoint group as its Lambda serves it: the account context comes from the API Gateway
/// authorizer, then the request is counted against the rate limits, then a keyed `POST` claims its
/// idempotency key; unknown routes are JSON 404s.
pub fn http_app(routes: Router<AppState>, state: AppState) -> Router {
    let routes = routes
        .route_layer(axum::middleware::from_fn_with_state(state.store.clone(), idempotency))
        .route_layer(axum::middleware::from_fn_with_state(state.rate_limiter(), rate_limit))
        .route_layer(axum::middleware::from_fn(api_gateway_context));
    finish(routes.with_state(state))
}

/// Runs an HTTP function: the SDK client is built once per container, outside the handler.
pub async fn run_http(routes: fn() -> Router<AppState>) -> Result<(), lambda_http::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    // The webhook master key is read only by a request that needs it (the webhooks routes).
    let webhooks = billing_api::state::Webhooks { key: MasterKey::lazy(&config), policy: Policy::from_env() };
    let state = AppState::new(store).with_rate_limits(RateLimits::from_env()?).with_webhooks(webhooks);
    lambda_http::run(http_app(routes(), state)).await
}

/// The routes of the billings function: `/v1/billings`, `/v1/schedules` (beyond the spec), the
/// pay-off (the manual channel's), the account's operations on a card payment (beyond the spec:
/// capture, release, refund) and its payments ledger (beyond the spec: `/v1/payments`, refunds,
/// `/v1/statements`).
pub fn billing_routes() -> Router<AppState> {
    billing_api::billings::router()
        .merge(billing_api::schedules::routes::router())
        .merge(billing_api::carnes::routes::router())
        .merge(billing_api::payments::manual::routes())
        .merge(billing_api::payments::card::routes::api())
        .merge(billing_api::payments::routes::router())
        .merge(billing_api::exports::routes::router())
}

/// The payer's pages as their Lambda serves them: public (no authorizer context, no idempotency),
/// with their own per-IP limit (`billing_api::payer_page`); unknown routes are 404s.
pub fn payer_app(state: AppState) -> Router {
    finish(billing_api::payer_page::app(state))
}

/// Runs the payer's pages.
pub async fn run_payer_page() -> Result<(), lambda_http::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let state = AppState::new(Store::from_config(&config)).with_rate_limits(RateLimits::from_env()?);
    lambda_http::run(payer_app(state)).await
}

/// Runs the REQUEST authorizer.
pub async fn run_authorizer() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let store = Store::from_env().await;
    let limiter = billing_api::http::rate_limit::RateLimiter::new(
        store.clone(),
        billing_api::http::rate_limit::RateLimits::from_env()?,
    );
    let (store, limiter) = (&store, &limiter);
    lambda_runtime::run(service_fn(
        move |event: LambdaEvent<ApiGatewayCustomAuthorizerRequestTypeRequest>| async move {
            billing_api::http::authorizer::authorize(store, limiter, event.payload).await.map_err(diagnostic)
        },
    ))
    .await
}

/// API Gateway answers 401 only when the authorizer fails with the message "Unauthorized".
pub fn diagnostic(error: AuthorizerError) -> Diagnostic {
    let error_type = match error {
        AuthorizerError::Unauthorized => "Unauthorized",
        AuthorizerError::Failure(_) => "AuthorizerFailure",
    };
    Diagnostic { error_type: error_type.to_owned(), error_message: error.to_string() }
}

/// The PSP's Pix webhook as its Lambda serves it, behind its own custom domain with mutual TLS
/// (`PixWebhookDomain`): no authorizer (the domain's truststore admits only the PSP's
/// certificates, and each Pix is read back from the PSP before it is applied); unknown routes are
/// JSON 404s.
pub fn pix_webhook_app(state: AppState) -> Router {
    finish(billing_api::payments::pix::routes::routes().with_state(state))
}

/// Runs the Pix webhook.
pub async fn run_pix_webhook() -> Result<(), lambda_http::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    lambda_http::run(pix_webhook_app(AppState::new(Store::from_config(&config)))).await
}

/// The routes of the webhooks function: the account's receivers, deliveries and events, and its
/// reminder schedule (`/v1/reminder_schedule`): what the account tells its payers and systems.
pub fn notification_routes() -> Router<AppState> {
    billing_api::webhooks::router().merge(billing_api::reminders::router())
}

/// What writes of the card channel, on the payer API: the gateways' webhooks (public, outside
/// `/v1`; each request proves itself by its signature) and the card checkout's posts of the payer
/// pages (the day's intent, the payer's confirmation), which the payer page's routes serve with
/// their per-IP limit; API Gateway sends this function those routes alone, the payer page's
/// function (which only reads) the others. Unknown routes are 404s.
pub fn gateway_app(state: AppState) -> Router {
    let webhooks = billing_api::payments::card::routes::webhooks(state.clone());
    finish(billing_api::payer_page::app(state).merge(webhooks))
}

/// Runs the card channel's writes.
pub async fn run_gateway() -> Result<(), lambda_http::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let state = AppState::new(Store::from_config(&config)).with_rate_limits(RateLimits::from_env()?);
    lambda_http::run(gateway_app(state)).await
}
