//! A delivery's steps, each one conditioned write of the version read: claimed for an attempt
//! (a lease of [`LEASE`]), settled by the attempt's answer, given up without one, or reopened for
//! a new round by a replay.

use std::time::Duration as StdDuration;

use chrono::Duration;

use super::{kept_until, Attempt, Delivery, Schedule};
use crate::store::stored;
use crate::store::{Store, StoreError, StoreResult};
use crate::values::{DeliveryStatus, Timestamp};

/// How long an attempt holds its delivery (a 10 s POST and its writes, with room).
const LEASE: Duration = Duration::seconds(30);

/// Claims a due delivery for one attempt; `None` when another copy of its message got there first.
/// The attempt goes to `url`, the receiver's address now (an account may have changed it since the
/// delivery was made): the delivery and its attempt record where it went.
pub async fn claim(store: &Store, delivery: &Delivery, url: &str, now: Timestamp) -> StoreResult<Option<Delivery>> {
    let mut claimed = delivery.next_version(now);
    claimed.url = url.to_owned();
    claimed.attempts += 1;
    claimed.round_attempts += 1;
    claimed.leased_until = Some(Timestamp(now.0 + LEASE));
    match store.write(vec![delivery.replaced_by(&claimed)?]).await {
        Ok(()) => Ok(Some(claimed)),
        Err(StoreError::ConditionFailed(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

/// What an attempt came to, as the log keeps it.
#[derive(Clone, Debug)]
pub struct Answer {
    pub at: Timestamp,
    pub status: Option<u16>,
    pub latency: StdDuration,
    pub error: Option<String>,
}

/// Records the attempt of a claimed delivery and its consequence, in one transaction: delivered;
/// or pending until the schedule's next wait; or failed when the round's attempts ran out.
pub async fn settle(store: &Store, claimed: &Delivery, answer: &Answer, schedule: &Schedule) -> StoreResult<Delivery> {
    let receiver = claimed.receiver_id;
    let attempt = Attempt {
        delivery_id: claimed.delivery_id.clone(),
        event_id: claimed.event_id.clone(),
        receiver_id: receiver,
        url: claimed.url.clone(),
        attempt: claimed.attempts,
        at: answer.at,
        response_status: answer.status,
        latency_ms: u64::try_from(answer.latency.as_millis()).unwrap_or(u64::MAX),
        error: answer.error.clone(),
        expires_at: kept_until(answer.at),
    };
    let mut next = claimed.next_version(Timestamp::now());
    next.leased_until = None;
    next.last_response_status = answer.status;
    next.last_error = answer.error.clone();
    next.last_attempt_at = Some(answer.at);
    next.last_latency_ms = Some(attempt.latency_ms);
    match (&answer.error, schedule.wait_after(claimed.round_attempts)) {
        (None, _) => {
            next.status = DeliveryStatus::Delivered;
            next.delivered_at = Some(answer.at);
            next.next_attempt_at = None;
        }
        (Some(_), Some(wait)) => {
            let wait = Duration::from_std(wait).unwrap_or(Duration::hours(24));
            next.next_attempt_at = Some(Timestamp(answer.at.0 + wait));
        }
        (Some(_), None) => fail(&mut next, answer.at),
    }
    store.write(vec![stored::put(&attempt, claimed.account_id)?, claimed.replaced_by(&next)?]).await?;
    Ok(next)
}

fn fail(delivery: &mut Delivery, at: Timestamp) {
    delivery.status = DeliveryStatus::Failed;
    delivery.failed_at = Some(at);
    delivery.next_attempt_at = None;
}

/// Gives a pending delivery up without an attempt (its receiver or event is gone): failed, with
/// the reason as its last error. `None` when it changed meanwhile.
pub async fn give_up(store: &Store, delivery: &Delivery, reason: &str) -> StoreResult<Option<Delivery>> {
    let now = Timestamp::now();
    let mut next = delivery.next_version(now);
    next.last_error = Some(reason.to_owned());
    next.leased_until = None;
    fail(&mut next, now);
    match store.write(vec![delivery.replaced_by(&next)?]).await {
        Ok(()) => Ok(Some(next)),
        Err(StoreError::ConditionFailed(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Makes a delivery pending again for a new round of attempts, due now, with its original id.
/// `None` when it changed meanwhile.
pub async fn reopen(store: &Store, delivery: &Delivery) -> StoreResult<Option<Delivery>> {
    let now = Timestamp::now();
    let mut next = delivery.next_version(now);
    next.status = DeliveryStatus::Pending;
    next.round_attempts = 0;
    next.next_attempt_at = Some(now);
    next.leased_until = None;
    next.replayed_at = Some(now);
    // Its message goes out once the delivery is reopened (a task in the same transaction), so a
    // replay that dies half way leaves no pending delivery without a message.
    let message = crate::jobs::WebhookDelivery::new(next.account_id, &next.delivery_id);
    match store.write(vec![delivery.replaced_by(&next)?, crate::jobs::tasks::one(next.account_id, message)?]).await {
        Ok(()) => Ok(Some(next)),
        Err(StoreError::ConditionFailed(_)) => Ok(None),
        Err(error) => Err(error),
    }
}
