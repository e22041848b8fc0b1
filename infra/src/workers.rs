//! The queue workers as the dev server runs them in-process, fed the way the SQS event source
//! mappings feed them on AWS: a receive of up to ten messages, the batch through its worker, the
//! handled ones deleted and the failed ones left to come back after the visibility timeout.
//!
//! On the local stack each tenant has a lane beside each queue (`jobs::Queues::with_tenant_lanes`,
//! the stand-in for SQS fair queues) and [`run_fair_worker`] takes them in turn. It polls only
//! lanes that have work, so that an idle stack of a thousand tenants costs next to nothing:
//! - a lane enters when the queue's bell rings it (every send of this process rings it, a delayed
//!   send or a held message at the moment it becomes visible) or, at start, when its attributes
//!   say it holds messages left from before (one question a lane);
//! - it is polled every turn while it gives messages, then, once it gives none, every so often
//!   (a pause doubling up to [`MAX_PAUSE`]) while it still holds messages in flight or delayed, or
//!   for [`LINGER`] after its last message (a copy of a message SQS delivers late is sent to the
//!   queue again a few seconds later, as the fault proxy does);
//! - then it leaves until it is rung again.
//!
//! Every message of the local stack is sent by the dev server's own process (the ops CLI writes
//! its work to the outbox, which the dev server hands on), so no lane fills unseen.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use billing_api::billings;
use billing_api::jobs::Bell;
use billing_api::store::Store;
use billing_api::webhooks::Sender;
use tokio::time::Instant;

/// How long a lane is still polled after its last message.
pub const LINGER: Duration = Duration::from_secs(10);
/// The first pause before a lane that gave nothing is polled again, and the longest.
const FIRST_PAUSE: Duration = Duration::from_millis(100);
pub const MAX_PAUSE: Duration = Duration::from_secs(30);
/// How long an idle worker waits for its bell before it looks again (it finds nothing to do).
const IDLE_WAIT: Duration = Duration::from_secs(60);

/// A queue consumer, as its Lambda runs it.
#[derive(Clone, Debug)]
pub enum Worker {
    /// `payments::registrar`, on the billet-registration queue.
    BilletRegistrar { store: Store },
    /// `billings::bulk`, on the bulk-expansion queue; it records registrations and next chunks as
    /// tasks.
    BulkExpander { store: Store },
    /// `webhooks::sender`, on the webhook-deliveries queue.
    WebhookSender(Box<Sender>),
    /// `pos::settlements`, on the settlements queue; it records each next chunk and the billing's
    /// registration as tasks.
    Settler { store: Store },
    /// `contacts::cascade`, on the cascades queue: clears a deleted tag or group from its holders,
    /// a chunk per message, and records the next chunk as a task.
    Cascader { store: Store },
    /// `payments::pix`, on the Pix charges queue: removes a billing's charge at its PSP.
    PixCharges { store: Store },
    /// `payments::card::releases`, on the card releases queue: cancels a closed billing's open
    /// card intent at its gateway.
    CardReleases { store: Store },
    /// `schedules::run`, on the schedule cycles queue: issues a schedule's cycle on its day.
    ScheduleIssuer { store: Store },
    /// `reminders::run`, on the reminders queue: scans the due-day index and sends reminders.
    Reminders(Box<Reminders>),
    /// `exports::step`, on the exports queue: writes an export's next part to the bucket.
    Exporter { store: Store, files: billing_api::files::Files },
}

/// What the reminders' worker works with.
#[derive(Clone, Debug)]
pub struct Reminders {
    pub store: Store,
    pub queues: billing_api::jobs::Queues,
    pub providers: billing_api::reminders::providers::Providers,
}

impl Worker {
    fn name(&self) -> &'static str {
        match self {
            Worker::BilletRegistrar { .. } => "billet-registration",
            Worker::BulkExpander { .. } => "bulk-expansion",
            Worker::WebhookSender(_) => "webhook-deliveries",
            Worker::Settler { .. } => "settlements",
            Worker::Cascader { .. } => "cascades",
            Worker::PixCharges { .. } => "pix-charges",
            Worker::CardReleases { .. } => "card-releases",
            Worker::ScheduleIssuer { .. } => "schedule-cycles",
            Worker::Reminders(_) => "reminders",
            Worker::Exporter { .. } => "exports",
        }
    }

    async fn handle(&self, event: SqsEvent) -> SqsBatchResponse {
        // Boxed: the workers' futures are deep enough to overflow the compiler's layout limit.
        match self {
            Worker::BilletRegistrar { store } => {
                Box::pin(billing_api::payments::registrar::handle_batch(store, event)).await
            }
            Worker::BulkExpander { store } => Box::pin(billings::bulk::handle_batch(store, event)).await,
            Worker::WebhookSender(sender) => Box::pin(sender.handle_batch(event)).await,
            Worker::Settler { store } => Box::pin(billing_api::pos::settlements::handle_batch(store, event)).await,
            Worker::Cascader { store } => Box::pin(billing_api::contacts::cascade::handle_batch(store, event)).await,
            Worker::PixCharges { store } => Box::pin(billing_api::payments::pix::handle_batch(store, event)).await,
            Worker::CardReleases { store } => {
                Box::pin(billing_api::payments::card::releases::handle_batch(store, event)).await
            }
            Worker::ScheduleIssuer { store } => Box::pin(billing_api::schedules::run::handle_batch(store, event)).await,
            Worker::Reminders(r) => {
                Box::pin(billing_api::reminders::run::handle_batch(&r.store, &r.queues, &r.providers, event)).await
            }
            Worker::Exporter { store, files } => {
                Box::pin(billing_api::exports::step::handle_batch(store, files, event)).await
            }
        }
    }
}

/// Polls a queue for ever and runs each batch through its worker: handled messages are deleted,
/// failed ones come back after the queue's visibility timeout, and after five receives land in
/// the DLQ.
pub async fn run_worker(sqs: aws_sdk_sqs::Client, queue_url: String, worker: Worker) {
    loop {
        if let Err(error) = worker_round(&sqs, &queue_url, &worker, 1).await {
            tracing::warn!(error = ?error, queue = worker.name(), "could not receive from the queue");
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    }
}

/// [`run_worker`] over a queue and its tenants' lanes (`jobs::Queues::with_tenant_lanes`), the
/// local stack's stand-in for SQS fair queues: one receive (up to 10 messages) from each lane
/// with work in turn, so that a tenant's message waits for one turn of the others' at most,
/// whatever backlog one of them has; `bell` names the lanes sent to (see the module text).
pub async fn run_fair_worker(sqs: aws_sdk_sqs::Client, queue_url: String, worker: Worker, bell: Arc<Bell>) {
    let mut lanes = Lanes::default();
    match lanes_of(&sqs, &queue_url).await {
        Ok(found) => {
            for lane in found {
                if holds_messages(&sqs, &lane, true).await {
                    lanes.enter(lane, None);
                }
            }
        }
        Err(error) => tracing::warn!(error = ?error, queue = worker.name(), "could not list the lanes"),
    }
    loop {
        lanes.hear(&bell);
        let ready = lanes.ready();
        if ready.is_empty() {
            bell.wait(lanes.until_next().unwrap_or(IDLE_WAIT)).await;
            continue;
        }
        for lane in ready {
            match worker_round(&sqs, &lane, &worker, 0).await {
                Ok(round) if !round.bodies.is_empty() => lanes.enter(lane, Some(Instant::now())),
                Ok(_) => lanes.settle(&sqs, lane).await,
                Err(error) => {
                    tracing::warn!(error = ?error, queue = worker.name(), "could not receive from a lane");
                    lanes.pause(lane);
                }
            }
        }
    }
}

/// The lanes a fair worker polls, and the moments the bell said others will have work.
#[derive(Debug, Default)]
struct Lanes {
    polled: BTreeMap<String, Polled>,
    later: BTreeSet<(Instant, String)>,
}

/// When a lane is polled next, the pause it waits after a poll that gave nothing, and when it
/// last gave a message (none: not since the worker started).
#[derive(Debug)]
struct Polled {
    due: Instant,
    pause: Duration,
    worked: Option<Instant>,
}

impl Lanes {
    /// `lane` has work now: polled at the next turn.
    fn enter(&mut self, lane: String, worked: Option<Instant>) {
        let worked = worked.or_else(|| self.polled.get(&lane).and_then(|p| p.worked));
        self.polled.insert(lane, Polled { due: Instant::now(), pause: Duration::ZERO, worked });
    }

    /// What the bell says: lanes with work now, and moments others will have it.
    fn hear(&mut self, bell: &Bell) {
        let now = Instant::now();
        for (lane, at) in bell.take() {
            if at <= now {
                self.enter(lane, Some(now));
            } else {
                self.later.insert((at, lane));
            }
        }
        while let Some((at, lane)) = self.later.first().cloned().filter(|(at, _)| *at <= now) {
            self.later.remove(&(at, lane.clone()));
            self.enter(lane, Some(now));
        }
    }

    /// The lanes due now, in order.
    fn ready(&self) -> Vec<String> {
        let now = Instant::now();
        self.polled.iter().filter(|(_, polled)| polled.due <= now).map(|(lane, _)| lane.clone()).collect()
    }

    /// How long until the next lane is due, or the bell's next moment; none when nothing is.
    fn until_next(&self) -> Option<Duration> {
        let polled = self.polled.values().map(|polled| polled.due);
        let next = polled.chain(self.later.first().map(|(at, _)| *at)).min()?;
        Some(next.saturating_duration_since(Instant::now()))
    }

    /// `lane` gave nothing: it stays, polled after a longer pause, while it lingers after its last
    /// message or holds messages in flight or delayed that the bell will not announce; else it
    /// leaves until it is rung.
    async fn settle(&mut self, sqs: &aws_sdk_sqs::Client, lane: String) {
        let Some(polled) = self.polled.get(&lane) else { return };
        let lingering = polled.worked.is_some_and(|at| at.elapsed() < LINGER);
        let announced = self.later.iter().any(|(_, later)| *later == lane);
        let stays = lingering || (!announced && holds_messages(sqs, &lane, false).await);
        if stays {
            self.pause(lane);
        } else {
            self.polled.remove(&lane);
        }
    }

    /// `lane` is polled again after a pause twice the last one (from [`FIRST_PAUSE`] to
    /// [`MAX_PAUSE`]).
    fn pause(&mut self, lane: String) {
        if let Some(polled) = self.polled.get_mut(&lane) {
            polled.pause = (polled.pause * 2).clamp(FIRST_PAUSE, MAX_PAUSE);
            polled.due = Instant::now() + polled.pause;
        }
    }
}

/// Whether the queue at `url` holds messages in flight or delayed (that a receive does not see
/// yet), and with `visible` also those a receive would take; a failed question counts as yes, so
/// that the lane is polled again.
async fn holds_messages(sqs: &aws_sdk_sqs::Client, url: &str, visible: bool) -> bool {
    use aws_sdk_sqs::types::QueueAttributeName::{
        ApproximateNumberOfMessages, ApproximateNumberOfMessagesDelayed, ApproximateNumberOfMessagesNotVisible,
    };
    let mut asked = sqs
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(ApproximateNumberOfMessagesNotVisible)
        .attribute_names(ApproximateNumberOfMessagesDelayed);
    if visible {
        asked = asked.attribute_names(ApproximateNumberOfMessages);
    }
    let Ok(answer) = asked.send().await else { return true };
    let attributes = answer.attributes.unwrap_or_default();
    attributes.values().any(|count| count.parse::<u64>().map_or(true, |n| n > 0))
}

/// The queue at `queue_url` and its tenants' lanes (`<name>-t<account>`), the queue first.
pub async fn lanes_of(sqs: &aws_sdk_sqs::Client, queue_url: &str) -> anyhow::Result<Vec<String>> {
    let prefix = format!("{}{}", billing_api::jobs::queue_name_of(queue_url), billing_api::jobs::LANE_INFIX);
    let mut lanes = vec![queue_url.to_owned()];
    let mut next: Option<String> = None;
    loop {
        let listed = sqs
            .list_queues()
            .queue_name_prefix(&prefix)
            .max_results(1000)
            .set_next_token(next.take())
            .send()
            .await
            .context("ListQueues")?;
        lanes.extend(listed.queue_urls.unwrap_or_default());
        match listed.next_token {
            Some(token) if !token.is_empty() => next = Some(token),
            _ => break,
        }
    }
    Ok(lanes)
}

/// One turn of the lanes: a receive and its batch from each, in order; what they came to together.
pub async fn fair_turn(sqs: &aws_sdk_sqs::Client, lanes: &[String], worker: &Worker) -> anyhow::Result<Round> {
    let mut turn = Round::default();
    for lane in lanes {
        let round = worker_round(sqs, lane, worker, 0).await?;
        turn.bodies.extend(round.bodies);
        turn.failed += round.failed;
    }
    Ok(turn)
}

/// What one receive and its batch came to.
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// The bodies of the messages received (a message SQS delivered twice counts twice).
    pub bodies: Vec<String>,
    /// How many of them the worker failed (given back to the queue, on their way to its DLQ).
    pub failed: usize,
}

/// One receive (up to 10 messages, waiting up to `wait_seconds` for the first) and its batch, as
/// the event source mapping delivers it.
pub async fn worker_round(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    worker: &Worker,
    wait_seconds: i32,
) -> anyhow::Result<Round> {
    let received = sqs
        .receive_message()
        .queue_url(queue_url)
        .max_number_of_messages(10)
        .wait_time_seconds(wait_seconds)
        .send()
        .await
        .context("ReceiveMessage")?;
    let messages = received.messages.unwrap_or_default();
    if messages.is_empty() {
        return Ok(Round::default());
    }
    let mut event = SqsEvent::default();
    for message in &messages {
        let mut record = SqsMessage::default();
        record.message_id = message.message_id.clone();
        record.receipt_handle = message.receipt_handle.clone();
        record.body = message.body.clone();
        event.records.push(record);
    }
    let response = worker.handle(event).await;
    let failed: Vec<&str> = response.batch_item_failures.iter().map(|f| f.item_identifier.as_str()).collect();
    for message in &messages {
        if failed.contains(&message.message_id.as_deref().unwrap_or_default()) {
            continue;
        }
        if let Some(handle) = &message.receipt_handle {
            sqs.delete_message().queue_url(queue_url).receipt_handle(handle).send().await.context("DeleteMessage")?;
        }
    }
    Ok(Round { bodies: messages.into_iter().map(|m| m.body.unwrap_or_default()).collect(), failed: failed.len() })
}
