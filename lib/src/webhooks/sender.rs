//! The sender: the consumer of the `webhook-deliveries` queue. A message names a delivery
//! (`{"kind": "webhook_delivery", "account_id", "delivery_id"}`); for it the sender:
//!
//! 1. reads the delivery; nothing to do when it is gone, `delivered` or `failed`;
//! 2. when it is not yet due (a retry's wait, or another attempt's lease), holds the message:
//!    its visibility is set to the time left (at most 12 hours, SQS's limit) and it is reported
//!    failed, so SQS hands it over again then. SQS delays stop at 15 minutes; holding the received
//!    message is how the waits of hours are made, with no extra message and no scheduler;
//! 3. fails the delivery when its receiver was removed or disabled, or its event expired;
//! 4. claims it (one attempt at a time), signs the event's body with the receiver's secrets and
//!    POSTs it ([`super::client`]), records the attempt, and settles the delivery: `delivered`
//!    on `2xx`; otherwise pending until the next wait of the schedule (the message held until
//!    then), or `failed` after the last attempt (the message is done; replay sends it again);
//! 5. keeps the receiver's failure streak: its first failure is noted, a success clears it, and
//!    a receiver failing for three days in a row is disabled.
//!
//! The queue's receive limit (`maxReceiveCount` 30) is above the receives a whole schedule takes
//! (ten attempts and the holds of the waits over 12 hours), so a message reaches the DLQ only
//! when the sender itself keeps failing on it (runbook: redrive it once the cause is fixed).

use std::sync::Arc;
use std::time::Duration as StdDuration;

use anyhow::Context as _;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};

use super::client::Client;
use super::deliveries::{self, Answer, Delivery, Schedule};
use super::receivers::{self, Receiver};
use super::secrets::SecretBox;
use super::signature;
use crate::events;
use crate::jobs::{self, Queues, WebhookDelivery};
use crate::store::Store;
use crate::values::{AccountId, DeliveryStatus, Timestamp};

/// SQS's longest visibility timeout.
const MAX_HOLD: StdDuration = StdDuration::from_secs(12 * 3600);

/// What one message came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Delivered {
        attempt: u32,
    },
    /// Attempted and failed; tried again at this time.
    Retrying {
        attempt: u32,
        at: Timestamp,
    },
    /// Failed for good (after the last attempt, or without one: the reason).
    Failed {
        reason: String,
    },
    /// Not due yet: held until then.
    Held {
        until: Timestamp,
    },
    /// Nothing to do (gone, already delivered or failed).
    Done(&'static str),
}

/// Everything the sender needs; cheap to clone (one per process).
#[derive(Clone, Debug)]
pub struct Sender {
    pub store: Store,
    pub queues: Queues,
    pub vault: Arc<SecretBox>,
    pub client: Client,
    pub schedule: Schedule,
}

impl Sender {
    /// Handles one SQS batch, its messages concurrently. Messages to hold (not due, or to retry
    /// later) get their visibility moved to when they are due and are reported failed.
    pub async fn handle_batch(&self, event: SqsEvent) -> SqsBatchResponse {
        let mut running = tokio::task::JoinSet::new();
        for message in event.records {
            let sender = self.clone();
            running.spawn(async move {
                // Caught here, not at the join: a panicked task would lose which message it was.
                let result = crate::panics::caught(sender.handle_message(&message)).await.and_then(|result| result);
                (message, result)
            });
        }
        let mut response = SqsBatchResponse::default();
        while let Some(joined) = running.join_next().await {
            let Ok((message, result)) = joined else {
                tracing::error!("a delivery task was cancelled");
                continue;
            };
            let id = message.message_id.clone().unwrap_or_default();
            match result {
                Ok(outcome) => {
                    tracing::info!(message_id = %id, ?outcome, "webhook delivery handled");
                    if let Some(until) = hold_until(&outcome) {
                        self.hold(&message, until).await;
                        response.add_failure(id);
                    }
                }
                Err(error) => {
                    tracing::error!(message_id = %id, error = ?error, "webhook delivery failed");
                    response.add_failure(id);
                }
            }
        }
        response
    }

    async fn handle_message(&self, message: &SqsMessage) -> anyhow::Result<Outcome> {
        let parsed: WebhookDelivery = jobs::parse(message.body.as_deref().unwrap_or_default())?;
        self.deliver(parsed.account_id, &parsed.delivery_id).await
    }

    /// Moves the message's visibility to `until` (at most 12 hours on).
    async fn hold(&self, message: &SqsMessage, until: Timestamp) {
        let left = (until.0 - Timestamp::now().0).to_std().unwrap_or_default();
        let seconds = left.min(MAX_HOLD).as_secs_f64().ceil().max(1.0) as i32;
        let parsed = jobs::parse::<WebhookDelivery>(message.body.as_deref().unwrap_or_default());
        if let (Some(handle), Ok(parsed)) = (&message.receipt_handle, parsed) {
            if let Err(error) = self.queues.hold::<WebhookDelivery>(parsed.account_id, handle, seconds).await {
                tracing::warn!(error = ?error, "could not hold the message; it returns after the queue's visibility timeout");
            }
        }
    }

    /// Steps 1 to 5 of the module text for one delivery.
    pub async fn deliver(&self, account: AccountId, delivery_id: &str) -> anyhow::Result<Outcome> {
        let Some(delivery) = deliveries::find(&self.store, account, delivery_id).await? else {
            return Ok(Outcome::Done("no such delivery"));
        };
        if delivery.status != DeliveryStatus::Pending {
            return Ok(Outcome::Done("already settled"));
        }
        let now = Timestamp::now();
        if let Some(due) = delivery.due_at().filter(|due| due.0 > now.0) {
            return Ok(Outcome::Held { until: due });
        }
        let receiver = match receivers::find(&self.store, account, delivery.receiver_id).await? {
            Some(receiver) if receiver.enabled => receiver,
            Some(receiver) => {
                let reason =
                    format!("receiver disabled: {}", receiver.disabled_reason.as_deref().unwrap_or("by an operator"));
                return self.give_up(&delivery, reason).await;
            }
            None => return self.give_up(&delivery, "receiver removed".to_owned()).await,
        };
        let Some((pk, sk)) = delivery.event_keys() else {
            return self.give_up(&delivery, "not an event id".into()).await;
        };
        let Some(event) = events::read(&self.store, pk, sk).await? else {
            return self.give_up(&delivery, "event expired".to_owned()).await;
        };
        let Some(claimed) = deliveries::claim(&self.store, &delivery, &receiver.url, now).await? else {
            // Another copy of the message claimed it: look again once its lease is over.
            let until = deliveries::find(&self.store, account, delivery_id).await?.and_then(|d| d.due_at());
            return Ok(match until {
                Some(until) => Outcome::Held { until },
                None => Outcome::Done("settled by another attempt"),
            });
        };
        let answer = self.attempt(&receiver, &claimed, &event.body).await?;
        let settled = deliveries::settle(&self.store, &claimed, &answer, &self.schedule).await?;
        let streak = match answer.error {
            None => receivers::record_success(&self.store, &receiver).await,
            Some(_) => receivers::record_failure(&self.store, &receiver, answer.at).await,
        };
        if let Err(error) = streak {
            tracing::warn!(error = ?error, receiver = receiver.id.get(), "could not record the receiver's streak");
        }
        Ok(match settled.status {
            DeliveryStatus::Delivered => Outcome::Delivered { attempt: claimed.attempts },
            DeliveryStatus::Pending => {
                Outcome::Retrying { attempt: claimed.attempts, at: settled.next_attempt_at.unwrap_or(answer.at) }
            }
            DeliveryStatus::Failed => Outcome::Failed {
                reason: format!("{} attempts: {}", claimed.attempts, answer.error.unwrap_or_default()),
            },
        })
    }

    /// One signed POST.
    async fn attempt(&self, receiver: &Receiver, delivery: &Delivery, body: &str) -> anyhow::Result<Answer> {
        let at = Timestamp::now();
        let secrets = receiver.signing_secrets(&self.vault, at).context("the receiver's secret")?;
        let timestamp = at.0.timestamp();
        let signed = signature::signature_header(&secrets, &delivery.delivery_id, timestamp, body);
        let headers = signature::headers(&delivery.delivery_id, timestamp, &signed);
        let response = self.client.post(&receiver.url, &headers, body.to_owned()).await;
        Ok(Answer { at, status: response.status, latency: response.latency, error: response.error })
    }

    async fn give_up(&self, delivery: &Delivery, reason: String) -> anyhow::Result<Outcome> {
        deliveries::give_up(&self.store, delivery, &reason).await?;
        Ok(Outcome::Failed { reason })
    }
}

/// Until when a message waits before its next receive, when it must.
fn hold_until(outcome: &Outcome) -> Option<Timestamp> {
    match outcome {
        Outcome::Held { until } | Outcome::Retrying { at: until, .. } => Some(*until),
        _ => None,
    }
}
