//! The HTTP client of deliveries: HTTPS only, certificates checked against the public roots
//! (Mozilla's, compiled in: self-signed and private CAs are refused), no redirects followed, no
//! proxy, 10 seconds for the whole attempt, and only public addresses ([`super::guard`]).
//!
//! `WEBHOOKS_ALLOW_INSECURE_LOCAL=1` lets the local stack and tests deliver to
//! `http://127.0.0.1:<port>`: plain HTTP, and loopback addresses (only those) pass the guard. On
//! Lambda (`AWS_LAMBDA_FUNCTION_NAME` set) the switch is ignored with a warning.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

use super::guard::refusal;

/// The limit of one attempt, from connecting to the response's status.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest receiver URL accepted.
const URL_MAX_CHARS: usize = 2048;
const USER_AGENT: &str = "billing-service-webhooks/1";

/// Where deliveries may go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// `http://` and loopback addresses (the local stack and tests).
    pub allow_insecure_local: bool,
}

impl Policy {
    pub const STRICT: Policy = Policy { allow_insecure_local: false };
    pub const LOCAL: Policy = Policy { allow_insecure_local: true };

    /// `WEBHOOKS_ALLOW_INSECURE_LOCAL=1`, unless running on Lambda.
    pub fn from_env() -> Self {
        let switch = std::env::var("WEBHOOKS_ALLOW_INSECURE_LOCAL").ok();
        Policy::from_vars(switch.as_deref(), std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some())
    }

    /// The policy of the switch's value, on Lambda or not.
    fn from_vars(switch: Option<&str>, on_lambda: bool) -> Self {
        let asked = switch == Some("1");
        if asked && on_lambda {
            tracing::warn!(
                "WEBHOOKS_ALLOW_INSECURE_LOCAL is ignored on Lambda: deliveries stay HTTPS to public addresses"
            );
            return Policy::STRICT;
        }
        Policy { allow_insecure_local: asked }
    }
}

/// Why a text may not be a receiver URL. Its `Display` is the operators' English; the API says it
/// in Portuguese ([`UrlProblem::portuguese`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlProblem {
    TooLong,
    NotAUrl(String),
    Scheme(String),
    Credentials,
    NoHost,
    /// An IP literal that is no public unicast address: the address and why.
    Address(IpAddr, &'static str),
}

impl std::fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlProblem::TooLong => write!(f, "the URL is longer than {URL_MAX_CHARS} characters"),
            UrlProblem::NotAUrl(why) => write!(f, "not a URL ({why})"),
            UrlProblem::Scheme(scheme) => write!(f, "the URL must be https:// (not {scheme}://)"),
            UrlProblem::Credentials => f.write_str("the URL must not carry credentials"),
            UrlProblem::NoHost => f.write_str("the URL has no host"),
            UrlProblem::Address(ip, why) => write!(f, "{ip} is a {why} address, not a public one"),
        }
    }
}

impl UrlProblem {
    /// The reason in the API's words (§7: Portuguese).
    pub fn portuguese(&self) -> String {
        match self {
            UrlProblem::TooLong => format!("url é muito longa (máximo: {URL_MAX_CHARS} caracteres)"),
            UrlProblem::NotAUrl(_) => "url não é um endereço válido".to_owned(),
            UrlProblem::Scheme(_) => "url deve começar com https://".to_owned(),
            UrlProblem::Credentials => "url não pode conter usuário ou senha".to_owned(),
            UrlProblem::NoHost => "url não tem servidor".to_owned(),
            UrlProblem::Address(ip, _) => {
                format!("url aponta para um endereço que não é público ({ip}); use um endereço da internet")
            }
        }
    }
}

/// Whether `text` may be a receiver URL under `policy` (the problem says why not). Names are
/// resolved, and checked, on each delivery.
pub fn check_url(text: &str, policy: Policy) -> Result<Url, UrlProblem> {
    if text.chars().count() > URL_MAX_CHARS {
        return Err(UrlProblem::TooLong);
    }
    let url = Url::parse(text).map_err(|e| UrlProblem::NotAUrl(e.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" if policy.allow_insecure_local => {}
        other => return Err(UrlProblem::Scheme(other.to_owned())),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlProblem::Credentials);
    }
    let ip = match url.host() {
        None => return Err(UrlProblem::NoHost),
        Some(url::Host::Domain(_)) => None,
        Some(url::Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
        Some(url::Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
    };
    if let Some(ip) = ip {
        if let Some(why) = refusal(ip, policy.allow_insecure_local) {
            return Err(UrlProblem::Address(ip, why));
        }
    }
    Ok(url)
}

/// What one POST came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// Why it was not delivered, when it was not (a non-2xx status included).
    pub error: Option<String>,
    pub latency: Duration,
}

impl Response {
    pub fn delivered(&self) -> bool {
        self.error.is_none()
    }
}

/// The client every delivery of a process shares (it keeps connections to receivers open).
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    policy: Policy,
}

impl Client {
    pub fn new(policy: Policy) -> anyhow::Result<Self> {
        let tls = crate::config::public_tls()?;
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .dns_resolver(Arc::new(GuardedResolver { allow_loopback: policy.allow_insecure_local }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .https_only(!policy.allow_insecure_local)
            .connect_timeout(ATTEMPT_TIMEOUT)
            .timeout(ATTEMPT_TIMEOUT)
            .user_agent(USER_AGENT)
            .build()?;
        Ok(Client { http, policy })
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// POSTs `body` (JSON) with `headers`; `2xx` is delivered. The response body is not read.
    pub async fn post(&self, url: &str, headers: &[(&'static str, String)], body: String) -> Response {
        let started = Instant::now();
        let failed = |error: String| Response { status: None, error: Some(error), latency: started.elapsed() };
        let url = match check_url(url, self.policy) {
            Ok(url) => url,
            Err(why) => return failed(format!("refused: {why}")),
        };
        let mut request = self.http.post(url).header(reqwest::header::CONTENT_TYPE, "application/json").body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        match tokio::time::timeout(ATTEMPT_TIMEOUT, request.send()).await {
            Err(_) => failed(format!("timed out after {} s", ATTEMPT_TIMEOUT.as_secs())),
            Ok(Err(error)) if error.is_timeout() => failed(format!("timed out after {} s", ATTEMPT_TIMEOUT.as_secs())),
            Ok(Err(error)) => failed(describe(&error)),
            Ok(Ok(answer)) => {
                let status = answer.status();
                let error = match status.as_u16() {
                    200..=299 => None,
                    300..=399 => Some(format!("answered {status}: redirects are not followed")),
                    _ => Some(format!("answered {status}")),
                };
                Response { status: Some(status.as_u16()), error, latency: started.elapsed() }
            }
        }
    }
}

/// The error and its causes, each once: "error sending request …: client error (Connect): refused: …".
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(current) = next {
        let text = current.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = current.source();
    }
    let mut joined = parts.join(": ");
    if joined.len() > 500 {
        let cut = (0..=500).rev().find(|i| joined.is_char_boundary(*i)).unwrap_or(0);
        joined.truncate(cut);
    }
    joined
}

/// Resolves names and hands the connector only the addresses the guard lets through.
struct GuardedResolver {
    allow_loopback: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_loopback = self.allow_loopback;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut refused = None;
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|address| match refusal(address.ip(), allow_loopback) {
                    None => true,
                    Some(why) => {
                        refused.get_or_insert((address.ip(), why));
                        false
                    }
                })
                .collect();
            if allowed.is_empty() {
                let message = match refused {
                    // The address itself only in the log: the delivery log is the account's to
                    // read (`/v1/webhook_deliveries`), and must not tell what names resolve to
                    // inside the service's network.
                    Some((ip, why)) => {
                        tracing::warn!(%host, %ip, why, "webhook receiver refused: not a public address");
                        format!("refused: {host} resolves to a {why} address")
                    }
                    None => format!("{host} does not resolve"),
                };
                return Err(message.into());
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_switch_is_ignored_on_lambda() {
        assert_eq!(Policy::from_vars(Some("1"), false), Policy::LOCAL);
        assert_eq!(Policy::from_vars(Some("1"), true), Policy::STRICT);
        assert_eq!(Policy::from_vars(Some("yes"), false), Policy::STRICT);
        assert_eq!(Policy::from_vars(None, false), Policy::STRICT);
    }

    #[test]
    fn receiver_urls_are_checked() {
        assert!(check_url("https://hooks.example.com/billing?x=1", Policy::STRICT).is_ok());
        for (url, why) in [
            ("http://hooks.example.com/", "https://"),
            ("ftp://hooks.example.com/", "https://"),
            ("https://user:pw@hooks.example.com/", "credentials"),
            ("not a url", "not a URL"),
            ("https://127.0.0.1/", "loopback"),
            ("https://[::1]:8443/", "loopback"),
            ("https://169.254.169.254/latest/meta-data/", "link-local"),
            ("https://10.0.0.8/", "private"),
            ("https://[fd12::1]/", "unique local"),
            ("https://[::ffff:192.168.1.1]/", "private"),
        ] {
            let refused = check_url(url, Policy::STRICT).expect_err(url).to_string();
            assert!(refused.contains(why), "{url}: {refused}");
        }
        let long = format!("https://example.com/{}", "a".repeat(URL_MAX_CHARS));
        assert!(check_url(&long, Policy::STRICT).is_err());
        assert!(check_url("http://127.0.0.1:9000/hook", Policy::LOCAL).is_ok());
        assert!(check_url("http://10.0.0.1:9000/hook", Policy::LOCAL).is_err());
        let said = check_url("http://hooks.example.com/", Policy::STRICT).unwrap_err().portuguese();
        assert_eq!(said, "url deve começar com https://");
        let said = check_url("https://10.0.0.8/", Policy::STRICT).unwrap_err().portuguese();
        assert!(said.contains("não é público (10.0.0.8)"), "{said}");
    }
}
