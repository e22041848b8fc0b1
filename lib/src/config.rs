//! Configuration from the environment. The same binaries run on AWS and against the local stack:
//! the SDK honours the standard `AWS_ENDPOINT_URL*` variables.

use aws_config::{BehaviorVersion, SdkConfig};

pub const DEFAULT_TABLE_NAME: &str = "billing-service";

pub async fn aws() -> SdkConfig {
    aws_config::load_defaults(BehaviorVersion::latest()).await
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
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when another default is installed already, which serves as well.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    });
}

/// A plain HTTP client (the dev server's cache flush, benchmarks, tests).
pub fn http_client() -> reqwest::Client {
    install_crypto_provider();
    reqwest::Client::new()
}
