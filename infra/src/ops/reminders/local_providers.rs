//! What the reminders' providers publish on AWS that the local stack's moto does not: SES's
//! configuration-set events and End User Messaging Social's WhatsApp statuses, built as they build
//! them and handed to the same handler as the `reminder-events` function's SNS notifications (the
//! local stack and the tests; nothing here is in the service).

use anyhow::Context as _;
use billing_api::reminders::deliveries::{self, Delivery};
use billing_api::reminders::schedule::Channel;
use billing_api::reminders::{events, providers};
use billing_api::store::Store;
use billing_api::values::{AccountId, BillingId};
use chrono::NaiveDate;
use serde_json::{json, Value};

/// The demo account's WhatsApp number on the local stand-in (infra/local/whatsapp.py).
pub const LOCAL_WHATSAPP_NUMBER: &str = "phone-number-id-00000000000000000000000000000001";

/// The delivery a billing got on `day` through `channel`.
async fn delivery(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    day: NaiveDate,
    channel: Channel,
) -> anyhow::Result<Delivery> {
    deliveries::find(store, account, billing, day, channel).await?.with_context(|| {
        format!("billing {billing} of account {account} got no {} reminder on {day}", channel.as_str())
    })
}

/// The SES event of `kind` about `delivery`, as a configuration set publishes it to SNS.
pub fn ses_event(delivery: &Delivery, kind: &str) -> anyhow::Result<Value> {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let to = delivery.to.clone().unwrap_or_default();
    let mail = json!({
        "timestamp": now,
        "source": providers::default_sender(),
        "messageId": delivery.provider_id,
        "destination": [to],
        "tags": { providers::REFERENCE_TAG: [delivery.reference()] },
    });
    let event = match kind.to_ascii_uppercase().as_str() {
        "DELIVERY" => json!({"eventType": "Delivery", "mail": mail, "delivery": {
            "timestamp": now, "processingTimeMillis": 512, "recipients": [to],
            "smtpResponse": "250 2.0.0 OK", "reportingMTA": "a8-70.smtp-out.amazonses.com"}}),
        "BOUNCE" | "SOFT_BOUNCE" => {
            let hard = kind.eq_ignore_ascii_case("BOUNCE");
            json!({"eventType": "Bounce", "mail": mail, "bounce": {
                "bounceType": if hard { "Permanent" } else { "Transient" },
                "bounceSubType": if hard { "General" } else { "MailboxFull" },
                "bouncedRecipients": [{"emailAddress": to, "action": "failed", "status": if hard { "5.1.1" } else { "4.2.2" },
                    "diagnosticCode": if hard { "smtp; 550 5.1.1 user unknown" } else { "smtp; 452 4.2.2 mailbox full" }}],
                "timestamp": now, "feedbackId": "0100-local"}})
        }
        "COMPLAINT" => json!({"eventType": "Complaint", "mail": mail, "complaint": {
            "complainedRecipients": [{"emailAddress": to}], "timestamp": now, "feedbackId": "0100-local",
            "complaintFeedbackType": "abuse"}}),
        "REJECT" => json!({"eventType": "Reject", "mail": mail, "reject": {"reason": "Bad content"}}),
        "DELIVERY_DELAY" => json!({"eventType": "DeliveryDelay", "mail": mail, "deliveryDelay": {
            "timestamp": now, "delayType": "MailboxFull", "expirationTime": now,
            "delayedRecipients": [{"emailAddress": to, "status": "4.2.2", "diagnosticCode": "smtp; 452 4.2.2 mailbox full"}]}}),
        other => anyhow::bail!("--type {other:?}: DELIVERY, BOUNCE, SOFT_BOUNCE, COMPLAINT, REJECT or DELIVERY_DELAY"),
    };
    Ok(event)
}

/// The End User Messaging Social event of a WhatsApp `status` about `delivery`.
pub fn whatsapp_event(delivery: &Delivery, status: &str, error: Option<&str>) -> anyhow::Result<Value> {
    anyhow::ensure!(
        ["sent", "delivered", "read", "failed"].contains(&status),
        "--status {status:?}: sent, delivered, read or failed"
    );
    let mut state = json!({
        "id": format!("wamid.{}", delivery.provider_id.clone().unwrap_or_default()),
        "status": status,
        "timestamp": chrono::Utc::now().timestamp().to_string(),
        "recipient_id": delivery.to.clone().unwrap_or_default().trim_start_matches('+'),
        "biz_opaque_callback_data": delivery.reference(),
    });
    if status == "failed" {
        let (code, words) = error.and_then(|e| e.split_once(' ')).unwrap_or(("131026", "Message undeliverable"));
        state["errors"] = json!([{"code": code.parse::<i64>().unwrap_or(131_026), "title": words,
            "message": words, "error_data": {"details": words}}]);
    }
    let entry = json!({"id": "local-waba", "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp", "metadata": {"phone_number_id": "local"}, "statuses": [state]}}]});
    Ok(json!({
        "context": {"MetaWabaIds": [{"wabaId": "local-waba"}], "MetaPhoneNumberIds": [{"metaPhoneNumberId": "local"}]},
        "whatsAppWebhookEntry": entry.to_string(),
        "aws_account_id": "000000000000",
        "message_timestamp": chrono::Utc::now().to_rfc3339(),
    }))
}

/// Feeds SES's event `kind` about a billing's e-mail reminder of `day` to the events' handler.
pub async fn inject_ses_event(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    day: NaiveDate,
    kind: &str,
) -> anyhow::Result<Value> {
    let delivery = delivery(store, account, billing, day, Channel::Email).await?;
    let applied = events::apply(store, &ses_event(&delivery, kind)?.to_string()).await?;
    let after = deliveries::find(store, account, billing, day, Channel::Email).await?;
    Ok(json!({ "recorded": applied.recorded, "delivery": after }))
}

/// Feeds a WhatsApp `status` about a billing's WhatsApp reminder of `day` to the events' handler.
pub async fn inject_whatsapp_event(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    day: NaiveDate,
    status: &str,
    error: Option<&str>,
) -> anyhow::Result<Value> {
    let delivery = delivery(store, account, billing, day, Channel::Whatsapp).await?;
    let applied = events::apply(store, &whatsapp_event(&delivery, status, error)?.to_string()).await?;
    let after = deliveries::find(store, account, billing, day, Channel::Whatsapp).await?;
    Ok(json!({ "recorded": applied.recorded, "delivery": after }))
}
