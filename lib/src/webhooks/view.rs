//! Receivers, deliveries and attempts as operators see them (`infra/ops webhook …`), and as the
//! API shows them to the account (`/v1/webhooks`, `/v1/webhook_deliveries`).

use serde::Serialize;

use super::deliveries::{Attempt, Delivery};
use super::receivers::Receiver;
use super::secrets::{SecretBox, SigningSecret};
use crate::values::{DeliveryStatus, Timestamp, WebhookId};

/// A receiver; its secret in full only when `reveal` (add, rotate, show), masked otherwise.
#[derive(Debug, Serialize)]
pub struct ReceiverView<'a> {
    id: WebhookId,
    url: &'a str,
    secret: String,
    status: &'static str,
    event_types: Vec<String>,
    disabled_reason: Option<&'a str>,
    disabled_at: Option<Timestamp>,
    failing_since: Option<Timestamp>,
    previous_secret_signs_until: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl<'a> ReceiverView<'a> {
    pub fn of(receiver: &'a Receiver, vault: &SecretBox, reveal: bool) -> Self {
        let secret = match vault.open(receiver.account_id, receiver.id, &receiver.secret) {
            Ok(secret) if reveal => secret.expose().to_owned(),
            Ok(secret) => secret.masked(),
            Err(error) => format!("(cannot be opened: {error})"),
        };
        let previous_secret_signs_until =
            receiver.previous_secret_expires_at.filter(|until| Timestamp::now().0 < until.0);
        ReceiverView {
            id: receiver.id,
            url: &receiver.url,
            secret,
            status: if receiver.enabled { "enabled" } else { "disabled" },
            event_types: receiver.event_types(),
            disabled_reason: receiver.disabled_reason.as_deref(),
            disabled_at: receiver.disabled_at,
            failing_since: receiver.failing_since,
            previous_secret_signs_until,
            created_at: receiver.created_at,
            updated_at: receiver.updated_at,
        }
    }
}

/// A delivery in the log: where it stands, and when it is tried next while pending.
#[derive(Debug, Serialize)]
pub struct DeliveryView<'a> {
    delivery_id: &'a str,
    event_id: &'a str,
    event_type: &'a str,
    receiver_id: WebhookId,
    url: &'a str,
    status: DeliveryStatus,
    attempts: u32,
    next_attempt_at: Option<Timestamp>,
    last_response_status: Option<u16>,
    last_error: Option<&'a str>,
    created_at: Timestamp,
    delivered_at: Option<Timestamp>,
    failed_at: Option<Timestamp>,
    replayed_at: Option<Timestamp>,
}

impl<'a> DeliveryView<'a> {
    pub fn of(delivery: &'a Delivery) -> Self {
        DeliveryView {
            delivery_id: &delivery.delivery_id,
            event_id: &delivery.event_id,
            event_type: &delivery.event_type,
            receiver_id: delivery.receiver_id,
            url: &delivery.url,
            status: delivery.status,
            attempts: delivery.attempts,
            next_attempt_at: delivery.next_attempt_at.filter(|_| delivery.status == DeliveryStatus::Pending),
            last_response_status: delivery.last_response_status,
            last_error: delivery.last_error.as_deref(),
            created_at: delivery.created_at,
            delivered_at: delivery.delivered_at,
            failed_at: delivery.failed_at,
            replayed_at: delivery.replayed_at,
        }
    }
}

/// One attempt of a delivery.
#[derive(Debug, Serialize)]
pub struct AttemptView<'a> {
    attempt: u32,
    at: Timestamp,
    response_status: Option<u16>,
    latency_ms: u64,
    error: Option<&'a str>,
}

impl<'a> AttemptView<'a> {
    pub fn of(attempt: &'a Attempt) -> Self {
        AttemptView {
            attempt: attempt.attempt,
            at: attempt.at,
            response_status: attempt.response_status,
            latency_ms: attempt.latency_ms,
            error: attempt.error.as_deref(),
        }
    }
}

/// A receiver as the API shows it (`/v1/webhooks`): its secret in full only in the answers of
/// create and `rotate_secret` (`revealed`), masked (`whsec_…AbCd`) everywhere else.
#[derive(Debug, Serialize)]
pub struct WebhookView<'a> {
    id: WebhookId,
    url: &'a str,
    event_types: Vec<String>,
    enabled: bool,
    /// Why the service disabled it (three days of failures, an operator); null when enabled or
    /// disabled by the account.
    disabled_reason: Option<&'a str>,
    disabled_at: Option<Timestamp>,
    failing_since: Option<Timestamp>,
    secret: String,
    previous_secret_signs_until: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl<'a> WebhookView<'a> {
    /// With the secret masked: opened to show its last characters.
    pub fn masked(receiver: &'a Receiver, vault: &SecretBox) -> Self {
        let secret = match vault.open(receiver.account_id, receiver.id, &receiver.secret) {
            Ok(secret) => secret.masked(),
            Err(error) => {
                tracing::error!(error = ?error, receiver = receiver.id.get(), "a signing secret does not open");
                format!("{}…", super::secrets::PREFIX)
            }
        };
        WebhookView::with_secret(receiver, secret)
    }

    /// With the secret in full (just made, or rotated).
    pub fn revealed(receiver: &'a Receiver, secret: &SigningSecret) -> Self {
        WebhookView::with_secret(receiver, secret.expose().to_owned())
    }

    /// With this secret masked (what an idempotent replay of a create or rotation shows).
    pub fn masking(receiver: &'a Receiver, secret: &SigningSecret) -> Self {
        WebhookView::with_secret(receiver, secret.masked())
    }

    fn with_secret(receiver: &'a Receiver, secret: String) -> Self {
        WebhookView {
            id: receiver.id,
            url: &receiver.url,
            event_types: receiver.event_types(),
            enabled: receiver.enabled,
            disabled_reason: receiver.disabled_reason.as_deref().filter(|_| !receiver.enabled),
            disabled_at: receiver.disabled_at.filter(|_| !receiver.enabled),
            failing_since: receiver.failing_since,
            secret,
            previous_secret_signs_until: receiver
                .previous_secret_expires_at
                .filter(|until| Timestamp::now().0 < until.0),
            created_at: receiver.created_at,
            updated_at: receiver.updated_at,
        }
    }
}

/// A delivery as the API shows it (`/v1/webhook_deliveries`): where it stands, its last attempt
/// and, while pending, when it is tried next; a single delivery also lists every attempt.
#[derive(Debug, Serialize)]
pub struct WebhookDeliveryView<'a> {
    id: &'a str,
    event_id: &'a str,
    event_type: &'a str,
    webhook_id: WebhookId,
    url: &'a str,
    status: DeliveryStatus,
    attempts_count: u32,
    next_attempt_at: Option<Timestamp>,
    last_attempt_at: Option<Timestamp>,
    last_response_status: Option<u16>,
    last_latency_ms: Option<u64>,
    last_error: Option<&'a str>,
    created_at: Timestamp,
    updated_at: Timestamp,
    delivered_at: Option<Timestamp>,
    failed_at: Option<Timestamp>,
    replayed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attempts: Option<Vec<AttemptView<'a>>>,
}

impl<'a> WebhookDeliveryView<'a> {
    /// As a list shows it: its last attempt, no log.
    pub fn of(delivery: &'a Delivery) -> Self {
        WebhookDeliveryView {
            id: &delivery.delivery_id,
            event_id: &delivery.event_id,
            event_type: &delivery.event_type,
            webhook_id: delivery.receiver_id,
            url: &delivery.url,
            status: delivery.status,
            attempts_count: delivery.attempts,
            next_attempt_at: delivery.next_attempt_at.filter(|_| delivery.status == DeliveryStatus::Pending),
            last_attempt_at: delivery.last_attempt_at,
            last_response_status: delivery.last_response_status,
            last_latency_ms: delivery.last_latency_ms,
            last_error: delivery.last_error.as_deref(),
            created_at: delivery.created_at,
            updated_at: delivery.updated_at,
            delivered_at: delivery.delivered_at,
            failed_at: delivery.failed_at,
            replayed_at: delivery.replayed_at,
            attempts: None,
        }
    }

    /// As `GET /v1/webhook_deliveries/{id}` shows it: with every attempt, in order.
    pub fn with_attempts(delivery: &'a Delivery, attempts: &'a [Attempt]) -> Self {
        WebhookDeliveryView { attempts: Some(attempts.iter().map(AttemptView::of).collect()), ..Self::of(delivery) }
    }
}
