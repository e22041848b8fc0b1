//! A client of an account's Pix institution (PSP) through the API Pix: OAuth 2.0 client
//! credentials over mutual TLS with the certificate the PSP issued, the token kept until shortly
//! before it expires, and the calls the service makes (`cobv`, `pix`, `webhook`; Pix Automático's
//! in `recurring`).
//!
//! What reaches a PSP is kept in Secrets Manager, one secret per bank rule ([`Credentials`]; its
//! name in the rule, [`secret_id`]), never in the table or the logs. A process keeps one client per
//! secret ([`Registry`]) and reads the secret again after a while
//! ([`crate::payments::secrets::RELOAD_AFTER`]), so a rotated certificate is taken up without a
//! deploy.
//!
//! This file holds the client and its calls; the answers' shapes are in `answers`, the secrets in
//! `credentials`, the process's clients in `registry`.

mod answers;
mod credentials;
mod recurring;
mod registry;

use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Mutex;

pub use answers::{Cobv, Paging, Parameters, PspError, Received, ReceivedPage, Refund, PAGE_SIZE};
use credentials::tls;
pub use credentials::{secret_id, Credentials, DEFAULT_SECRET_PREFIX};
pub use recurring::{Attempt, CobR, LocRec, Rec};
pub use registry::{registry, Registry};

/// A token is renewed this long before the PSP says it expires.
const TOKEN_MARGIN: Duration = Duration::from_secs(60);

/// Each call's limit (connect and answer).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// A PSP's client.
pub struct Psp {
    http: reqwest::Client,
    credentials: Credentials,
    token: Mutex<Option<(String, Instant)>>,
    /// Calls made, for the bench and the tests (`token` calls included).
    calls: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Psp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Psp").field("credentials", &self.credentials).finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Token {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

impl Psp {
    pub fn new(credentials: Credentials) -> anyhow::Result<Psp> {
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls(&credentials)?)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(CALL_TIMEOUT)
            .timeout(CALL_TIMEOUT)
            .user_agent(concat!("billing-service/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Psp { http, credentials, token: Mutex::new(None), calls: Default::default() })
    }

    pub fn pix_key(&self) -> &str {
        &self.credentials.pix_key
    }

    /// Calls made so far by this client.
    pub fn calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.credentials.base_url.trim_end_matches('/'))
    }

    /// The access token, from the cache while it is valid.
    async fn token(&self, fresh: bool) -> Result<String, PspError> {
        let mut cached = self.token.lock().await;
        if let (false, Some((token, until))) = (fresh, cached.as_ref()) {
            if Instant::now() < *until {
                return Ok(token.clone());
            }
        }
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let request = self
            .http
            .post(self.credentials.token_url())
            .basic_auth(&self.credentials.client_id, Some(&self.credentials.client_secret))
            .form(&[("grant_type", "client_credentials")]);
        let answer = request.send().await.map_err(|e| PspError::Unavailable(format!("token: {e}")))?;
        let (status, body) = read(answer).await?;
        if !(200..300).contains(&status) {
            return Err(refused_or_unavailable(status, &body));
        }
        let token: Token =
            serde_json::from_value(body).map_err(|e| PspError::Unavailable(format!("token answer: {e}")))?;
        let lasts = Duration::from_secs(token.expires_in.unwrap_or(300)).saturating_sub(TOKEN_MARGIN);
        *cached = Some((token.access_token.clone(), Instant::now() + lasts));
        Ok(token.access_token)
    }

    /// One call with the token; a `401` takes a fresh token once (a token revoked before it
    /// expired).
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<Value, PspError> {
        for fresh in [false, true] {
            let token = self.token(fresh).await?;
            self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut request = self.http.request(method.clone(), self.url(path)).bearer_auth(token).query(query);
            if let Some(body) = body {
                request = request.json(body);
            }
            let answer = request.send().await.map_err(|e| PspError::Unavailable(format!("{method} {path}: {e}")))?;
            let (status, body) = read(answer).await?;
            match status {
                200..=299 => return Ok(body),
                401 if !fresh => continue,
                _ => return Err(refused_or_unavailable(status, &body)),
            }
        }
        Err(PspError::Refused { status: 401, detail: "the PSP refused a fresh token".into() })
    }

    /// `PUT /cobv/{txid}`: makes the charge.
    pub async fn put_cobv(&self, txid: &str, body: &Value) -> Result<Cobv, PspError> {
        parse(self.call(reqwest::Method::PUT, &format!("/cobv/{txid}"), &[], Some(body)).await?)
    }

    /// `PATCH /cobv/{txid}`: revises it (or removes it: `status` `REMOVIDA_PELO_USUARIO_RECEBEDOR`).
    pub async fn patch_cobv(&self, txid: &str, body: &Value) -> Result<Cobv, PspError> {
        parse(self.call(reqwest::Method::PATCH, &format!("/cobv/{txid}"), &[], Some(body)).await?)
    }

    /// `GET /cobv/{txid}`.
    pub async fn cobv(&self, txid: &str) -> Result<Cobv, PspError> {
        parse(self.call(reqwest::Method::GET, &format!("/cobv/{txid}"), &[], None).await?)
    }

    /// `GET /pix/{e2eid}`: the Pix as the PSP received it; `None` when it knows none.
    pub async fn pix(&self, end_to_end_id: &str) -> Result<Option<Received>, PspError> {
        match self.call(reqwest::Method::GET, &format!("/pix/{end_to_end_id}"), &[], None).await {
            Ok(body) => parse(body).map(Some),
            Err(PspError::Refused { status: 404, .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// `GET /pix?inicio&fim`: the Pix received between two instants, page `page` (from 0).
    pub async fn received(
        &self,
        from: DateTime<FixedOffset>,
        to: DateTime<FixedOffset>,
        page: u32,
    ) -> Result<ReceivedPage, PspError> {
        let stamp = |at: DateTime<FixedOffset>| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let query = [
            ("inicio", stamp(from)),
            ("fim", stamp(to)),
            ("paginacao.paginaAtual", page.to_string()),
            ("paginacao.itensPorPagina", PAGE_SIZE.to_string()),
        ];
        parse(self.call(reqwest::Method::GET, "/pix", &query, None).await?)
    }

    /// `PUT /pix/{e2eid}/devolucao/{id}`: gives `amount` of a Pix received back to its payer. `id`
    /// names the refund: the same id again is the same refund.
    pub async fn refund(
        &self,
        end_to_end_id: &str,
        id: &str,
        amount: crate::values::Money,
    ) -> Result<Refund, PspError> {
        let body = serde_json::json!({ "valor": format!("{:.2}", amount.get()) });
        parse(self.call(reqwest::Method::PUT, &format!("/pix/{end_to_end_id}/devolucao/{id}"), &[], Some(&body)).await?)
    }

    /// `PUT /webhook/{chave}`: the PSP calls `<url>/pix` when a charge to the key is paid.
    pub async fn register_webhook(&self, url: &str) -> Result<(), PspError> {
        let path = format!("/webhook/{}", urlencoding(&self.credentials.pix_key));
        self.call(reqwest::Method::PUT, &path, &[], Some(&serde_json::json!({ "webhookUrl": url }))).await.map(|_| ())
    }
}

/// A Pix key in a path (an e-mail key has `@`, a phone key `+`).
fn urlencoding(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>().replace('+', "%2B")
}

async fn read(answer: reqwest::Response) -> Result<(u16, Value), PspError> {
    let status = answer.status().as_u16();
    let bytes = answer.bytes().await.map_err(|e| PspError::Unavailable(format!("reading the answer: {e}")))?;
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).chars().take(300).collect()));
    Ok((status, body))
}

fn refused_or_unavailable(status: u16, body: &Value) -> PspError {
    // The API Pix's problems (RFC 7807) say what is wrong in `detail` or `title`.
    let detail = body.get("detail").or_else(|| body.get("title")).and_then(Value::as_str).map(str::to_owned);
    let detail = detail.unwrap_or_else(|| body.to_string().chars().take(300).collect());
    match status {
        408 | 425 | 429 | 500..=599 => PspError::Unavailable(format!("answered {status}: {detail}")),
        _ => PspError::Refused { status, detail },
    }
}

fn parse<T: serde::de::DeserializeOwned>(body: Value) -> Result<T, PspError> {
    serde_json::from_value(body)
        .map_err(|e| PspError::Unavailable(format!("an answer out of the API Pix's shape: {e}")))
}
