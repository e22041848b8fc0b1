//! Queue messages and their producer (DESIGN §6). Each queue has its own message type, so a worker
//! reads only its own kind: a body of another kind, or no message at all, fails and ends in the
//! queue's DLQ after its receive limit.
//!
//! Billet registration (worker `billings::billets::registrar`): every new billing, and every re-issue, asks
//! for its bank billet to be registered:
//! `{"kind": "billet_registration", "account_id": 7, "billing_id": 42, "generation": 1, "requested_at": "<ISO 8601>"}`.
//! `generation` is the billing's registration request it answers (1 on create, one more on each
//! re-issue; 1 when absent). It is idempotent by (account_id, billing_id, generation): the worker
//! issues a billet only while the billing has none for that generation, so a message delivered
//! twice produces one billet, and a message overtaken by a re-issue produces none.
//!
//! Bulk expansion (worker `billings::bulk`):
//! `{"kind": "bulk_expansion", "account_id": 7, "expansion_id": "<uuid>", "after_contact_id": null,
//! "requested_at": "<ISO 8601>"}` (messages of expansions accepted before carry the create body's
//! `billing` object too). One message expands the chunk of contacts after `after_contact_id`
//! (ascending id) when the expansion's cursor names that chunk, and records the next chunk's
//! message with the cursor's move; a copy, or a message naming another chunk, does nothing.
//!
//! Webhook delivery (worker `webhooks::sender`):
//! `{"kind": "webhook_delivery", "account_id": 7, "delivery_id": "dlv_<event>_<receiver>"}`. It
//! names a delivery record, which holds the state: a message delivered twice, or overtaken by a
//! replay, attempts the delivery once (the sender claims it).
//!
//! Receivable settlement (worker `pos::settlements`):
//! `{"kind": "receivable_settlement", "account_id": 7, "reference": "<the settlement's>", "chunk": 0}`.
//! Each message settles a chunk of the open sales and, while sales remain, records the next one's
//! message with the move of the settlement's chunk count; the settlement record holds the state,
//! so a message delivered twice settles nothing twice and sends nothing twice.

use std::fmt::Debug;
use std::sync::{Arc, LazyLock};

use anyhow::{bail, Context as _};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::values::{AccountId, BillingId, ContactId, Timestamp};

pub mod tasks;

/// The message type of one queue.
pub trait Message: Serialize + DeserializeOwned + Debug {
    /// The `kind` every body of this queue carries (which names the queue: `Queues`).
    const KIND: &'static str;

    /// The tenant the message works for: its message group (`Queues`).
    fn account(&self) -> AccountId;
}

/// A billet registration request (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BilletRegistration {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    #[serde(default = "first_generation")]
    pub generation: i64,
    #[serde(default)]
    pub requested_at: String,
}

fn first_generation() -> i64 {
    1
}

impl BilletRegistration {
    pub fn new(account_id: AccountId, billing_id: BillingId, generation: i64) -> Self {
        BilletRegistration { account_id, billing_id, generation, requested_at: Timestamp::now().to_string() }
    }
}

impl Message for BilletRegistration {
    const KIND: &'static str = "billet_registration";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// One chunk of a bulk billing's expansion (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BulkExpansion {
    pub account_id: AccountId,
    pub expansion_id: String,
    /// The `billing` object of the create body, on messages of expansions accepted before the
    /// expansion item kept it (the worker reads it from there now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<serde_json::Value>,
    /// The chunk starts after this contact id (none: from the first contact).
    #[serde(default)]
    pub after_contact_id: Option<ContactId>,
    #[serde(default)]
    pub requested_at: String,
}

impl Message for BulkExpansion {
    const KIND: &'static str = "bulk_expansion";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// A webhook delivery to attempt (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebhookDelivery {
    pub account_id: AccountId,
    pub delivery_id: String,
}

impl WebhookDelivery {
    pub fn new(account_id: AccountId, delivery_id: &str) -> Self {
        WebhookDelivery { account_id, delivery_id: delivery_id.to_owned() }
    }
}

impl Message for WebhookDelivery {
    const KIND: &'static str = "webhook_delivery";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// A chunk of a settlement by transfer (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReceivableSettlement {
    pub account_id: AccountId,
    pub reference: String,
    /// The chunk it runs (0, 1, …): the settlement runs a message only when its own count of
    /// chunks run says this one is next. Absent on messages sent before: such a message runs
    /// whatever chunk is next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<i64>,
}

impl ReceivableSettlement {
    pub fn new(account_id: AccountId, reference: &str, chunk: i64) -> Self {
        ReceivableSettlement { account_id, reference: reference.to_owned(), chunk: Some(chunk) }
    }
}

impl Message for ReceivableSettlement {
    const KIND: &'static str = "receivable_settlement";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// What a deleted tag or group leaves in its contacts, to clear (`contacts::cascade`):
/// `{"kind": "cascade", "account_id": 7, "tag_id": 3, "round": 0}` or `{…, "group_id": 2, …}`.
/// `round` is the chunk it clears (0, 1, …): the cascade runs a message only when its own count
/// of rounds says this one is next (absent on messages sent before: those run as they come).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cascade {
    pub account_id: AccountId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_id: Option<crate::values::TagId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<crate::values::GroupId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<i64>,
}

impl Message for Cascade {
    const KIND: &'static str = "cascade";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// A billing's Pix charge to remove at its PSP (`payments::pix::follow`):
/// `{"kind": "pix_charge", "account_id": 7, "billing_id": 12, "secret_id": "…"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PixCharge {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    /// The secret of the PSP that holds the charge.
    pub secret_id: String,
}

impl Message for PixCharge {
    const KIND: &'static str = "pix_charge";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// A page of the reminders' due-day index to read (`reminders::run`), on the reminder scans
/// queue (the service's work: account 0):
/// `{"kind": "reminder_scan", "account_id": 0, "day": "2026-11-27", "days": -3, "shard": 5, "after": null}`.
/// A scan sends its page's reminders to the reminders queue and then the next page's scan; a copy
/// is harmless: each delivery is written only if absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReminderScan {
    pub day: chrono::NaiveDate,
    pub days: i64,
    pub shard: i64,
    /// Where the page starts: the index's `LastEvaluatedKey` (`gsi1pk`, `gsi1sk`, `pk`, `sk`).
    #[serde(default)]
    pub after: Option<std::collections::BTreeMap<String, String>>,
}

impl Message for ReminderScan {
    const KIND: &'static str = "reminder_scan";

    fn account(&self) -> AccountId {
        AccountId::new(0)
    }
}

/// One billing's reminder of one day to send (`reminders::send`), on the reminders queue under
/// its account:
/// `{"kind": "reminder", "account_id": 7, "billing_id": 12, "day": "2026-11-27", "days": -3, "due_date": "2026-11-30", "channels": ["email"]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reminder {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    pub day: chrono::NaiveDate,
    pub days: i64,
    pub due_date: chrono::NaiveDate,
    pub channels: Vec<String>,
}

impl Message for Reminder {
    const KIND: &'static str = "reminder";

    fn account(&self) -> AccountId {
        self.account_id
    }
}

/// The body of a message: its fields and its `kind`.
pub fn body<M: Message>(message: &M) -> anyhow::Result<String> {
    let mut value = serde_json::to_value(message)?;
    let fields = value.as_object_mut().context("a message is an object")?;
    fields.insert("kind".to_owned(), serde_json::Value::String(M::KIND.to_owned()));
    Ok(value.to_string())
}

/// The message a body holds, when it is one of `M`'s kind.
pub fn parse<M: Message>(body: &str) -> anyhow::Result<M> {
    let value: serde_json::Value = serde_json::from_str(body).context("the body is not JSON")?;
    match value.get("kind").and_then(|k| k.as_str()) {
        Some(kind) if kind == M::KIND => {}
        other => bail!("a message of kind {other:?} on the queue of {}", M::KIND),
    }
    serde_json::from_value(value).with_context(|| format!("not a {} message", M::KIND))
}

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
/// ([`Queues::with_tenant_lanes`]: a queue of its own beside each queue, `<name>-t<account>`) and
/// its workers take one receive from each lane in turn (`infra::dev_server::run_fair_worker`).
#[derive(Clone, Debug)]
pub struct Queues {
    sqs: Sqs,
    billet_registration: String,
    bulk_expansion: Option<String>,
    webhook_deliveries: Option<String>,
    settlements: Option<String>,
    cascades: Option<String>,
    pix_charges: Option<String>,
    reminders: Option<String>,
    reminder_scans: Option<String>,
    /// The local stack's lanes per tenant, made at their first message; `None` on AWS.
    lanes: Option<Arc<Lanes>>,
}

/// The lanes made so far: (queue URL, account) → the lane's URL.
#[derive(Debug, Default)]
struct Lanes(tokio::sync::Mutex<std::collections::HashMap<(String, AccountId), String>>);

/// A queue's redrive policy as JSON, to give a lane. moto answers `GetQueueAttributes` with the
/// policy as a Python dict (`{'deadLetterTargetArn': '…', 'maxReceiveCount': 5}`) and fails
/// (500) a `CreateQueue` given that text back; AWS answers JSON. A policy neither can read is
/// left off: the lane then keeps its messages without a dead-letter queue.
fn redrive_policy(text: &str) -> Option<String> {
    let parsed = serde_json::from_str::<serde_json::Value>(text)
        .or_else(|_| serde_json::from_str::<serde_json::Value>(&text.replace('\'', "\"")));
    match parsed {
        Ok(policy) if policy.get("deadLetterTargetArn").is_some() => Some(policy.to_string()),
        _ => {
            tracing::warn!(policy = text, "a queue's redrive policy that is not JSON: its lanes have none");
            None
        }
    }
}

/// What a lane's name adds to its queue's name, before the account: `billet-registration-t7`.
pub const LANE_INFIX: &str = "-t";

/// The attributes a lane takes from its queue: its visibility timeout, DLQ and retention.
const LANE_ATTRIBUTES: [aws_sdk_sqs::types::QueueAttributeName; 3] = [
    aws_sdk_sqs::types::QueueAttributeName::VisibilityTimeout,
    aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy,
    aws_sdk_sqs::types::QueueAttributeName::MessageRetentionPeriod,
];

/// The name of a queue from its URL (its last path segment).
pub fn queue_name_of(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
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
            reminders: None,
            reminder_scans: None,
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

    pub fn with_reminders(self, url: String) -> Self {
        Queues { reminders: Some(url), ..self }
    }

    pub fn with_reminder_scans(self, url: String) -> Self {
        Queues { reminder_scans: Some(url), ..self }
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
            reminders: var("REMINDERS_QUEUE_URL"),
            reminder_scans: var("REMINDER_SCANS_QUEUE_URL"),
            lanes: None,
        })
    }

    pub async fn send<M: Message>(&self, message: &M) -> anyhow::Result<()> {
        let url = self.lane(self.url_of::<M>()?, message.account()).await?;
        let sent = self.sqs.send_message().queue_url(url).message_body(body(message)?);
        sent.message_group_id(message.account().to_string()).send().await.context("SendMessage")?;
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
        let url = self.url_of_kind(kind).with_context(|| format!("no queue for {kind} messages"))?;
        let url = self.lane(url, account).await?;
        let url = url.as_str();
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
        futures::future::try_join_all(batches).await?;
        Ok(())
    }

    /// Where `account`'s messages for the queue at `url` go: the queue itself, or locally the
    /// tenant's lane beside it (made at its first message).
    async fn lane(&self, url: &str, account: AccountId) -> anyhow::Result<String> {
        let Some(lanes) = &self.lanes else { return Ok(url.to_owned()) };
        let mut made = lanes.0.lock().await;
        if let Some(lane) = made.get(&(url.to_owned(), account)) {
            return Ok(lane.clone());
        }
        let mut asked = self.sqs.get_queue_attributes().queue_url(url);
        for name in LANE_ATTRIBUTES {
            asked = asked.attribute_names(name);
        }
        let mut attributes = asked.send().await.context("GetQueueAttributes")?.attributes.unwrap_or_default();
        let policy = aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy;
        if let Some(text) = attributes.remove(&policy) {
            attributes.extend(redrive_policy(&text).map(|json| (policy, json)));
        }
        let name = format!("{}{LANE_INFIX}{account}", queue_name_of(url));
        let created = self.sqs.create_queue().queue_name(name).set_attributes(Some(attributes)).send().await;
        let lane = created.context("CreateQueue (a tenant's lane)")?.queue_url.context("the lane's URL")?;
        made.insert((url.to_owned(), account), lane.clone());
        Ok(lane)
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
            Reminder::KIND => self.reminders.as_deref(),
            ReminderScan::KIND => self.reminder_scans.as_deref(),
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
        self.sqs
            .change_message_visibility()
            .queue_url(self.lane(self.url_of::<M>()?, account).await?)
            .receipt_handle(receipt_handle)
            .visibility_timeout(seconds.clamp(0, 43_200))
            .send()
            .await
            .context("ChangeMessageVisibility")?;
        Ok(())
    }
}

/// Pauses before a message's handling is tried again in the process, and how long after its
/// start no new try begins (well inside the workers' timeouts, 10 s for the shortest): a throttle
/// or a conflict that outlasted the handler's own retries is mostly over a second later, while a
/// message given back waits out its queue's visibility timeout (a minute or more).
const IN_PROCESS_RETRIES: [std::time::Duration; 3] =
    [std::time::Duration::from_millis(250), std::time::Duration::from_secs(1), std::time::Duration::from_secs(2)];
const IN_PROCESS_WINDOW: std::time::Duration = std::time::Duration::from_secs(6);

/// Handles one message, trying again in the process when it fails (every handler is idempotent
/// per item: a try that failed half way changed nothing a later one does again), a few times
/// within [`IN_PROCESS_WINDOW`]; a panic fails it at once (`crate::panics`).
async fn handle_with_retries<M, T, F, Fut>(handle: &F, message: M, what: &str) -> anyhow::Result<T>
where
    M: Message + Clone,
    F: Fn(M) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let started = tokio::time::Instant::now();
    let mut pauses = IN_PROCESS_RETRIES.iter();
    loop {
        let result = match crate::panics::caught(handle(message.clone())).await {
            Ok(result) => result,
            Err(panicked) => return Err(panicked),
        };
        match (result, pauses.next()) {
            (Err(error), Some(pause)) if started.elapsed() + *pause < IN_PROCESS_WINDOW => {
                tracing::warn!(error = ?error, "{what} failed; trying again in the process");
                tokio::time::sleep(*pause).await;
            }
            (result, _) => return result,
        }
    }
}

/// Runs the messages of an SQS batch through `handle`, all at once (a batch is at most ten); the
/// ids of the messages that failed go back for redelivery (`ReportBatchItemFailures`). A body that
/// is not an `M` fails too, and ends in the DLQ after the queue's receive limit. A message whose
/// handling panics fails alone (`crate::panics`): the others of its batch are done as usual.
pub async fn handle_batch<M, T, F, Fut>(event: SqsEvent, what: &str, handle: F) -> SqsBatchResponse
where
    M: Message + Clone,
    T: Debug,
    F: Fn(M) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let handle = &handle;
    let running = event.records.into_iter().map(|message| async move {
        let id = message.message_id.clone().unwrap_or_default();
        let result = match parse::<M>(message.body.as_deref().unwrap_or_default()) {
            Ok(parsed) => handle_with_retries(handle, parsed, what).await,
            Err(error) => Err(error),
        };
        (id, result)
    });
    let mut response = SqsBatchResponse::default();
    for (id, result) in futures::future::join_all(running).await {
        match result {
            Ok(outcome) => tracing::info!(message_id = %id, ?outcome, "{what} handled"),
            Err(error) => {
                tracing::error!(message_id = %id, error = ?error, "{what} failed");
                response.add_failure(id);
            }
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_takes_its_queues_redrive_policy_as_json() {
        let json = r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:1:d","maxReceiveCount":5}"#;
        assert_eq!(redrive_policy(json).as_deref(), Some(json));
        // moto's answer: a Python dict.
        let moto = "{'deadLetterTargetArn': 'arn:aws:sqs:us-east-1:1:d', 'maxReceiveCount': 5}";
        assert_eq!(redrive_policy(moto).as_deref(), Some(json));
        assert_eq!(redrive_policy("nonsense"), None);
    }

    #[test]
    fn the_message_format() {
        let job = BilletRegistration {
            account_id: AccountId::new(7),
            billing_id: BillingId::new(42),
            generation: 2,
            requested_at: "t".into(),
        };
        let sent: serde_json::Value = serde_json::from_str(&body(&job).unwrap()).unwrap();
        assert_eq!(
            sent,
            serde_json::json!({"kind": "billet_registration", "account_id": 7, "billing_id": 42, "generation": 2, "requested_at": "t"})
        );
        let old: BilletRegistration =
            parse(r#"{"kind":"billet_registration","account_id":7,"billing_id":42,"requested_at":"t"}"#).unwrap();
        assert_eq!(old.generation, 1);
        // Another queue's message is not this queue's.
        assert!(parse::<BilletRegistration>(r#"{"kind":"bulk_expansion","account_id":7}"#).is_err());
        assert!(parse::<BulkExpansion>(&body(&job).unwrap()).is_err());
    }

    fn batch_of(bodies: &[&str]) -> SqsEvent {
        let records = bodies.iter().enumerate().map(|(n, body)| {
            let mut message = aws_lambda_events::event::sqs::SqsMessage::default();
            message.message_id = Some(format!("m{n}"));
            message.body = Some((*body).to_owned());
            message
        });
        let mut event = SqsEvent::default();
        event.records = records.collect();
        event
    }

    #[tokio::test]
    async fn a_message_that_panics_fails_alone_in_its_batch() {
        let message = |id: i64| body(&ReceivableSettlement::new(AccountId::new(id), "r", 0)).unwrap();
        let event = batch_of(&[&message(1), &message(2), &message(3)]);
        let response = handle_batch(event, "test", |message: ReceivableSettlement| async move {
            if message.account_id == AccountId::new(2) {
                panic!("a bug on one message");
            }
            Ok(message.account_id)
        })
        .await;
        let failed: Vec<_> = response.batch_item_failures.iter().map(|f| f.item_identifier.as_str()).collect();
        assert_eq!(failed, ["m1"]);
    }
}
