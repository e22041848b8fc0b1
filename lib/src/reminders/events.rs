//! The providers' events about reminders, as SNS hands them to the `reminder-events` function:
//! SES's configuration-set events (`Delivery`, `Bounce`, `Complaint`, `Reject`, `DeliveryDelay`)
//! and End User Messaging Social's WhatsApp statuses (`sent`, `delivered`, `read`, `failed`).
//! Each names its delivery by the reference the sender gave it (the e-mail's `reminder` tag, the
//! WhatsApp message's `biz_opaque_callback_data`) and moves that delivery's status
//! (`deliveries::record_outcome`); a hard bounce or a complaint also suppresses the address.
//! An event about nothing of ours (another stack's, a test message) is ignored.

use chrono::{DateTime, TimeZone as _};
use serde_json::Value;

use super::deliveries::{self, Outcome, Status};
use super::providers::REFERENCE_TAG;
use super::suppression::{self, Suppressed};
use crate::store::Store;
use crate::values::Timestamp;

/// What one notification came to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// Deliveries whose status it moved or confirmed.
    pub recorded: usize,
    /// Statuses about no delivery of ours.
    pub ignored: usize,
}

/// Applies one SNS notification's `Message` (SES event or WhatsApp event, JSON text).
pub async fn apply(store: &Store, message: &str) -> anyhow::Result<Applied> {
    let Ok(event) = serde_json::from_str::<Value>(message) else {
        tracing::warn!("a reminder event that is not JSON: ignored");
        return Ok(Applied { ignored: 1, ..Applied::default() });
    };
    let mut applied = Applied::default();
    for (reference, outcome, suppress) in outcomes(&event) {
        match deliveries::record_outcome(store, &reference, &outcome).await? {
            Some(delivery) => {
                applied.recorded += 1;
                if let (Some((reason, detail)), Some(email)) = (suppress, delivery.to.clone()) {
                    let suppressed = Suppressed {
                        account_id: delivery.account_id,
                        email,
                        reason: reason.to_owned(),
                        detail,
                        reference: reference.clone(),
                        suppressed_at: Timestamp::now(),
                    };
                    suppression::suppress(store, &suppressed).await?;
                }
            }
            None => applied.ignored += 1,
        }
    }
    Ok(applied)
}

/// A reference's outcome, and whether (and why) its address is to be suppressed.
type Found = (String, Outcome, Option<(&'static str, Option<String>)>);

/// What an event says, delivery by delivery.
fn outcomes(event: &Value) -> Vec<Found> {
    if let Some(entry) = event.get("whatsAppWebhookEntry") {
        return whatsapp(entry);
    }
    ses(event).into_iter().collect()
}

/// A time in RFC 3339, else now.
fn at(text: Option<&str>) -> Timestamp {
    text.and_then(|t| DateTime::parse_from_rfc3339(t).ok()).map(Timestamp).unwrap_or_else(Timestamp::now)
}

/// An SES event of the configuration set (`eventType`; `notificationType` in identity feedback).
fn ses(event: &Value) -> Option<Found> {
    let kind = event.get("eventType").or_else(|| event.get("notificationType"))?.as_str()?;
    let reference = event.pointer(&format!("/mail/tags/{REFERENCE_TAG}/0"))?.as_str()?.to_owned();
    let text = |pointer: &str| event.pointer(pointer).and_then(Value::as_str);
    let (status, when, error, suppress) = match kind {
        "Delivery" => (Status::Delivered, text("/delivery/timestamp"), None, None),
        "DeliveryDelay" => {
            let why = text("/deliveryDelay/delayType").unwrap_or("unknown");
            (Status::Delayed, text("/deliveryDelay/timestamp"), Some(format!("Entrega atrasada: {why}")), None)
        }
        "Bounce" => {
            let kind = text("/bounce/bounceType").unwrap_or("Undetermined");
            let detail = text("/bounce/bouncedRecipients/0/diagnosticCode")
                .or_else(|| text("/bounce/bounceSubType"))
                .map(str::to_owned);
            let error =
                format!("Devolvido ({kind}){}", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default());
            let suppress = (kind == "Permanent").then_some(("bounce", detail));
            (Status::Bounced, text("/bounce/timestamp"), Some(error), suppress)
        }
        "Complaint" => {
            let kind = text("/complaint/complaintFeedbackType").map(str::to_owned);
            let error = "O destinatário marcou o e-mail como spam".to_owned();
            (Status::Complained, text("/complaint/timestamp"), Some(error), Some(("complaint", kind)))
        }
        "Reject" => {
            let why = text("/reject/reason").unwrap_or("rejected");
            (Status::Rejected, text("/mail/timestamp"), Some(format!("Recusado pelo SES: {why}")), None)
        }
        _ => return None,
    };
    Some((reference, Outcome { status, at: at(when), error }, suppress))
}

/// An End User Messaging Social event: its WhatsApp webhook entry (JSON text, or already an
/// object), each status of each change.
fn whatsapp(entry: &Value) -> Vec<Found> {
    let entry = match entry {
        Value::String(text) => serde_json::from_str::<Value>(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    let mut found = Vec::new();
    let changes = entry.get("changes").and_then(Value::as_array).cloned().unwrap_or_default();
    for change in changes {
        let statuses = change.pointer("/value/statuses").and_then(Value::as_array).cloned().unwrap_or_default();
        for status in statuses {
            let Some(reference) = status.get("biz_opaque_callback_data").and_then(Value::as_str) else { continue };
            let when = status
                .get("timestamp")
                .and_then(|t| t.as_str().and_then(|t| t.parse::<i64>().ok()).or_else(|| t.as_i64()))
                .and_then(|seconds| chrono::Utc.timestamp_opt(seconds, 0).single())
                .map(|t| Timestamp(t.fixed_offset()))
                .unwrap_or_else(Timestamp::now);
            let (state, error) = match status.get("status").and_then(Value::as_str) {
                Some("sent") => (Status::Sent, None),
                Some("delivered") => (Status::Delivered, None),
                Some("read") => (Status::Read, None),
                Some("failed") => {
                    let first = status.pointer("/errors/0");
                    let text = |key: &str| first.and_then(|e| e.pointer(key)).and_then(Value::as_str);
                    let code = first.and_then(|e| e.get("code")).map(|c| c.to_string()).unwrap_or_default();
                    let words = text("/error_data/details").or_else(|| text("/message")).or_else(|| text("/title"));
                    (Status::Failed, Some(format!("WhatsApp {code}: {}", words.unwrap_or("falha na entrega"))))
                }
                _ => continue,
            };
            found.push((reference.to_owned(), Outcome { status: state, at: when, error }, None));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ses_events_name_their_delivery_by_its_tag() {
        let bounce = json!({
            "eventType": "Bounce",
            "mail": {"messageId": "m1", "tags": {"reminder": ["7_12_2026-11-27_email"]}},
            "bounce": {"bounceType": "Permanent", "timestamp": "2026-11-27T10:00:00.000Z",
                       "bouncedRecipients": [{"emailAddress": "x@y.z", "diagnosticCode": "550 5.1.1 user unknown"}]}
        });
        let found = outcomes(&bounce);
        let (reference, outcome, suppress) = &found[0];
        assert_eq!(reference, "7_12_2026-11-27_email");
        assert_eq!(outcome.status, Status::Bounced);
        assert!(outcome.error.as_deref().unwrap().contains("550 5.1.1"));
        assert_eq!(suppress.as_ref().unwrap().0, "bounce");
        let soft = json!({"eventType": "Bounce", "mail": {"tags": {"reminder": ["r"]}}, "bounce": {"bounceType": "Transient"}});
        assert!(outcomes(&soft)[0].2.is_none());
        let delivery = json!({"eventType": "Delivery", "mail": {"tags": {"reminder": ["r"]}}, "delivery": {"timestamp": "2026-11-27T10:00:01Z"}});
        assert_eq!(outcomes(&delivery)[0].1.status, Status::Delivered);
        assert!(outcomes(&json!({"eventType": "Open", "mail": {"tags": {"reminder": ["r"]}}})).is_empty());
        assert!(outcomes(&json!({"eventType": "Delivery", "mail": {}})).is_empty());
    }

    #[test]
    fn whatsapp_statuses_name_their_delivery_by_the_callback_data() {
        let entry = json!({"id": "waba", "changes": [{"field": "messages", "value": {"statuses": [
            {"id": "wamid.1", "status": "delivered", "timestamp": "1764237600", "biz_opaque_callback_data": "7_12_2026-11-27_whatsapp"},
            {"id": "wamid.2", "status": "failed", "timestamp": "1764237601", "biz_opaque_callback_data": "7_13_2026-11-27_whatsapp",
             "errors": [{"code": 131026, "title": "Message undeliverable", "error_data": {"details": "Número sem WhatsApp"}}]},
            {"id": "wamid.3", "status": "sent"}
        ]}}]});
        let event = json!({"context": {}, "whatsAppWebhookEntry": entry.to_string()});
        let found = outcomes(&event);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].1.status, Status::Delivered);
        assert_eq!(found[1].1.status, Status::Failed);
        assert_eq!(found[1].1.error.as_deref(), Some("WhatsApp 131026: Número sem WhatsApp"));
    }
}
