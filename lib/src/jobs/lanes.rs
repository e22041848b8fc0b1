//! The local stack's stand-in for SQS fair queues. moto ignores message groups, so the local
//! stack keeps a lane (a queue of its own, `<name>-t<account>`) per tenant beside each queue, made
//! at the tenant's first message with the queue's visibility timeout, DLQ and retention, and its
//! workers take the lanes in turn (`infra::workers::run_fair_worker`).
//!
//! A worker polls only the lanes that have work: each queue has a [`Bell`] that every send to one
//! of its lanes rings with that lane, so that an idle stack of a thousand tenants makes no call at
//! all (a worker that listed and received from every lane in turn kept moto busy at rest).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use anyhow::Context as _;

use crate::values::AccountId;

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

/// The lanes made so far, and each queue's bell.
#[derive(Debug, Default)]
pub(super) struct Lanes {
    /// (queue URL, account) → the lane's URL.
    made: tokio::sync::Mutex<HashMap<(String, AccountId), String>>,
    /// Queue URL → the bell its lanes' sends ring.
    bells: Mutex<HashMap<String, Arc<Bell>>>,
}

impl Lanes {
    /// The lane of `account` beside the queue at `url`, made at its first message.
    pub(super) async fn lane(
        &self,
        sqs: &aws_sdk_sqs::Client,
        url: &str,
        account: AccountId,
    ) -> anyhow::Result<String> {
        let mut made = self.made.lock().await;
        if let Some(lane) = made.get(&(url.to_owned(), account)) {
            return Ok(lane.clone());
        }
        let mut asked = sqs.get_queue_attributes().queue_url(url);
        for name in LANE_ATTRIBUTES {
            asked = asked.attribute_names(name);
        }
        let mut attributes = asked.send().await.context("GetQueueAttributes")?.attributes.unwrap_or_default();
        let policy = aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy;
        if let Some(text) = attributes.remove(&policy) {
            attributes.extend(redrive_policy(&text).map(|json| (policy, json)));
        }
        let name = format!("{}{LANE_INFIX}{account}", queue_name_of(url));
        let created = sqs.create_queue().queue_name(&name).set_attributes(Some(attributes)).send().await;
        let lane = match created {
            Ok(created) => created.queue_url.context("the lane's URL")?,
            // There already, made with other settings (its queue's changed since): it is the lane.
            Err(error) if error.as_service_error().is_some_and(|e| e.is_queue_name_exists()) => {
                let found =
                    sqs.get_queue_url().queue_name(&name).send().await.context("GetQueueUrl (a tenant's lane)")?;
                found.queue_url.context("the lane's URL")?
            }
            Err(error) => return Err(anyhow::Error::new(error).context("CreateQueue (a tenant's lane)")),
        };
        made.insert((url.to_owned(), account), lane.clone());
        Ok(lane)
    }

    /// The bell of the queue at `url`.
    pub(super) fn bell(&self, url: &str) -> Arc<Bell> {
        let mut bells = self.bells.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        bells.entry(url.to_owned()).or_default().clone()
    }
}

/// The lanes of one queue sent to since its worker last looked, each with when its message is
/// visible (at once, or after a delay or a hold), and a wake-up for the worker.
#[derive(Debug, Default)]
pub struct Bell {
    rung: Mutex<Vec<(String, Instant)>>,
    notify: tokio::sync::Notify,
}

impl Bell {
    /// A message went to `lane`, visible at once.
    pub fn ring(&self, lane: &str) {
        self.ring_at(lane, Instant::now());
    }

    /// A message of `lane` is visible from `at` on (a delayed send, a held message).
    pub fn ring_at(&self, lane: &str, at: Instant) {
        self.rung.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((lane.to_owned(), at));
        self.notify.notify_one();
    }

    /// The lanes rung since the last call, with when each message is visible, in the order rung.
    pub fn take(&self) -> Vec<(String, Instant)> {
        std::mem::take(&mut *self.rung.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Waits until the bell rings (at once if it rang since the last wait) or `at_most` passes.
    pub async fn wait(&self, at_most: std::time::Duration) {
        let _ = tokio::time::timeout(at_most, self.notify.notified()).await;
    }
}

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

    #[tokio::test(start_paused = true)]
    async fn a_bell_rung_before_the_wait_wakes_it_at_once_and_names_its_lanes() {
        let bell = Bell::default();
        bell.ring("q-t1");
        bell.ring("q-t2");
        bell.ring("q-t1");
        let started = tokio::time::Instant::now();
        bell.wait(std::time::Duration::from_secs(5)).await;
        assert_eq!(started.elapsed(), std::time::Duration::ZERO, "woken by the ring, not the timeout");
        bell.wait(std::time::Duration::from_secs(5)).await;
        assert_eq!(started.elapsed(), std::time::Duration::from_secs(5), "no ring since: the timeout");
        let rung: Vec<String> = bell.take().into_iter().map(|(lane, _)| lane).collect();
        assert_eq!(rung, ["q-t1", "q-t2", "q-t1"]);
        assert!(bell.take().is_empty());
    }
}
