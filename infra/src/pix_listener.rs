//! The dev server's Pix webhook listener: the PSP's `POST .../pix` over mutual TLS, as the
//! template's custom domain takes it on AWS (`PixWebhookDomain`, its truststore the PSP's CA
//! chain). A client without a certificate of `PIX_WEBHOOK_CA` is refused in the handshake, before
//! any HTTP.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;

/// How long a handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the listener's certificates are.
#[derive(Clone, Debug)]
pub struct PixTls {
    /// The PSP's CA chain (PEM): who may call.
    pub ca: std::path::PathBuf,
    /// The listener's own certificate and key (PEM).
    pub certificate: std::path::PathBuf,
    pub key: std::path::PathBuf,
}

impl PixTls {
    /// From `PIX_WEBHOOK_CA`, `PIX_WEBHOOK_CERT` and `PIX_WEBHOOK_KEY`, or from the local stack's
    /// certificates in `LOCAL_PIX_CERTS` (infra/lib.sh `start_pix`); none when neither is set.
    pub fn from_env() -> Option<PixTls> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        if let (Some(ca), Some(certificate), Some(key)) =
            (var("PIX_WEBHOOK_CA"), var("PIX_WEBHOOK_CERT"), var("PIX_WEBHOOK_KEY"))
        {
            return Some(PixTls { ca: ca.into(), certificate: certificate.into(), key: key.into() });
        }
        let dir = std::path::PathBuf::from(var("LOCAL_PIX_CERTS")?);
        Some(PixTls {
            ca: dir.join("ca.pem"),
            certificate: dir.join("webhook-server.pem"),
            key: dir.join("webhook-server.key"),
        })
    }

    /// The server configuration: its certificate, and client certificates of the CA required.
    pub fn server_config(&self) -> anyhow::Result<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(&self.ca).context("the PSP's CA chain")? {
            roots.add(cert?)?;
        }
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .context("the client verifier")?;
        let chain = CertificateDer::pem_file_iter(&self.certificate)
            .context("the listener's certificate")?
            .collect::<Result<Vec<_>, _>>()?;
        let key = PrivateKeyDer::from_pem_file(&self.key).context("the listener's key")?;
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain, key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(config)
    }
}

/// The webhook's router, as the Lambda serves it.
pub fn router(state: billing_api::app::AppState) -> Router {
    billing_api::http::routing::finish(billing_api::payments::pix::routes::routes().with_state(state))
}

/// Serves `router` on `listener` over mutual TLS, for ever, with at most the dev server's bound of
/// connections at once (`dev_server::max_connections`; one more is closed at once: a TLS client
/// cannot be answered before its handshake), each served as the dev server serves its own
/// (`dev_server::serve_connection`).
pub async fn serve(listener: TcpListener, router: Router, tls: rustls::ServerConfig) {
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    let slots = Arc::new(tokio::sync::Semaphore::new(crate::dev_server::max_connections()));
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else { continue };
        let (acceptor, router) = (acceptor.clone(), router.clone());
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(stream)) => crate::dev_server::serve_connection(stream, router, peer).await,
                Ok(Err(error)) => {
                    tracing::info!(error = %error, "a Pix webhook connection refused in the TLS handshake")
                }
                Err(_) => {}
            }
            drop(slot);
        });
    }
}
