//! The SQS client and the queues' URLs: which queue each message goes to, and sending it.

use std::sync::{Arc, LazyLock};

use anyhow::Context as _;

use super::lanes::Lanes;
use super::{body, BilletRegistration, BulkExpansion, CardRelease, Cascade, Message, PixCharge, ReceivableSettlement};
use super::{ExportStep, Reminder, ReminderScan, ScheduleCycle, WebhookDelivery};
use crate::values::AccountId;

/// The SQS client, made at the first message: most requests of a function that may enqueue never
/// do, and making a client is a good part of a cold start's init (docs/cold-start.md).
type Sqs = Arc<LazyLock<aws_sdk_sqs::Client, Box<dyn FnOnce() -> aws_sdk_sqs::Client + Send>>>;

/// The SQS client and queue URLs (`BILLET_REGISTRATION_QUEUE_URL`, `BULK_EXPANSION_QUEUE_URL`,
/// `WEBHOOK_DELIVERIES_QUEUE_URL`, `SETTLEMENTS_QUEUE_URL`, `CASCADES_QUEUE_URL`).
///
/// Tenants share each queue fairly. Every message is sent with its account as its message group
/// (`MessageGroupId`): on AWS the standard queues are then SQS fair queues, which keep the dwell
/// time of a quiet tenant's messages low while another tenant has a backlog (one tenant's bulk of
/// 100,000 billings does not delay another's billet or webhook by its length). moto ignores
/// message groups on standard queues, so the local stack keeps a lane per tenant instead
/// ([`Queues::with_tenant_lanes`], `super::lanes`).
#[derive(Clone, Debug)]
pub struct Queues {
    sqs: Sqs,
    billet_registration: String,
    bulk_expansion: Option<String>,
    webhook_deliveries: Option<String>,
    settlements: Option<String>,
    cascades: Option<String>,
    pix_charges: Option<String>,
    card_releases: Option<String>,
    reminders: Option<String>,
    reminder_scans: Option<String>,
    schedule_cycles: Option<String>,
    exports: Option<String>,
    /// The local stack's lanes per tenant, made at their first message; `None` on AWS.
    lanes: Option<Arc<Lanes>>,
}

impl Queues {
    pub fn new(sqs: aws_sdk_sqs::Client, billet_registration: String) -> Self {
        Queues {
            sqs: Arc::new(LazyLock::new(Box::new(move || sqs))),
            billet_registration,
            bulk_expansion: None,
            webhook_deliveries: None,
            settlements: None,
            cascades: None,
            pix_charges: None,
            card_releases: None,
            reminders: None,
            reminder_scans: None,
            schedule_cycles: None,
            exports: None,
            lanes: None,
        }
    }

    pub fn with_bulk_expansion(self, url: String) -> Self {
        Queues { bulk_expansion: Some(url), ..self }
    }

    pub fn with_webhook_deliveries(self, url: String) -> Self {
        Queues { webhook_deliveries: Some(url), ..self }
    }

    pub fn with_settlements(self, url: String) -> Self {
        Queues { settlements: Some(url), ..self }
    }

    pub fn with_cascades(self, url: String) -> Self {
        Queues { cascades: Some(url), ..self }
    }

    pub fn with_pix_charges(self, url: String) -> Self {
        Queues { pix_charges: Some(url), ..self }
    }

    pub fn with_card_releases(self, url: String) -> Self {
        Queues { card_releases: Some(url), ..self }
    }

    pub fn with_reminders(self, url: String) -> Self {
        Queues { reminders: Some(url), ..self }
    }

    pub fn with_reminder_scans(self, url: String) -> Self {
        Queues { reminder_scans: Some(url), ..self }
    }

    pub fn with_schedule_cycles(self, url: String) -> Self {
        Queues { schedule_cycles: Some(url), ..self }
    }

    pub fn with_exports(self, url: String) -> Self {
        Queues { exports: Some(url), ..self }
    }

    /// The local stack's stand-in for fair queues: each tenant's messages go to a lane of their
    /// own beside their queue (made at the first, with the queue's visibility timeout, DLQ and
    /// retention), for a worker that takes the lanes in turn.
    pub fn with_tenant_lanes(self) -> Self {
        Queues { lanes: Some(Arc::default()), ..self }
    }

    /// The queues the environment names; the billet-registration queue is required for the API
    /// functions, the others only where they are used. The SQS client is made at the first
    /// message ([`Sqs`]).
    pub fn from_env(config: &aws_config::SdkConfig) -> Option<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|u| !u.is_empty());
        let billet_registration = var("BILLET_REGISTRATION_QUEUE_URL");
        let webhook_deliveries = var("WEBHOOK_DELIVERIES_QUEUE_URL");
        let settlements = var("SETTLEMENTS_QUEUE_URL");
        let cascades = var("CASCADES_QUEUE_URL");
        let any = billet_registration.is_some()
            || var("REMINDERS_QUEUE_URL").is_some()
            || var("REMINDER_SCANS_QUEUE_URL").is_some()
            || var("SCHEDULE_CYCLES_QUEUE_URL").is_some()
            || webhook_deliveries.is_some()
            || settlements.is_some()
            || cascades.is_some();
        if !any {
            return None;
        }
        let config = config.clone();
        Some(Queues {
            sqs: Arc::new(LazyLock::new(Box::new(move || aws_sdk_sqs::Client::new(&config)))),
            billet_registration: billet_registration.unwrap_or_default(),
            bulk_expansion: var("BULK_EXPANSION_QUEUE_URL"),
            webhook_deliveries,
            settlements,
            cascades,
            pix_charges: var("PIX_CHARGES_QUEUE_URL"),
            card_releases: var("CARD_RELEASES_QUEUE_URL"),
            reminders: var("REMINDERS_QUEUE_URL"),
            reminder_scans: var("REMINDER_SCANS_QUEUE_URL"),
            schedule_cycles: var("SCHEDULE_CYCLES_QUEUE_URL"),
            exports: var("EXPORTS_QUEUE_URL"),
            lanes: None,
        })
    }

    pub async fn send<M: Message>(&self, message: &M) -> anyhow::Result<()> {
        let queue = self.url_of::<M>()?;
        let url = self.lane(queue, message.account()).await?;
        let sent = self.sqs.send_message().queue_url(&url).message_body(body(message)?);
        sent.message_group_id(message.account().to_string()).send().await.context("SendMessage")?;
        self.ring(queue, &url, 0);
        Ok(())
    }

    /// Sends these bodies of `account`'s messages to the queue of the messages of `kind` (a
    /// task's), invisible for `delay_seconds`, ten per `SendMessageBatch`, every batch at once;
    /// fails when any message was refused.
    pub async fn send_bodies(
        &self,
        kind: &str,
        account: AccountId,
        bodies: &[String],
        delay_seconds: u32,
    ) -> anyhow::Result<()> {
        use aws_sdk_sqs::types::SendMessageBatchRequestEntry;
        let queue = self.url_of_kind(kind).with_context(|| format!("no queue for {kind} messages"))?;
        let lane = self.lane(queue, account).await?;
        let url = lane.as_str();
        let group = account.to_string();
        let mut batches = Vec::new();
        for chunk in bodies.chunks(10) {
            let mut entries = Vec::new();
            for (n, body) in chunk.iter().enumerate() {
                let delay = (delay_seconds > 0).then(|| i32::try_from(delay_seconds.min(900)).unwrap_or(900));
                let entry = SendMessageBatchRequestEntry::builder()
                    .id(n.to_string())
                    .message_body(body)
                    .message_group_id(&group)
                    .set_delay_seconds(delay)
                    .build();
                entries.push(entry.context("a batch entry")?);
            }
            batches.push(async move {
                let sent = self.sqs.send_message_batch().queue_url(url).set_entries(Some(entries)).send().await;
                let sent = sent.context("SendMessageBatch")?;
                anyhow::ensure!(sent.failed().is_empty(), "SendMessageBatch refused {} messages", sent.failed().len());
                Ok(())
            });
        }
        let sent = futures::future::try_join_all(batches).await;
        // Rung whatever came of it: a part of the batches may have gone.
        self.ring(queue, url, u64::from(delay_seconds.min(900)));
        sent?;
        Ok(())
    }

    /// Where `account`'s messages for the queue at `url` go: the queue itself, or locally the
    /// tenant's lane beside it (made at its first message).
    async fn lane(&self, url: &str, account: AccountId) -> anyhow::Result<String> {
        match &self.lanes {
            Some(lanes) => lanes.lane(&self.sqs, url, account).await,
            None => Ok(url.to_owned()),
        }
    }

    /// Tells the worker of the queue at `url` that its lane `lane` has a message (local lanes
    /// only: on AWS the event source mapping polls the queue).
    fn ring(&self, url: &str, lane: &str, after_seconds: u64) {
        if let Some(lanes) = &self.lanes {
            let at = tokio::time::Instant::now() + std::time::Duration::from_secs(after_seconds);
            lanes.bell(url).ring_at(lane, at);
        }
    }

    /// The bell the sends to the lanes of the queue at `url` ring, for the worker that takes them
    /// in turn; none without lanes.
    pub fn bell(&self, url: &str) -> Option<std::sync::Arc<super::Bell>> {
        self.lanes.as_ref().map(|lanes| lanes.bell(url))
    }

    /// The URL of the queue of the messages of `kind`, when configured.
    fn url_of_kind(&self, kind: &str) -> Option<&str> {
        let url = match kind {
            BilletRegistration::KIND => Some(self.billet_registration.as_str()),
            BulkExpansion::KIND => self.bulk_expansion.as_deref(),
            WebhookDelivery::KIND => self.webhook_deliveries.as_deref(),
            ReceivableSettlement::KIND => self.settlements.as_deref(),
            Cascade::KIND => self.cascades.as_deref(),
            PixCharge::KIND => self.pix_charges.as_deref(),
            CardRelease::KIND => self.card_releases.as_deref(),
            Reminder::KIND => self.reminders.as_deref(),
            ReminderScan::KIND => self.reminder_scans.as_deref(),
            ScheduleCycle::KIND => self.schedule_cycles.as_deref(),
            ExportStep::KIND => self.exports.as_deref(),
            _ => None,
        };
        url.filter(|url| !url.is_empty())
    }

    fn url_of<M: Message>(&self) -> anyhow::Result<&str> {
        self.url_of_kind(M::KIND).with_context(|| format!("no queue for {} messages", M::KIND))
    }

    /// Keeps a received message of `account` on `M`'s queue invisible for `seconds` more (0 to
    /// 43,200).
    pub async fn hold<M: Message>(&self, account: AccountId, receipt_handle: &str, seconds: i32) -> anyhow::Result<()> {
        let queue = self.url_of::<M>()?;
        let lane = self.lane(queue, account).await?;
        let seconds = seconds.clamp(0, 43_200);
        self.sqs
            .change_message_visibility()
            .queue_url(&lane)
            .receipt_handle(receipt_handle)
            .visibility_timeout(seconds)
            .send()
            .await
            .context("ChangeMessageVisibility")?;
        self.ring(queue, &lane, u64::try_from(seconds).unwrap_or_default());
        Ok(())
    }
}
