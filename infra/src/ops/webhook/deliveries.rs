//! The webhook delivery log of an account, and replays: deliveries sent again with their original
//! ids ([`WebhookOps::deliveries`], [`WebhookOps::replay`]).

use billing_api::values::{AccountId, DeliveryStatus, Timestamp};
use billing_api::webhooks::deliveries::{self, Filter};
use billing_api::webhooks::dispatcher;
use billing_api::webhooks::view::{AttemptView, DeliveryView};
use serde_json::{json, to_value, Value};

use super::receivers::WebhookOps;

impl WebhookOps {
    /// The log, newest first, each delivery with its attempts.
    pub async fn deliveries(&self, account: AccountId, filter: &Filter, limit: usize) -> anyhow::Result<Value> {
        self.require_account(account).await?;
        let (found, more) = deliveries::list(&self.store, account, filter, limit).await?;
        let mut views = Vec::with_capacity(found.len());
        for delivery in &found {
            let attempts = deliveries::attempts(&self.store, delivery).await?;
            let mut view = to_value(DeliveryView::of(delivery))?;
            view["attempts_log"] = to_value(attempts.iter().map(AttemptView::of).collect::<Vec<_>>())?;
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
