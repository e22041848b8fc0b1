//! The operations on an account's webhook receivers (registered "elsewhere" in the spec's words):
//! [`WebhookOps`], its receivers added, listed, shown, removed, rotated, disabled and enabled.
//! Each operation returns the JSON the CLI prints; a refusal is an error (the CLI prints it and
//! exits with status 1).

use std::sync::Arc;

use anyhow::Context as _;
use billing_api::accounts;
use billing_api::store::Store;
use billing_api::values::{AccountId, WebhookId};
use billing_api::webhooks::view::ReceiverView;
use billing_api::webhooks::{receivers, Policy, SecretBox};
use serde_json::{json, Value};

/// The store, the master key and (for replays) the deliveries queue.
pub struct WebhookOps {
    pub store: Store,
    pub vault: Arc<SecretBox>,
    pub policy: Policy,
}

impl WebhookOps {
    pub(super) async fn require_account(&self, account: AccountId) -> anyhow::Result<()> {
        accounts::find(&self.store, account).await?.with_context(|| format!("no account {account}"))?;
        Ok(())
    }

    /// Registers a receiver of every event type; its secret is printed (and can be shown again
    /// with `show`).
    pub async fn add(&self, account: AccountId, url: &str) -> anyhow::Result<Value> {
        self.register(account, url, None).await
    }

    /// Registers a receiver of these event types (none: every type).
    pub async fn register(
        &self,
        account: AccountId,
        url: &str,
        event_types: Option<Vec<String>>,
    ) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let registration = receivers::Registration { url: url.to_owned(), event_types, disabled: false };
        let (receiver, _) = receivers::register(&self.store, &self.vault, account, &registration, self.policy).await?;
        Ok(json!({
            "webhook": ReceiverView::of(&receiver, &self.vault, true),
            "notice": "Verify each delivery's signature with this secret (Standard Webhooks); `webhook show` prints it again."
        }))
    }

    pub async fn list(&self, account: AccountId) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let found = receivers::list(&self.store, account).await?;
        let views: Vec<ReceiverView> = found.iter().map(|r| ReceiverView::of(r, &self.vault, false)).collect();
        Ok(json!({ "webhooks": views, "limit": receivers::MAX_RECEIVERS }))
    }

    pub async fn show(&self, account: AccountId, id: WebhookId) -> anyhow::Result<Value> {
        let receiver = receivers::find(&self.store, account, id)
            .await?
            .with_context(|| format!("the account has no webhook receiver {id}"))?;
        Ok(json!({ "webhook": ReceiverView::of(&receiver, &self.vault, true) }))
    }

    pub async fn remove(&self, account: AccountId, id: WebhookId) -> anyhow::Result<Value> {
        let receiver = receivers::remove(&self.store, account, id).await?;
        Ok(json!({ "removed": ReceiverView::of(&receiver, &self.vault, false) }))
    }

    pub async fn rotate_secret(&self, account: AccountId, id: WebhookId) -> anyhow::Result<Value> {
        let (receiver, _) = receivers::rotate_secret(&self.store, &self.vault, account, id).await?;
        Ok(json!({
            "webhook": ReceiverView::of(&receiver, &self.vault, true),
            "notice": "Deliveries carry two signatures, the new secret's and the previous one's, until previous_secret_signs_until."
        }))
    }

    pub async fn set_enabled(&self, account: AccountId, id: WebhookId, enabled: bool) -> anyhow::Result<Value> {
        let receiver = receivers::set_enabled(&self.store, account, id, enabled, "disabled by an operator").await?;
        Ok(json!({ "webhook": ReceiverView::of(&receiver, &self.vault, false) }))
    }
}
