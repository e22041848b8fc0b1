//! The process's provider clients (the card gateway's, each PSP's), one per secret in Secrets
//! Manager ([`Registry`]), each read again after [`RELOAD_AFTER`] so that a rotated key or
//! certificate is taken up without a deploy; credentials read again unchanged keep their client
//! (and the token it holds). A secret holds its credentials as JSON ([`load`], [`store`]).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::Mutex;

/// How long a process trusts a secret it read: a rotated one is read again after this.
pub const RELOAD_AFTER: Duration = Duration::from_secs(300);

/// A provider's client, made from the credentials its secret holds.
pub trait FromSecret: Sized {
    type Credentials: DeserializeOwned + PartialEq;
    /// The secret, as errors name it ("the PSP secret").
    const SECRET: &'static str;
    fn from_credentials(credentials: Self::Credentials) -> anyhow::Result<Self>;
    fn credentials(&self) -> &Self::Credentials;
}

/// The process's clients of one kind, one per secret, read again after [`RELOAD_AFTER`].
pub struct Registry<C> {
    clients: Mutex<HashMap<String, (Arc<C>, Instant)>>,
    secrets: OnceLock<aws_sdk_secretsmanager::Client>,
}

impl<C> Default for Registry<C> {
    fn default() -> Self {
        Registry { clients: Mutex::default(), secrets: OnceLock::new() }
    }
}

impl<C: FromSecret> Registry<C> {
    /// The Secrets Manager client the registry reads with.
    pub async fn secrets(&self) -> aws_sdk_secretsmanager::Client {
        if let Some(client) = self.secrets.get() {
            return client.clone();
        }
        let client = aws_sdk_secretsmanager::Client::new(&crate::config::aws().await);
        self.secrets.get_or_init(|| client).clone()
    }

    /// The client whose credentials are in `secret_id`.
    pub async fn client(&self, secret_id: &str) -> anyhow::Result<Arc<C>> {
        let mut clients = self.clients.lock().await;
        if let Some((client, read_at)) = clients.get(secret_id) {
            if read_at.elapsed() < RELOAD_AFTER {
                return Ok(client.clone());
            }
        }
        let credentials = load::<C::Credentials>(&self.secrets().await, secret_id, C::SECRET).await?;
        let client = match clients.get(secret_id) {
            Some((client, _)) if *client.credentials() == credentials => client.clone(),
            _ => Arc::new(C::from_credentials(credentials).with_context(|| format!("{} {secret_id}", C::SECRET))?),
        };
        clients.insert(secret_id.to_owned(), (client.clone(), Instant::now()));
        Ok(client)
    }

    /// Forgets the client of `secret_id` (its secret just changed).
    pub async fn forget(&self, secret_id: &str) {
        self.clients.lock().await.remove(secret_id);
    }
}

/// The credentials kept in `secret_id` (`what` names the secret in errors).
pub async fn load<T: DeserializeOwned>(
    secrets: &aws_sdk_secretsmanager::Client,
    secret_id: &str,
    what: &str,
) -> anyhow::Result<T> {
    let found = secrets.get_secret_value().secret_id(secret_id).send().await.context("GetSecretValue")?;
    let text = found.secret_string().with_context(|| format!("{what} has no text"))?;
    serde_json::from_str(text).with_context(|| format!("{what} {secret_id} is not the credentials' JSON"))
}

/// Stores credentials (a new secret, or a new version of it).
pub async fn store<T: Serialize>(
    secrets: &aws_sdk_secretsmanager::Client,
    secret_id: &str,
    credentials: &T,
) -> anyhow::Result<()> {
    crate::config::put_secret(secrets, secret_id, serde_json::to_string(credentials)?).await
}
