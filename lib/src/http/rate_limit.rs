//! §8 request-rate limits: per origin IP (300 a minute) and per token (600 a minute), across all
//! `/v1/*`. Each counter is a fixed window of one whole minute (UTC): no sliding, and a new count
//! starts with the next minute. A request over either limit gets `429 {error}` with `Retry-After`,
//! the seconds left until that next minute.
//!
//! Every answer also tells the client where it stands, in the IETF fields
//! (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names the quotas
//! (`"ip";q=300;w=60, "token";q=600;w=60`) and `RateLimit` the tighter window's remaining requests
//! and seconds to its reset (`"token";r=598;t=17`) — the limit, remaining and reset a client needs
//! to pace itself before it meets a 429.
//!
//! The counters are DynamoDB items (`UpdateItem ADD`, one per client and minute, removed by TTL),
//! so every Lambda container and every dev-server process counts the same requests. Every `/v1`
//! request counts on its IP's window, refused ones included: a request with a valid token in this
//! layer (after authentication, as on AWS where the functions run after API Gateway's authorizer),
//! one the authorizer refuses in the authorizer ([`RateLimiter::refuse_unauthenticated`]: a 401,
//! or a 429 once the IP is over its limit). If DynamoDB cannot count, the request goes through
//! (logged) without a `RateLimit` field: the limit protects the service, it is not worth an outage.
//!
//! A refused request costs its counter and nothing more: each process remembers, for the rest of
//! the minute, the highest count it saw on each window. A request of a client seen over a limit
//! counts on that window alone and is refused without running its route. A read is counted while
//! its route runs (the count costs it no time) until its client was seen near a limit (within a
//! tenth of it, at least 10 requests); from then on it is counted first, so the read that crosses
//! the limit runs nothing. (Where other processes count on the same window, one may cross it
//! unseen: that read's route is dropped, its reads cancelled, as soon as the count says no.)

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header::{AUTHORIZATION, RETRY_AFTER};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
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

    /// Payer pages a minute per origin IP when unset.
    pub const PAYER_PAGES_PER_IP: u32 = 60;

    /// `PAYER_RATE_LIMIT_PER_IP` (a whole number; `0` turns it off; unreadable or unset: 60): the
    /// payer pages' limit, counted apart from the API's.
    pub fn payer_pages_from_env() -> Option<u32> {
        let limit = std::env::var("PAYER_RATE_LIMIT_PER_IP")
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
            .unwrap_or(Self::PAYER_PAGES_PER_IP);
        (limit > 0).then_some(limit)
    }

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
    seen: Arc<Mutex<Seen>>,
}

/// The highest count this process saw on each window in the current minute (by key).
#[derive(Debug, Default)]
struct Seen {
    minute: i64,
    counts: HashMap<String, i64>,
}

impl Seen {
    /// This minute's counts (a new minute forgets the last one's).
    fn of(&mut self, minute: i64) -> &mut HashMap<String, i64> {
        if self.minute != minute {
            *self = Seen { minute, counts: HashMap::new() };
        }
        &mut self.counts
    }

    fn count(&mut self, minute: i64, window: &str) -> i64 {
        self.of(minute).get(window).copied().unwrap_or_default()
    }
}

/// How close to its limit a window must have been seen for a read to be counted before it runs: a
/// tenth of the limit, at least 10 requests (other processes count on the same window meanwhile).
fn near(limit: u32) -> i64 {
    i64::from(limit) - i64::from((limit / 10).max(10))
}

/// The windows one request counts on: its minute, the seconds to the next, and the IP's and the
/// token's window key with its limit (none where that limit is off or the request has no such key).
#[derive(Clone, Debug)]
struct Windows {
    minute: i64,
    reset: u64,
    ip: Option<(String, u32)>,
    token: Option<(String, u32)>,
}

/// A request over a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub limit: u32,
    /// What the limit counts, as the message names it.
    pub per: &'static str,
    pub retry_after: u64,
}

/// What the per-IP limit counts, as its refusal names it.
const PER_IP: &str = "IP de origem";

/// Requests a minute one counter item takes before a limit is counted in several (30,000 a minute:
/// 500 writes a second).
const SHARD_REQUESTS: i64 = 30_000;

/// `RateLimit-Policy`: the quotas every answer names.
static RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
/// `RateLimit`: the tighter window's remaining requests and seconds to its reset.
static RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");

/// One request's standing in its windows: the counts after it (`None`: that limit is off, the
/// client has no such key, or the count failed) and the seconds to the windows' reset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    limits: RateLimits,
    by_ip: Option<i64>,
    by_token: Option<i64>,
    reset: u64,
}

impl Usage {
    /// The refusal when a count went over its limit (the IP's first when both did).
    pub fn refusal(&self) -> Option<Refusal> {
        let over = |count: Option<i64>, limit: Option<u32>, per| {
            let limit = limit?;
            (count? > i64::from(limit)).then_some(Refusal { limit, per, retry_after: self.reset })
        };
        over(self.by_ip, self.limits.per_ip, PER_IP).or_else(|| over(self.by_token, self.limits.per_token, "token"))
    }

    /// The counted window with the fewest requests left: its policy name and what is left.
    fn tighter(&self) -> Option<(&'static str, i64)> {
        let left = |count: Option<i64>, limit: Option<u32>| Some((i64::from(limit?) - count?).max(0));
        let ip = left(self.by_ip, self.limits.per_ip).map(|r| ("ip", r));
        let token = left(self.by_token, self.limits.per_token).map(|r| ("token", r));
        match (ip, token) {
            (Some(ip), Some(token)) => Some(if ip.1 < token.1 { ip } else { token }),
            (one, other) => one.or(other),
        }
    }

    /// Adds `RateLimit-Policy` (the limits turned on) and `RateLimit` (when a window was counted).
    fn write_headers(&self, headers: &mut HeaderMap) {
        let policies: Vec<String> = [("ip", self.limits.per_ip), ("token", self.limits.per_token)]
            .into_iter()
            .filter_map(|(name, limit)| limit.map(|q| format!("\"{name}\";q={q};w=60")))
            .collect();
        if policies.is_empty() {
            return;
        }
        if let Ok(value) = HeaderValue::from_str(&policies.join(", ")) {
            headers.insert(RATELIMIT_POLICY.clone(), value);
        }
        if let Some((name, remaining)) = self.tighter() {
            if let Ok(value) = HeaderValue::from_str(&format!("\"{name}\";r={remaining};t={}", self.reset)) {
                headers.insert(RATELIMIT.clone(), value);
            }
        }
    }
}

impl RateLimiter {
    pub fn new(store: Store, limits: RateLimits) -> Self {
        RateLimiter { store, limits, seen: Arc::default() }
    }

    /// The windows a request of `ip` and `token_digest` at `unix_seconds` counts on.
    fn windows(&self, ip: Option<&str>, token_digest: Option<&str>, unix_seconds: i64) -> Windows {
        let (minute, reset) = window(unix_seconds);
        Windows {
            minute,
            reset,
            ip: ip.zip(self.limits.per_ip).map(|(ip, limit)| (keys::auth::ip_rate_window(ip, minute), limit)),
            token: token_digest
                .zip(self.limits.per_token)
                .map(|(d, limit)| (keys::auth::token_rate_window(d, minute), limit)),
        }
    }

    /// Of the IP's and the token's window, whether this process saw each at `threshold(limit)`
    /// requests or more this minute.
    fn seen_at(&self, windows: &Windows, threshold: impl Fn(u32) -> i64) -> (bool, bool) {
        let mut seen = self.seen.lock().expect("seen lock");
        let mut at = |window: &Option<(String, u32)>| {
            window.as_ref().is_some_and(|(key, limit)| seen.count(windows.minute, key) >= threshold(*limit))
        };
        (at(&windows.ip), at(&windows.token))
    }

    /// Counts one request of `ip` and `token_digest` at `unix_seconds`: where it stands in both
    /// windows (over a limit when [`Usage::refusal`] says so).
    pub async fn admit(&self, ip: Option<&str>, token_digest: Option<&str>, unix_seconds: i64) -> Usage {
        self.count_on(self.windows(ip, token_digest, unix_seconds)).await
    }

    /// Counts one request on `windows`. A client this process already saw over a limit this minute
    /// is counted on that window only.
    async fn count_on(&self, windows: Windows) -> Usage {
        let Windows { minute, reset, ip, token } = windows.clone();
        let (ip, token) = match self.seen_at(&windows, |limit| i64::from(limit) + 1) {
            (true, _) => (ip, None),
            (false, true) => (None, token),
            (false, false) => (ip, token),
        };
        let (by_ip, by_token) = tokio::join!(self.count(ip.clone(), minute), self.count(token.clone(), minute));
        {
            let mut seen = self.seen.lock().expect("seen lock");
            let counts = seen.of(minute);
            for (window, count) in [(ip, by_ip), (token, by_token)] {
                if let (Some((key, _)), Some(count)) = (window, count) {
                    let highest = counts.entry(key).or_default();
                    *highest = (*highest).max(count);
                }
            }
        }
        Usage { limits: self.limits, by_ip, by_token, reset }
    }

    /// A request the authorizer refused (no token, an unknown or revoked one), counted on its
    /// IP's window: the 429 once the IP is over its limit, `None` (the 401) until then. One write,
    /// nothing else.
    pub async fn refuse_unauthenticated(&self, ip: Option<&str>, unix_seconds: i64) -> Option<Refusal> {
        self.admit(ip, None, unix_seconds).await.refusal()
    }

    /// Counts the request on one client's counter (`window`: its key); the count including it.
    /// A limit above [`SHARD_REQUESTS`] a minute is counted in several items, the request in one
    /// picked at random, and the count is that item's times their number: no item takes more than
    /// about 500 writes a second, where one item per client would cap a client at DynamoDB's 1,000
    /// writes a second on one partition (and throttle before).
    async fn count(&self, window: Option<(String, u32)>, minute: i64) -> Option<i64> {
        let (window, limit) = window?;
        let shards = i64::from(limit).div_euclid(SHARD_REQUESTS) + 1;
        let window = match shards {
            1 => window,
            _ => keys::auth::rate_window_shard(&window, rand::random::<u32>() as i64 % shards),
        };
        // Kept a minute past the window's end; TTL deletion is lazy anyway, and a later minute
        // never reads this item.
        let expires_at = (minute + 2) * 60;
        match self.store.count_hit(window, keys::auth::RATE_WINDOW_SK.into(), expires_at).await {
            Ok(count) => Some(count * shards),
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

/// Middleware of every route: counts the request, refuses it over a limit, and tells the client
/// its standing (`RateLimit-Policy`, `RateLimit`) on every answer. The request of a client far
/// from its limits is counted while its handler runs, so the count costs it no time: its writes
/// wait behind the count's gate (`store::gate`) and the handler is dropped where it stands if the
/// count refuses it, before anything was written. A request of a client this process saw near or
/// over a limit this minute is counted first, and not run when over the limit.
pub async fn rate_limit(State(limiter): State<RateLimiter>, request: Request, next: Next) -> Response {
    let ip = client_ip(&request);
    let digest = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(ApiToken::from_authorization_header)
        .map(|token| token.digest());
    let windows = limiter.windows(ip.as_deref(), digest.as_deref(), unix_now());
    // A client seen near a limit is counted first, so that a refused request runs nothing.
    let near_a_limit = limiter.seen_at(&windows, near) != (false, false);
    let admitted = limiter.count_on(windows);
    let (usage, response) = if near_a_limit {
        let usage = admitted.await;
        let response = match usage.refusal() {
            None => Some(next.run(request).await),
            Some(_) => None,
        };
        (usage, response)
    } else {
        // The count and the route at once, the route's writes behind the count; a refusal drops
        // the route where it stands (at the gate, if it got to a write).
        let gate = crate::store::gate::Keeper::new();
        let route = gate.behind(next.run(request));
        tokio::pin!(admitted, route);
        tokio::select! {
            biased;
            usage = &mut admitted => {
                gate.decide(usage.refusal().is_none());
                let response = match usage.refusal() {
                    None => Some(route.await),
                    Some(_) => None,
                };
                (usage, response)
            }
            response = &mut route => (admitted.await, Some(response)),
        }
    };
    let mut response = match (usage.refusal(), response) {
        (None, Some(response)) => response,
        (refusal, _) => {
            let refusal = refusal.expect("a request is not run only when refused");
            tracing::info!(limit = refusal.limit, per = refusal.per, "request over the rate limit");
            refusal.into_response()
        }
    };
    usage.write_headers(response.headers_mut());
    response
}

/// The origin IP: on Lambda, what API Gateway saw (`requestContext.identity.sourceIp`); locally,
/// the peer of the connection. Forwarding headers are not trusted: a client could write them.
pub fn client_ip(request: &Request) -> Option<String> {
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

    #[test]
    fn a_client_near_its_limit_is_counted_first() {
        assert_eq!(near(300), 270);
        assert_eq!(near(600), 540);
        // A small limit is near from the start.
        assert_eq!(near(2), -8);
        let mut seen = Seen::default();
        seen.of(7).insert("w".into(), 280);
        assert_eq!(seen.count(7, "w"), 280);
        // A new minute forgets what the last one saw.
        assert_eq!(seen.count(8, "w"), 0);
    }

    fn usage(limits: RateLimits, by_ip: Option<i64>, by_token: Option<i64>) -> Usage {
        Usage { limits, by_ip, by_token, reset: 17 }
    }

    fn headers_of(usage: &Usage) -> (Option<String>, Option<String>) {
        let mut headers = HeaderMap::new();
        usage.write_headers(&mut headers);
        let text = |name: &HeaderName| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
        (text(&RATELIMIT_POLICY), text(&RATELIMIT))
    }

    #[test]
    fn the_headers_name_both_quotas_and_the_tighter_window() {
        let policy = Some(r#""ip";q=300;w=60, "token";q=600;w=60"#.to_owned());
        // 298 left of the token's 600 but 10 of the IP's 300: the IP's window is the tighter one.
        let headers = headers_of(&usage(RateLimits::SPEC, Some(290), Some(302)));
        assert_eq!(headers, (policy.clone(), Some(r#""ip";r=10;t=17"#.to_owned())));
        let headers = headers_of(&usage(RateLimits::SPEC, Some(2), Some(598)));
        assert_eq!(headers, (policy.clone(), Some(r#""token";r=2;t=17"#.to_owned())));
        // Over the limit: nothing left, never a negative count.
        let over = usage(RateLimits::SPEC, Some(301), Some(5));
        assert_eq!(headers_of(&over).1.as_deref(), Some(r#""ip";r=0;t=17"#));
        assert_eq!(over.refusal(), Some(Refusal { limit: 300, per: "IP de origem", retry_after: 17 }));
        // A count that failed leaves the window out; none counted, no `RateLimit` at all.
        assert_eq!(headers_of(&usage(RateLimits::SPEC, None, Some(1))).1.as_deref(), Some(r#""token";r=599;t=17"#));
        assert_eq!(headers_of(&usage(RateLimits::SPEC, None, None)), (policy, None));
    }

    #[test]
    fn limits_turned_off_are_not_named_and_never_refuse() {
        let token_only = RateLimits { per_ip: None, per_token: Some(50) };
        let headers = headers_of(&usage(token_only, None, Some(51)));
        assert_eq!(headers, (Some(r#""token";q=50;w=60"#.to_owned()), Some(r#""token";r=0;t=17"#.to_owned())));
        assert_eq!(usage(token_only, None, Some(51)).refusal().map(|r| r.per), Some("token"));
        assert_eq!(headers_of(&usage(RateLimits::OFF, None, None)), (None, None));
        assert_eq!(usage(RateLimits::OFF, None, None).refusal(), None);
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
