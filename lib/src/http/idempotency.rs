//! Idempotency keys on every `POST` (beyond the spec: the convention integrators know from Stripe
//! and the IETF draft `Idempotency-Key` header). A client that timed out can send the same request
//! again with the same key and be sure nothing is created twice.
//!
//! - The key (`Idempotency-Key`, 1–255 visible ASCII characters) is scoped to the account and kept
//!   24 hours. A request without it behaves as if this module did not exist.
//! - The first request with a key claims it with a conditional put (one item per account and key,
//!   `A#<account>#IDEM#<sha-256 of the key>`) and runs; its answer (status, body,
//!   `Content-Type`, `Location`) is stored on the claim when it is done.
//! - The same key with the same request (method, path and query, `Content-Type`, body bytes)
//!   replays that answer with `Idempotent-Replayed: true`; with another request it is `409`
//!   `idempotency_key_reused`; while the first is still running, `409` `idempotency_key_in_use`.
//!   The conditional put decides between concurrent requests: exactly one runs.
//! - An answer that a retry may change is not kept, and the key is released for the retry: `5xx`,
//!   `409` (contention that outlasted the retries), `403` (the account's gate, which an operator
//!   may open) and `429` (never reaches here: the rate limit runs first). Every other answer is kept,
//!   `4xx` included, as the request asked for it.
//! - A claim whose request died without answering (a Lambda killed at its timeout) is taken over by
//!   the next request with the key once its lease ([`LEASE_SECONDS`], longer than any function's
//!   timeout and API Gateway's 29 s) has run out. The writes of every route are one transaction, so
//!   such a request saved everything or nothing; only the first case, a request killed between its
//!   commit and the storing of its answer, can run twice — the window is the one write after the
//!   commit.
//!
//! - An answer that shows a secret (a webhook's signing secret, on create and `rotate_secret`)
//!   carries the body to keep instead ([`KeptInstead`]: the same answer with the secret masked),
//!   so no secret rests in plain in the table; a replay shows the masked one.
//!
//! Cost: two writes per keyed `POST` (the claim, its answer) and one consistent read per retry.

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header::{CONTENT_TYPE, LOCATION};
use http::{HeaderName, HeaderValue, Method, StatusCode};
use sha2::{Digest, Sha256};

use crate::auth::AccountContext;
use crate::http::ApiError;
use serde::{Deserialize, Serialize};

use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreError, Update, Write};
use crate::values::AccountId;

/// The request header.
static IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Set on a replayed answer.
static IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// How long a key is remembered.
const KEEP_SECONDS: i64 = 24 * 60 * 60;
/// How long a running request holds its key before another may take it over.
const LEASE_SECONDS: i64 = 120;
/// Longest key, in characters.
const MAX_KEY_LENGTH: usize = 255;
/// Largest answer kept for a replay (DynamoDB's item limit is 400 KB); a larger answer releases
/// the key instead. `POST` answers are one record, a few KB.
const MAX_KEPT_ANSWER: usize = 300 * 1024;

const MSG_BAD_KEY: &str = "Idempotency-Key inválida: use de 1 a 255 caracteres ASCII visíveis";
const CODE_REUSED: &str = "idempotency_key_reused";
const CODE_IN_USE: &str = "idempotency_key_in_use";

/// The body a replay answers instead of the one sent (a response extension): the same answer
/// without what must not be stored, such as a signing secret in plain.
#[derive(Clone, Debug)]
pub struct KeptInstead(pub Bytes);

/// Middleware of every route: runs a keyed `POST` at most once per account and key.
pub async fn idempotency(State(store): State<Store>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !request.headers().contains_key(&IDEMPOTENCY_KEY) {
        return next.run(request).await;
    }
    match keyed(&store, request, next).await {
        Ok(response) | Err(response) => response,
    }
}

/// A keyed `POST`: claim the key, or answer from the claim another request holds.
async fn keyed(store: &Store, request: Request, next: Next) -> Result<Response, Response> {
    let key = key_of(&request).ok_or_else(|| ApiError::BadRequest(MSG_BAD_KEY).into_response())?;
    let Some(account) = request.extensions().get::<AccountContext>().map(|c| c.account_id) else {
        // Every route runs behind authentication; without an account there is nothing to scope by.
        return Ok(next.run(request).await);
    };
    let (parts, body) = request.into_parts();
    let bytes = crate::http::body::read_whole(&parts.headers, body).await.map_err(IntoResponse::into_response)?;
    let fingerprint = fingerprint(&parts, &bytes);
    let claim = Claim { store, account, key, token: new_token() };
    let now = chrono::Utc::now().timestamp();
    for _ in 0..3 {
        match claim.take(&fingerprint, now).await {
            Ok(()) => {
                let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
                return Ok(claim.settle(response).await);
            }
            Err(StoreError::ConditionFailed(_)) => {}
            Err(error) => return Err(ApiError::from(error).into_response()),
        }
        // Held by another request, or expired and about to be taken over: read what it holds.
        match claim.read().await.map_err(|e| ApiError::from(e).into_response())? {
            // This request's own claim: the put was applied, its answer lost and the put tried
            // again, which then found it.
            Some(held) if held.claim == claim.token => {
                let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
                return Ok(claim.settle(response).await);
            }
            Some(held) if held.live(now) => return Err(held.answer(&fingerprint)),
            // Gone (released) or stale since the put: try to take it again.
            _ => continue,
        }
    }
    Err(in_use())
}

/// The header's key, when it is 1–255 visible ASCII characters.
fn key_of(request: &Request) -> Option<String> {
    let value = request.headers().get(&IDEMPOTENCY_KEY)?.to_str().ok()?;
    let fits = (1..=MAX_KEY_LENGTH).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
    fits.then(|| value.to_owned())
}

/// What makes two requests "the same": method, path and query, content type and body bytes.
fn fingerprint(parts: &http::request::Parts, body: &[u8]) -> String {
    let mut digest = Sha256::new();
    let content_type = parts.headers.get(CONTENT_TYPE).map(HeaderValue::as_bytes).unwrap_or_default();
    for field in [parts.method.as_str().as_bytes(), parts.uri.to_string().as_bytes(), content_type] {
        digest.update((field.len() as u64).to_be_bytes());
        digest.update(field);
    }
    digest.update(body);
    hex::encode(digest.finalize())
}

fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// One request's claim on a key.
struct Claim<'a> {
    store: &'a Store,
    account: AccountId,
    /// The `Idempotency-Key`.
    key: String,
    /// This request's own mark, so that it stores or releases only a claim that is still its.
    token: String,
}

impl Claim<'_> {
    fn at(&self) -> (AccountId, &str) {
        (self.account, &self.key)
    }

    fn item_key(&self) -> Key {
        keys::auth::idempotency_claim(self.account, &self.key)
    }

    /// Puts the claim unless a live one holds the key: none, one past its 24 h (TTL is lazy), or
    /// a running one past its lease.
    async fn take(&self, fingerprint: &str, now: i64) -> Result<(), StoreError> {
        let record = ClaimRecord {
            fingerprint: fingerprint.to_owned(),
            claim: self.token.clone(),
            state: ClaimState::Running,
            lease_until: now + LEASE_SECONDS,
            expires_at: now + KEEP_SECONDS,
            answer: None,
        };
        let running_past_lease =
            Condition::equals("state", &ClaimState::Running).and(Condition::less_than("lease_until", &now));
        let free = Condition::absent().or(Condition::less_than("expires_at", &now)).or(running_past_lease);
        self.store.write(vec![stored::put_if(&record, self.at(), free)?]).await
    }

    async fn read(&self) -> Result<Option<ClaimRecord>, StoreError> {
        stored::find(self.store, self.item_key()).await
    }

    /// Keeps the answer for replays, or releases the key when a retry may be answered otherwise.
    async fn settle(&self, response: Response) -> Response {
        let status = response.status();
        let keep = !(status.is_server_error()
            || matches!(status, StatusCode::CONFLICT | StatusCode::FORBIDDEN | StatusCode::TOO_MANY_REQUESTS));
        if !keep {
            self.release().await;
            return response;
        }
        let (parts, body) = response.into_parts();
        let bytes = match to_bytes(body, MAX_KEPT_ANSWER).await {
            Ok(bytes) => bytes,
            Err(error) => {
                // The answer was already produced; it cannot be read back whole, so it is lost.
                tracing::error!(error = %error, "an answer too large to keep for idempotent replays");
                self.release().await;
                return ApiError::from(anyhow::anyhow!("answer over {MAX_KEPT_ANSWER} bytes")).into_response();
            }
        };
        let kept = parts.extensions.get::<KeptInstead>().map_or_else(|| bytes.clone(), |instead| instead.0.clone());
        if let Err(error) = self.keep(status, &parts.headers, &kept).await {
            // The request is done; a retry with the key will find it running until the lease ends.
            tracing::warn!(error = ?error, "could not keep the answer of an idempotent request");
        }
        Response::from_parts(parts, Body::from(bytes))
    }

    async fn keep(&self, status: StatusCode, headers: &http::HeaderMap, body: &Bytes) -> Result<(), StoreError> {
        let text = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).map(str::to_owned);
        let answer = KeptAnswer {
            status: status.as_u16(),
            body: body.to_vec(),
            content_type: text(CONTENT_TYPE),
            location: text(LOCATION),
        };
        // `state` is a reserved word.
        let set = Update::new().set("state", &ClaimState::Done).set("answer", &answer);
        let ours = Condition::equals("claim", &self.token);
        let (pk, sk) = self.item_key();
        self.store.write(vec![Write::update(pk, sk, set, Some(ours))]).await
    }

    /// Deletes the claim if it is still this request's.
    async fn release(&self) {
        let ours = Condition::equals("claim", &self.token);
        let (pk, sk) = self.item_key();
        match self.store.write(vec![Write::delete_if(pk, sk, ours)]).await {
            Ok(()) | Err(StoreError::ConditionFailed(_)) => {}
            Err(error) => tracing::warn!(error = ?error, "could not release an idempotency key"),
        }
    }
}

/// The item of a claim.
#[derive(Debug, Serialize, Deserialize)]
struct ClaimRecord {
    /// Of the request that claimed the key ([`fingerprint`]).
    fingerprint: String,
    /// The claiming request's own token.
    claim: String,
    state: ClaimState,
    /// Unix seconds after which a running claim may be taken over.
    lease_until: i64,
    /// Unix seconds after which the key is free again (the table's TTL attribute).
    expires_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answer: Option<KeptAnswer>,
}

impl Stored for ClaimRecord {
    /// Claims never carried a `kind`.
    const KIND: Option<&'static str> = None;
    /// The account and the `Idempotency-Key`.
    type Scope<'a> = (AccountId, &'a str);

    fn key(&self, (account, key): Self::Scope<'_>) -> Key {
        keys::auth::idempotency_claim(account, key)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ClaimState {
    Running,
    Done,
}

/// What a replay answers.
#[derive(Debug, Serialize, Deserialize)]
struct KeptAnswer {
    status: u16,
    #[serde(with = "serde_bytes")]
    body: Vec<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    location: Option<String>,
}

impl ClaimRecord {
    /// Whether it still holds the key (the put's condition, read back).
    fn live(&self, now: i64) -> bool {
        self.expires_at >= now && !(self.state == ClaimState::Running && self.lease_until < now)
    }

    /// The answer to a request with this key: another request's refusal, or the replay.
    fn answer(self, fingerprint: &str) -> Response {
        if self.fingerprint != fingerprint {
            return refused(
                CODE_REUSED,
                "Idempotency-Key já usada com outra requisição (método, caminho ou corpo diferente) nas últimas 24 horas",
            );
        }
        match (self.state, self.answer) {
            (ClaimState::Done, Some(answer)) => answer.replay(),
            _ => in_use(),
        }
    }
}

impl KeptAnswer {
    fn replay(self) -> Response {
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let headers = response.headers_mut();
        for (name, value) in [(CONTENT_TYPE, self.content_type), (LOCATION, self.location)] {
            if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
                headers.insert(name, value);
            }
        }
        headers.insert(IDEMPOTENT_REPLAYED.clone(), HeaderValue::from_static("true"));
        response
    }
}

fn refused(code: &'static str, message: &str) -> Response {
    ApiError::Coded { status: StatusCode::CONFLICT, code, message: message.to_owned() }.into_response()
}

fn in_use() -> Response {
    let mut response = refused(
        CODE_IN_USE,
        "Uma requisição com esta Idempotency-Key ainda está em andamento; tente novamente em instantes",
    );
    response.headers_mut().insert(http::header::RETRY_AFTER, HeaderValue::from(1));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::item;

    fn request(method: &str, uri: &str, content_type: &str, key: Option<&str>) -> Request {
        let mut builder = http::Request::builder().method(method).uri(uri).header(CONTENT_TYPE, content_type);
        if let Some(key) = key {
            builder = builder.header(&IDEMPOTENCY_KEY, key);
        }
        builder.body(Body::empty()).unwrap()
    }

    #[test]
    fn keys_are_one_to_255_visible_ascii_characters() {
        let of = |key: &str| key_of(&request("POST", "/v1/tags", "application/json", Some(key)));
        assert_eq!(of("pedido-123").as_deref(), Some("pedido-123"));
        assert_eq!(of(&"k".repeat(255)).map(|k| k.len()), Some(255));
        assert_eq!(of(&"k".repeat(256)), None);
        assert_eq!(of(""), None);
        assert_eq!(of("tab\there"), None);
    }

    #[test]
    fn the_fingerprint_tells_method_path_content_type_and_body_apart() {
        let of = |method, uri, content_type, body: &[u8]| {
            let (parts, _) = request(method, uri, content_type, None).into_parts();
            fingerprint(&parts, body)
        };
        let base = of("POST", "/v1/tags", "application/json", b"{}");
        assert_eq!(base, of("POST", "/v1/tags", "application/json", b"{}"));
        assert_ne!(base, of("POST", "/v1/groups", "application/json", b"{}"));
        assert_ne!(base, of("POST", "/v1/tags?x=1", "application/json", b"{}"));
        assert_ne!(base, of("POST", "/v1/tags", "application/x-www-form-urlencoded", b"{}"));
        assert_ne!(base, of("POST", "/v1/tags", "application/json", b"{ }"));
    }

    #[test]
    fn a_claim_holds_until_its_lease_or_its_day_ends() {
        let claim = |state, lease_until, expires_at| ClaimRecord {
            fingerprint: "f".into(),
            claim: "c".into(),
            state,
            lease_until,
            expires_at,
            answer: None,
        };
        assert!(claim(ClaimState::Running, 100, 1000).live(100));
        assert!(!claim(ClaimState::Running, 99, 1000).live(100));
        assert!(claim(ClaimState::Done, 0, 1000).live(100));
        assert!(!claim(ClaimState::Done, 0, 99).live(100));
    }

    #[test]
    fn a_kept_answer_is_a_map_with_the_body_as_binary() {
        let answer = KeptAnswer { status: 201, body: b"{}".to_vec(), content_type: None, location: None };
        let map = item::to_item(&answer).expect("a map");
        assert_eq!(item::binary(&map, "body"), Some(&b"{}"[..]));
        assert_eq!(map.len(), 2, "absent headers are not written: {map:?}");
    }
}
