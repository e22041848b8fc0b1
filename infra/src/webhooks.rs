//! What `infra/ops webhook …` does: receivers (registered "elsewhere" in the spec's words), the
//! delivery log and replays. Each operation returns the JSON the CLI prints; a refusal is an
//! error (the CLI prints it and exits with status 1).

use std::sync::Arc;

use anyhow::Context as _;
use billing_api::accounts;
use billing_api::store::Store;
use billing_api::values::{AccountId, DeliveryStatus, Timestamp, WebhookId};
use billing_api::webhooks::deliveries::{self, Filter};
use billing_api::webhooks::{dispatcher, receivers, Policy, SecretBox};
use serde_json::{json, Value};

/// The store, the master key and (for replays) the deliveries queue.
pub struct WebhookOps {
    pub store: Store,
    pub vault: Arc<SecretBox>,
    pub policy: Policy,
}

impl WebhookOps {
    async fn require_account(&self, account: AccountId) -> anyhow::Result<()> {
        accounts::find(&self.store, account).await?.with_context(|| format!("no account {account}"))?;
        Ok(())
    }

    /// Registers a receiver; its secret is printed (and can be shown again with `show`).
    pub async fn add(&self, account: AccountId, url: &str) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let (receiver, _) = receivers::add(&self.store, &self.vault, account, url, self.policy).await?;
        Ok(json!({
            "webhook": receiver.view(&self.vault, true),
            "notice": "Verify each delivery's signature with this secret (Standard Webhooks); `webhook show` prints it again."
        }))
    }

    pub async fn list(&self, account: AccountId) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let found = receivers::list(&self.store, account).await?;
        let views: Vec<Value> = found.iter().map(|r| r.view(&self.vault, false)).collect();
        Ok(json!({ "webhooks": views, "limit": receivers::MAX_RECEIVERS }))
    }

    pub async fn show(&self, account: AccountId, id: WebhookId) -> anyhow::Result<Value> {
        let receiver = receivers::find(&self.store, account, id)
            .await?
            .with_context(|| format!("the account has no webhook receiver {id}"))?;
        Ok(json!({ "webhook": receiver.view(&self.vault, true) }))
    }

    pub async fn remove(&self, account: AccountId, id: WebhookId) -> anyhow::Result<Value> {
        let receiver = receivers::remove(&self.store, account, id).await?;
        Ok(json!({ "removed": receiver.view(&self.vault, false) }))
    }

    pub async fn rotate_secret(&self, account: AccountId, id: WebhookId) -> anyhow::Result<Value> {
        let (receiver, _) = receivers::rotate_secret(&self.store, &self.vault, account, id).await?;
        Ok(json!({
            "webhook": receiver.view(&self.vault, true),
            "notice": "Deliveries carry two signatures, the new secret's and the previous one's, until previous_secret_signs_until."
        }))
    }

    pub async fn set_enabled(&self, account: AccountId, id: WebhookId, enabled: bool) -> anyhow::Result<Value> {
        let receiver = receivers::set_enabled(&self.store, account, id, enabled, "disabled by an operator").await?;
        Ok(json!({ "webhook": receiver.view(&self.vault, false) }))
    }

    /// The log, newest first, each delivery with its attempts.
    pub async fn deliveries(&self, account: AccountId, filter: &Filter, limit: usize) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let (found, more) = deliveries::list(&self.store, account, filter, limit).await?;
        let mut views = Vec::with_capacity(found.len());
        for delivery in &found {
            let attempts = deliveries::attempts(&self.store, delivery).await?;
            let mut view = delivery.view();
            view["attempts_log"] = attempts.iter().map(|a| a.view()).collect();
            views.push(view);
        }
        Ok(json!({ "deliveries": views, "more": more }))
    }

    /// Sends again, with their original ids, the deliveries of an event or those failed since a
    /// moment (up to `limit` per run; `more` says to run it again).
    pub async fn replay(
        &self,
        account: AccountId,
        event_id: Option<&str>,
        failed_since: Option<Timestamp>,
        limit: usize,
    ) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let filter = match (event_id, failed_since) {
            (Some(event), None) => Filter { event_id: Some(event.to_owned()), ..Filter::default() },
            (None, Some(since)) => {
                Filter { status: Some(DeliveryStatus::Failed), failed_since: Some(since), ..Filter::default() }
            }
            _ => anyhow::bail!("give either --event or --failed-since"),
        };
        let (found, more) = deliveries::list(&self.store, account, &filter, limit).await?;
        if found.is_empty() && event_id.is_some() {
            anyhow::bail!("no deliveries of event {} in the account (kept 30 days)", event_id.unwrap_or_default());
        }
        let replayed = dispatcher::replay(&self.store, found).await?;
        Ok(json!({ "replayed": replayed.delivery_ids, "skipped_pending": replayed.skipped, "more": more }))
    }
}
