//! Configuration from the environment. The same binaries run on AWS and against the local stack:
//! the SDK honours the standard `AWS_ENDPOINT_URL*` variables.

use std::sync::OnceLock;

use aws_config::default_provider::credentials::DefaultCredentialsChain;
use aws_config::environment::EnvironmentVariableCredentialsProvider;
use aws_config::{BehaviorVersion, SdkConfig};
use aws_credential_types::provider::{error::CredentialsError, future, ProvideCredentials, SharedCredentialsProvider};
use aws_smithy_http_client::tls::{rustls_provider::CryptoMode, Provider, TlsContext, TrustStore};
use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{HttpClient, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;

const DEFAULT_TABLE_NAME: &str = "billing-service";

/// The SDK's configuration from the environment. On Lambda, made from Lambda's variables
/// (`lambda_config`); elsewhere (ops CLI, dev server, tests) the SDK's loader, which keeps the
/// system's roots, proxy settings, profiles and SSO.
pub async fn aws() -> SdkConfig {
    match on_lambda() {
        true => lambda_config(),
        false => aws_config::defaults(BehaviorVersion::latest()).retry_config(retries()).load().await,
    }
}

/// On Lambda the environment holds the whole configuration: the region and the credentials
/// (Lambda's variables, tried first, the SDK's chain only if they are missing), and an endpoint
/// only where a test points the functions at the local stack (`AWS_ENDPOINT_URL`). Built from it
/// directly, without the SDK's loader, which looks every other setting up in profile files Lambda
/// does not have and builds the SSO token chain at every start (about 0.15 ms: docs/cold-start.md).
/// The process's SDK clients share an HTTP client with the roots compiled in. Timeouts, sleeps and
/// the clock are the SDK clients' own defaults, as the loader leaves them; what this leaves out is
/// the per-service endpoint variables (`AWS_ENDPOINT_URL_<SERVICE>`) and the FIPS and dual-stack
/// switches, which the service does not use.
fn lambda_config() -> SdkConfig {
    lambda_config_from(|name| std::env::var(name).ok())
}

/// [`lambda_config`] from the variables `var` gives.
fn lambda_config_from(var: impl Fn(&str) -> Option<String>) -> SdkConfig {
    let var = |name: &str| var(name).filter(|value| !value.is_empty());
    let region = var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")).map(aws_config::Region::new);
    let config = SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region)
        .retry_config(retries())
        .http_client(AtFirstRequest::default())
        .credentials_provider(SharedCredentialsProvider::new(EnvFirst::default()));
    match var("AWS_ENDPOINT_URL") {
        Some(endpoint) => config.endpoint_url(endpoint).build(),
        None => config.build(),
    }
}

/// The SDK's own retries: a throttle, a server error or a dropped connection is tried again up to
/// four more times, after a pause drawn at random up to 25 ms, then 50, 100, 200 (DynamoDB's
/// recommended base, not the SDK's 1 s, which would eat an API request's budget). What still
/// fails reaches the service's own retries (`contention`), and past their budget the client gets
/// a 503 (docs/decisions.md).
pub fn retries() -> aws_config::retry::RetryConfig {
    aws_config::retry::RetryConfig::standard()
        .with_max_attempts(5)
        .with_initial_backoff(std::time::Duration::from_millis(25))
        .with_max_backoff(std::time::Duration::from_secs(1))
}

/// How long the DynamoDB client waits (`Store::new`; SQS keeps the SDK's defaults, its long polls
/// wait up to 20 s): 2 s to connect, 5 s for one attempt, 8 s for a call and its retries — inside
/// a function's 10 s, so that a store that does not answer (an overloaded local moto, an
/// outage) ends as a `StoreError::Unavailable` and a `503` with `Retry-After`, never as a request
/// the function's timeout kills or a connection that hangs.
pub fn timeouts() -> aws_config::timeout::TimeoutConfig {
    aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(std::time::Duration::from_secs(2))
        .operation_attempt_timeout(std::time::Duration::from_secs(5))
        .operation_timeout(std::time::Duration::from_secs(8))
        .build()
}

fn on_lambda() -> bool {
    std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some()
}

/// The credentials Lambda puts in the environment, which the SDK's default chain tries first too;
/// the rest of that chain (profiles, SSO, web identity, containers, IMDS) is built only if they
/// are missing. Built up front, it made an STS client at every start.
#[derive(Debug, Default)]
struct EnvFirst {
    env: EnvironmentVariableCredentialsProvider,
    rest: tokio::sync::OnceCell<DefaultCredentialsChain>,
}

impl ProvideCredentials for EnvFirst {
    fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        future::ProvideCredentials::new(async move {
            match self.env.provide_credentials().await {
                Err(CredentialsError::CredentialsNotLoaded(_)) => {
                    let rest = self.rest.get_or_init(|| DefaultCredentialsChain::builder().build()).await;
                    rest.provide_credentials().await
                }
                found => found,
            }
        })
    }
}

/// The SDK's own HTTPS client (rustls on aws-lc, the same cipher suites) trusting the roots
/// compiled into the binary (`webpki-root-certs`: Mozilla's list, which Amazon Linux's bundle is
/// made from too) instead of the system's: the default reads the system's bundle and every file of
/// its certificate folder at start, the largest part of a function's init before.
fn lambda_http_client() -> SharedHttpClient {
    let roots = TrustStore::empty().with_native_roots(false).with_pem_certificate(compiled_in_roots());
    let tls = TlsContext::builder().with_trust_store(roots).build().expect("a TLS context of roots only");
    aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::AwsLc))
        .tls_context(tls)
        .build_https()
}

/// [`lambda_http_client`], built at the first request. The SDK's own builds and drops a TLS
/// connector as each SDK client is made, so that the system's roots are read before any request;
/// with the roots compiled in there is nothing to read early, and that was every root parsed once
/// per SDK client for nothing.
#[derive(Debug, Default)]
struct AtFirstRequest(OnceLock<SharedHttpClient>);

impl HttpClient for AtFirstRequest {
    fn http_connector(&self, settings: &HttpConnectorSettings, components: &RuntimeComponents) -> SharedHttpConnector {
        self.0.get_or_init(lambda_http_client).http_connector(settings, components)
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.0.get_or_init(lambda_http_client).connector_metadata()
    }
}

/// Mozilla's root certificates (`webpki-root-certs`) as the PEM the SDK's trust store takes.
fn compiled_in_roots() -> Vec<u8> {
    use base64::engine::{general_purpose::STANDARD, Engine as _};
    let mut pem = String::with_capacity(300 * 1024);
    for cert in webpki_root_certs::TLS_SERVER_ROOT_CERTS {
        pem.push_str("-----BEGIN CERTIFICATE-----\n");
        for line in STANDARD.encode(cert).as_bytes().chunks(64) {
            pem.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
            pem.push('\n');
        }
        pem.push_str("-----END CERTIFICATE-----\n");
    }
    pem.into_bytes()
}

pub fn table_name() -> String {
    std::env::var("TABLE_NAME").ok().filter(|t| !t.is_empty()).unwrap_or_else(|| DEFAULT_TABLE_NAME.to_owned())
}

/// The secret (name or ARN) holding the key that seals webhook signing secrets.
pub const DEFAULT_WEBHOOK_KEY_SECRET: &str = "billing-service/webhook-master-key";

pub fn webhook_key_secret_id() -> String {
    std::env::var("WEBHOOK_KEY_SECRET_ID")
        .ok()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| DEFAULT_WEBHOOK_KEY_SECRET.to_owned())
}

/// HTTP clients here use rustls with the aws-lc-rs provider (the one the AWS SDK already links,
/// so no second crypto library is built). reqwest needs it installed as the process default
/// before it builds a client without a TLS configuration of its own; this does so, once.
fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when another default is installed already, which serves as well.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    });
}

/// A TLS client configuration that trusts the public roots alone and shows no certificate: what
/// the service's calls to the internet (webhook receivers, the checkout gateway) use.
pub fn public_tls() -> anyhow::Result<rustls::ClientConfig> {
    let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Stores `text` as the secret `id`: a new secret, or a new version of it.
pub async fn put_secret(secrets: &aws_sdk_secretsmanager::Client, id: &str, text: String) -> anyhow::Result<()> {
    use anyhow::Context as _;
    match secrets.create_secret().name(id).secret_string(&text).send().await {
        Ok(_) => Ok(()),
        Err(error) if error.as_service_error().is_some_and(|e| e.is_resource_exists_exception()) => {
            secrets.put_secret_value().secret_id(id).secret_string(text).send().await.context("PutSecretValue")?;
            Ok(())
        }
        Err(error) => Err(anyhow::Error::new(error).context("CreateSecret")),
    }
}

/// A plain HTTP client (the dev server's cache flush, benchmarks, tests).
pub fn http_client() -> reqwest::Client {
    install_crypto_provider();
    reqwest::Client::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::{pem::PemObject, CertificateDer};

    #[test]
    fn the_compiled_in_roots_parse_as_trust_anchors() {
        let pem = compiled_in_roots();
        let certs: Vec<CertificateDer> = CertificateDer::pem_slice_iter(&pem).collect::<Result<_, _>>().expect("PEM");
        assert_eq!(certs.len(), webpki_root_certs::TLS_SERVER_ROOT_CERTS.len());
        assert!(certs.len() > 100, "Mozilla's list has well over a hundred roots");
        let mut store = rustls::RootCertStore::empty();
        let (added, ignored) = store.add_parsable_certificates(certs);
        assert_eq!((added, ignored), (webpki_root_certs::TLS_SERVER_ROOT_CERTS.len(), 0));
    }
}

#[cfg(test)]
mod lambda_tests {
    use super::*;

    #[test]
    fn on_lambda_the_configuration_comes_from_its_variables() {
        let vars = |set: &'static [(&'static str, &'static str)]| {
            move |name: &str| set.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
        };
        let config = lambda_config_from(vars(&[("AWS_REGION", "sa-east-1"), ("AWS_DEFAULT_REGION", "us-east-1")]));
        assert_eq!(config.region().map(|r| r.as_ref()), Some("sa-east-1"));
        assert_eq!(config.endpoint_url(), None);
        assert!(config.credentials_provider().is_some() && config.http_client().is_some());
        assert_eq!(config.retry_config().map(|r| r.max_attempts()), Some(5));
        assert_eq!(config.behavior_version(), Some(BehaviorVersion::latest()));
        let local = lambda_config_from(vars(&[
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"),
        ]));
        assert_eq!(local.region().map(|r| r.as_ref()), Some("us-east-1"));
        assert_eq!(local.endpoint_url(), Some("http://127.0.0.1:4566"));
        assert_eq!(lambda_config_from(vars(&[("AWS_REGION", "")])).region(), None);
    }
}
