//! §8 request-rate limits: per origin IP (300 a minute) and per token (600 a minute), across all
//! `/v1/*`. Each counter is a fixed window of one whole minute (UTC): no sliding, and a new count
//! starts with the next minute. A request over either limit gets `429 {error}` with `Retry-After`,
//! the seconds left until that next minute.
//!
//! The counters are DynamoDB items (`UpdateItem ADD`, one per client and minute, removed by TTL),
//! so every Lambda container and every dev-server process counts the same requests. Every request
//! that reaches a route counts, refused ones included. The layer runs after authentication, as on
//! AWS where API Gateway's authorizer answers a bad token before any function runs, so 401s are
//! not counted. If DynamoDB cannot count, the request goes through (logged): the limit protects
//! the service, it is not worth an outage.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header::{AUTHORIZATION, RETRY_AFTER};
use http::{HeaderValue, StatusCode};
use lambda_http::request::RequestContext;
use serde_json::json;

use crate::auth::ApiToken;
use crate::http::response::json_response;
use crate::store::{keys, Store};

/// Requests per minute of each kind of client; `None` counts nothing for that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    pub per_ip: Option<u32>,
    pub per_token: Option<u32>,
}

impl RateLimits {
    /// §8: 300 per origin IP, 600 per token.
    pub const SPEC: RateLimits = RateLimits { per_ip: Some(300), per_token: Some(600) };
    /// Nothing counted (tests that are not about limits, benchmarks).
    pub const OFF: RateLimits = RateLimits { per_ip: None, per_token: None };

    /// `RATE_LIMIT_PER_IP` and `RATE_LIMIT_PER_TOKEN` (a whole number; `0` turns that limit off),
    /// the spec's values where unset.
    pub fn from_env() -> anyhow::Result<Self> {
        let read = |name: &str, default: Option<u32>| -> anyhow::Result<Option<u32>> {
            match std::env::var(name) {
                Err(_) => Ok(default),
                Ok(text) => match text.trim().parse::<u32>() {
                    Ok(0) => Ok(None),
                    Ok(limit) => Ok(Some(limit)),
                    Err(_) => anyhow::bail!("{name} must be a whole number of requests per minute (0: no limit)"),
                },
            }
        };
        Ok(RateLimits {
            per_ip: read("RATE_LIMIT_PER_IP", Self::SPEC.per_ip)?,
            per_token: read("RATE_LIMIT_PER_TOKEN", Self::SPEC.per_token)?,
        })
    }
}

/// "300/min per IP, 600/min per token", a limit turned off as "off".
impl std::fmt::Display for RateLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let one = |limit: Option<u32>| limit.map_or("off".to_owned(), |n| format!("{n}/min"));
        write!(f, "{} per IP, {} per token", one(self.per_ip), one(self.per_token))
    }
}

/// Now, in unix seconds: the clock the windows are read on.
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The window of a moment (unix seconds): its minute since the epoch, and the seconds from the
/// moment to the start of the next minute (1..=60), which is what `Retry-After` says.
pub fn window(unix_seconds: i64) -> (i64, u64) {
    (unix_seconds.div_euclid(60), (60 - unix_seconds.rem_euclid(60)) as u64)
}

/// The counters and their limits. Cheap to clone.
#[derive(Clone, Debug)]
pub struct RateLimiter {
    store: Store,
    limits: RateLimits,
}

/// A request over a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub limit: u32,
    /// What the limit counts, as the message names it.
    pub per: &'static str,
    pub retry_after: u64,
}

impl RateLimiter {
    pub fn new(store: Store, limits: RateLimits) -> Self {
        RateLimiter { store, limits }
    }

    /// Counts one request of `ip` and `token_digest` at `unix_seconds`; the refusal when it is over
    /// a limit (the IP's first when both are).
    pub async fn admit(&self, ip: Option<&str>, token_digest: Option<&str>, unix_seconds: i64) -> Result<(), Refusal> {
        let (minute, retry_after) = window(unix_seconds);
        let by_ip = self.count(self.limits.per_ip, ip.map(|ip| keys::ip_rate_window(ip, minute)), minute);
        let by_token =
            self.count(self.limits.per_token, token_digest.map(|d| keys::token_rate_window(d, minute)), minute);
        let (by_ip, by_token) = tokio::join!(by_ip, by_token);
        if let Some(limit) = by_ip {
            return Err(Refusal { limit, per: "IP de origem", retry_after });
        }
        if let Some(limit) = by_token {
            return Err(Refusal { limit, per: "token", retry_after });
        }
        Ok(())
    }

    /// Counts the request on one client's counter (`window`: its key); the limit when the count
    /// went over it.
    async fn count(&self, limit: Option<u32>, window: Option<String>, minute: i64) -> Option<u32> {
        let (limit, window) = (limit?, window?);
        // Kept a minute past the window's end; TTL deletion is lazy anyway, and a later minute
        // never reads this item.
        let expires_at = (minute + 2) * 60;
        match self.store.count_hit(window, keys::RATE_WINDOW_SK.into(), expires_at).await {
            Ok(count) => (count > i64::from(limit)).then_some(limit),
            Err(error) => {
                tracing::warn!(error = ?error, "could not count the request; let through");
                None
            }
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let message = format!(
            "Limite de requisições excedido: {} por minuto por {}; tente novamente em {} s",
            self.limit, self.per, self.retry_after
        );
        let mut response = json_response(StatusCode::TOO_MANY_REQUESTS, &json!({ "error": message }));
        response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(self.retry_after));
        response
    }
}

/// Middleware of every route: counts the request and refuses it over a limit. A read (`GET`,
/// `HEAD`) is counted while its handler runs, so the count costs it no time; its answer is
/// replaced by the `429` when it was over the limit (a read changes nothing, so nothing is lost).
/// A write is counted first, and not run when over the limit.
pub async fn rate_limit(State(limiter): State<RateLimiter>, request: Request, next: Next) -> Response {
    let ip = client_ip(&request);
    let digest = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(ApiToken::from_authorization_header)
        .map(|token| token.digest());
    let read = matches!(*request.method(), http::Method::GET | http::Method::HEAD);
    let admitted = limiter.admit(ip.as_deref(), digest.as_deref(), unix_now());
    let verdict = if read {
        let (verdict, response) = tokio::join!(admitted, next.run(request));
        verdict.map(|()| response)
    } else {
        match admitted.await {
            Ok(()) => Ok(next.run(request).await),
            Err(refusal) => Err(refusal),
        }
    };
    verdict.unwrap_or_else(|refusal| {
        tracing::info!(limit = refusal.limit, per = refusal.per, "request over the rate limit");
        refusal.into_response()
    })
}

/// The origin IP: on Lambda, what API Gateway saw (`requestContext.identity.sourceIp`); locally,
/// the peer of the connection. Forwarding headers are not trusted: a client could write them.
fn client_ip(request: &Request) -> Option<String> {
    if let Some(RequestContext::ApiGatewayV1(gateway)) = request.extensions().get::<RequestContext>() {
        return gateway.identity.source_ip.clone();
    }
    request.extensions().get::<ConnectInfo<SocketAddr>>().map(|peer| peer.0.ip().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_whole_minutes_and_retry_after_reaches_the_next() {
        assert_eq!(window(0), (0, 60));
        assert_eq!(window(59), (0, 1));
        assert_eq!(window(60), (1, 60));
        // 2026-11-22T12:34:56Z
        let t = 1_795_350_896;
        assert_eq!(t % 60, 56);
        assert_eq!(window(t), (t / 60, 4));
    }

    #[test]
    fn limits_from_the_environment() {
        // One test touches these variables, so no other test sees them change.
        std::env::remove_var("RATE_LIMIT_PER_IP");
        std::env::remove_var("RATE_LIMIT_PER_TOKEN");
        assert_eq!(RateLimits::from_env().unwrap(), RateLimits::SPEC);
        assert_eq!(RateLimits::SPEC, RateLimits { per_ip: Some(300), per_token: Some(600) });
        std::env::set_var("RATE_LIMIT_PER_IP", "0");
        std::env::set_var("RATE_LIMIT_PER_TOKEN", " 50 ");
        assert_eq!(RateLimits::from_env().unwrap(), RateLimits { per_ip: None, per_token: Some(50) });
        assert_eq!(RateLimits::from_env().unwrap().to_string(), "off per IP, 50/min per token");
        std::env::set_var("RATE_LIMIT_PER_TOKEN", "many");
        assert!(RateLimits::from_env().is_err());
        std::env::remove_var("RATE_LIMIT_PER_IP");
        std::env::remove_var("RATE_LIMIT_PER_TOKEN");
    }

    #[tokio::test]
    async fn a_refusal_is_the_spec_shape_with_retry_after() {
        use http_body_util::BodyExt;
        let response = Refusal { limit: 600, per: "token", retry_after: 17 }.into_response();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers()[RETRY_AFTER], "17");
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            body,
            json!({"error": "Limite de requisições excedido: 600 por minuto por token; tente novamente em 17 s"})
        );
    }
}
