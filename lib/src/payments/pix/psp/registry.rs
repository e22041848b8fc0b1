//! The process's PSP clients, one per secret ([`Registry`]), each read again after
//! [`RELOAD_AFTER`] so that a rotated certificate is taken up without a deploy.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::sync::Mutex;

use super::credentials::load;
use super::Psp;

/// How long a process trusts a secret it read: a rotated one is read again after this.
pub const RELOAD_AFTER: Duration = Duration::from_secs(300);

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
