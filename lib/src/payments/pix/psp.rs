//! A client of an account's Pix institution (PSP) through the API Pix: OAuth 2.0 client
//! credentials over mutual TLS with the certificate the PSP issued, the token kept until shortly
//! before it expires, and the calls the service makes (`cobv`, `pix`, `webhook`).
//!
//! What reaches a PSP is kept in Secrets Manager, one secret per bank rule ([`Credentials`]; its
//! name in the rule, [`secret_id`]), never in the table or the logs. A process keeps one client per
//! secret ([`Registry`]) and reads the secret again after [`RELOAD_AFTER`], so a rotated
//! certificate is taken up without a deploy.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use chrono::{DateTime, FixedOffset};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Mutex;

use crate::values::{AccountId, BankRuleId};

/// Where the PSP secrets of the service live (`PIX_SECRET_PREFIX`, else this).
pub const DEFAULT_SECRET_PREFIX: &str = "billing-service/pix";

/// How long a process trusts a secret it read: a rotated one is read again after this.
pub const RELOAD_AFTER: Duration = Duration::from_secs(300);

/// A token is renewed this long before the PSP says it expires.
const TOKEN_MARGIN: Duration = Duration::from_secs(60);

/// Each call's limit (connect and answer).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The secret of a bank rule's PSP: `<prefix>/<table>/<account>/<rule>` (the table's name keeps two
/// stacks, or two local tables, of one AWS account apart).
pub fn secret_id(account: AccountId, rule: BankRuleId) -> String {
    let prefix = std::env::var("PIX_SECRET_PREFIX").ok().filter(|p| !p.is_empty());
    let table = crate::config::table_name();
    format!("{}/{table}/{account}/{rule}", prefix.as_deref().unwrap_or(DEFAULT_SECRET_PREFIX))
}

/// What the service needs to reach a PSP, as kept in its secret (JSON).
#[derive(Clone, Serialize, Deserialize, PartialEq)]
pub struct Credentials {
    /// The API Pix's base URL at the PSP (`https://pix.example.com/api/v2`).
    pub base_url: String,
    /// The OAuth token endpoint; `<base_url>/oauth/token` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_url: Option<String>,
    pub client_id: String,
    pub client_secret: String,
    /// The client certificate the PSP issued (PEM, its chain after it) and its private key (PEM).
    pub certificate: String,
    pub private_key: String,
    /// Roots to trust for the PSP's server certificate (PEM), beside the public ones: a PSP whose
    /// API is signed by its own CA (and the local stand-in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate: Option<String>,
    /// The account's Pix key at this PSP: what its charges are paid to.
    pub pix_key: String,
}

impl std::fmt::Debug for Credentials {
    /// Never the secret or the key, even in a log of a failure.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("pix_key", &self.pix_key)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// Why these cannot be used, if they cannot (checked by `infra/ops pix psp` before storing).
    pub fn check(&self) -> anyhow::Result<()> {
        url::Url::parse(&self.base_url).context("base_url is not a URL")?;
        if let Some(token_url) = &self.token_url {
            url::Url::parse(token_url).context("token_url is not a URL")?;
        }
        anyhow::ensure!(
            !self.client_id.is_empty() && !self.client_secret.is_empty(),
            "client id and secret are required"
        );
        anyhow::ensure!(!self.pix_key.trim().is_empty(), "the Pix key is required");
        tls(self).map(|_| ())
    }

    fn token_url(&self) -> String {
        self.token_url.clone().unwrap_or_else(|| format!("{}/oauth/token", self.base_url.trim_end_matches('/')))
    }
}

/// The TLS configuration of a PSP's client: the public roots and the PSP's own, and the client
/// certificate.
fn tls(credentials: &Credentials) -> anyhow::Result<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    if let Some(pem) = &credentials.ca_certificate {
        for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            roots.add(cert.context("ca_certificate is not PEM")?).context("ca_certificate is not a CA")?;
        }
    }
    let chain = CertificateDer::pem_slice_iter(credentials.certificate.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .context("certificate is not PEM")?;
    anyhow::ensure!(!chain.is_empty(), "certificate holds no certificate");
    let key =
        PrivateKeyDer::from_pem_slice(credentials.private_key.as_bytes()).context("private_key is not a PEM key")?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_client_auth_cert(chain, key)
        .context("the certificate and key do not match")
}

/// A call's failure.
#[derive(Debug, thiserror::Error)]
pub enum PspError {
    /// Worth trying again: the PSP could not be reached, timed out, throttled or failed (5xx).
    #[error("PSP unavailable: {0}")]
    Unavailable(String),
    /// The PSP refused the call (4xx): trying it again as it is changes nothing.
    #[error("PSP refused ({status}): {detail}")]
    Refused { status: u16, detail: String },
}

impl PspError {
    pub fn status(&self) -> Option<u16> {
        match self {
            PspError::Refused { status, .. } => Some(*status),
            PspError::Unavailable(_) => None,
        }
    }
}

/// A charge with a due date as the PSP answers it.
#[derive(Clone, Debug, Deserialize)]
pub struct Cobv {
    pub txid: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, rename = "pixCopiaECola")]
    pub copy_paste: Option<String>,
    #[serde(default)]
    pub revisao: i64,
}

/// A Pix received, as the PSP lists it (`GET /pix`, `GET /pix/{e2eid}`, the webhook's `pix`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Received {
    #[serde(rename = "endToEndId")]
    pub end_to_end_id: String,
    #[serde(default)]
    pub txid: Option<String>,
    pub valor: String,
    pub horario: DateTime<FixedOffset>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devolucoes: Vec<Refund>,
}

/// A refund (`devolucao`) of a Pix received.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Refund {
    pub id: String,
    #[serde(default, rename = "rtrId")]
    pub rtr_id: Option<String>,
    pub valor: String,
    pub status: String,
}

/// A page of `GET /pix`.
#[derive(Clone, Debug, Deserialize)]
pub struct ReceivedPage {
    pub pix: Vec<Received>,
    #[serde(rename = "parametros")]
    pub parameters: Parameters,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Parameters {
    #[serde(rename = "paginacao")]
    pub paging: Paging,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Paging {
    #[serde(rename = "paginaAtual")]
    pub current: u32,
    #[serde(rename = "quantidadeDePaginas")]
    pub pages: u32,
}

/// The items a page of `GET /pix` asks for.
pub const PAGE_SIZE: u32 = 100;

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

/// The process's PSP clients, one per secret, read again after [`RELOAD_AFTER`].
#[derive(Default)]
pub struct Registry {
    clients: Mutex<HashMap<String, (Arc<Psp>, Instant)>>,
    secrets: OnceLock<aws_sdk_secretsmanager::Client>,
}

/// The process's registry.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

impl Registry {
    async fn secrets(&self) -> aws_sdk_secretsmanager::Client {
        if let Some(client) = self.secrets.get() {
            return client.clone();
        }
        let client = aws_sdk_secretsmanager::Client::new(&crate::config::aws().await);
        self.secrets.get_or_init(|| client).clone()
    }

    /// The client of a bank rule's PSP (the secret `secret_id`).
    pub async fn psp(&self, secret_id: &str) -> anyhow::Result<Arc<Psp>> {
        let mut clients = self.clients.lock().await;
        if let Some((psp, read_at)) = clients.get(secret_id) {
            if read_at.elapsed() < RELOAD_AFTER {
                return Ok(psp.clone());
            }
        }
        let credentials = load(&self.secrets().await, secret_id).await?;
        let psp = match clients.get(secret_id) {
            // The same credentials: the same client, its token kept.
            Some((psp, _)) if psp.credentials == credentials => psp.clone(),
            _ => Arc::new(Psp::new(credentials).with_context(|| format!("the PSP secret {secret_id}"))?),
        };
        clients.insert(secret_id.to_owned(), (psp.clone(), Instant::now()));
        Ok(psp)
    }
}

/// The credentials kept in a secret.
pub async fn load(secrets: &aws_sdk_secretsmanager::Client, secret_id: &str) -> anyhow::Result<Credentials> {
    let found = secrets.get_secret_value().secret_id(secret_id).send().await.context("GetSecretValue")?;
    let text = found.secret_string().context("the PSP secret has no text")?;
    serde_json::from_str(text).with_context(|| format!("the PSP secret {secret_id} is not the credentials' JSON"))
}

/// Stores the credentials (a new secret, or a new version of it).
pub async fn store(
    secrets: &aws_sdk_secretsmanager::Client,
    secret_id: &str,
    credentials: &Credentials,
) -> anyhow::Result<()> {
    crate::config::put_secret(secrets, secret_id, serde_json::to_string(credentials)?).await
}
