//! What reaches a PSP: its [`Credentials`], kept in Secrets Manager one secret per bank rule (the
//! secret's name: [`secret_id`]; read and written by `payments::secrets`), and the TLS client
//! configuration they make.

use std::sync::Arc;

use anyhow::Context as _;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde::{Deserialize, Serialize};

use crate::values::{AccountId, BankRuleId};

/// Where the PSP secrets of the service live (`PIX_SECRET_PREFIX`, else this).
pub const DEFAULT_SECRET_PREFIX: &str = "billing-service/pix";

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

    pub(super) fn token_url(&self) -> String {
        self.token_url.clone().unwrap_or_else(|| format!("{}/oauth/token", self.base_url.trim_end_matches('/')))
    }
}

/// The TLS configuration of a PSP's client: the public roots and the PSP's own, and the client
/// certificate.
pub(super) fn tls(credentials: &Credentials) -> anyhow::Result<rustls::ClientConfig> {
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
