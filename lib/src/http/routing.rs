//! What every router gets: JSON 404 for unknown routes and methods, a panic answered as a 500 in
//! the spec's shape (`crate::panics`), and a request log line with the request id (from API Gateway
//! on Lambda, generated locally), returned as `X-Request-Id`.

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

/// Adds the 404 fallbacks, the panic catcher and the request log to a router whose state is
/// already supplied. The log is outside the catcher, so a caught panic is logged as a 500 with the
/// request's id.
pub fn finish(router: Router) -> Router {
    router
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .layer(axum::middleware::from_fn(catch_panic))
        .layer(axum::middleware::from_fn(log_request))
}

/// A handler that panics answers this request with the spec's 500; the next request is served as
/// usual. The panic's message is logged, never sent.
async fn catch_panic(request: Request, next: Next) -> Response {
    match crate::panics::caught(next.run(request)).await {
        Ok(response) => response,
        Err(panic) => ApiError::Internal(panic).into_response(),
    }
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

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::routing::get;
    use tower::ServiceExt as _;

    use super::*;

    async fn call(app: &Router, path: &str) -> (u16, serde_json::Value) {
        let request = http::Request::get(path).body(Body::empty()).unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_500_and_the_next_request_is_served() {
        async fn boom() -> &'static str {
            panic!("secret detail")
        }
        async fn fine() -> axum::Json<serde_json::Value> {
            axum::Json(serde_json::json!({"ok": true}))
        }
        let app = finish(Router::new().route("/boom", get(boom)).route("/fine", get(fine)));
        let (status, body) = call(&app, "/boom").await;
        assert_eq!(status, 500);
        assert_eq!(body, serde_json::json!({"status": 500, "message": super::super::error::MSG_INTERNAL}));
        let (status, body) = call(&app, "/fine").await;
        assert_eq!((status, body), (200, serde_json::json!({"ok": true})));
    }
}
