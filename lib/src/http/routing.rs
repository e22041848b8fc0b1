//! What every router gets: JSON 404 for unknown routes and methods, and a request log line with
//! the request id (from API Gateway on Lambda, generated locally), returned as `X-Request-Id`.

use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use http::HeaderValue;
use lambda_http::request::RequestContext;
use tracing::Instrument;

use super::ApiError;

/// Unknown routes, and known paths with a method they do not have, are 404 like Rails routing
/// errors (and like API Gateway's unmatched routes, mapped to 404 in template.yaml).
pub async fn not_found() -> Response {
    ApiError::RouteNotFound.into_response()
}

/// Adds the 404 fallbacks and the request log to a router whose state is already supplied.
pub fn finish(router: Router) -> Router {
    router.fallback(not_found).method_not_allowed_fallback(not_found).layer(axum::middleware::from_fn(log_request))
}

async fn log_request(request: Request, next: Next) -> Response {
    let request_id = match request.extensions().get::<RequestContext>() {
        Some(RequestContext::ApiGatewayV1(gateway)) => gateway.request_id.clone(),
        _ => None,
    }
    .unwrap_or_else(|| format!("{:032x}", rand::random::<u128>()));
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        method = %request.method(),
        path = %request.uri().path(),
        account_id = tracing::field::Empty,
    );
    let started = Instant::now();
    let mut response = next.run(request).instrument(span.clone()).await;
    span.in_scope(|| {
        tracing::info!(
            status = response.status().as_u16(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "handled"
        );
    });
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}
