//! A billing's reminder deliveries (§2.1 `billing_reminder_deliveries`): one item per billing, day
//! and channel in the billing's partition (`keys::reminder::reminder_delivery`), written only if absent, so
//! that each reminder is attempted once whatever is run again, delivered twice or killed; its
//! status then follows the sender's attempts and the provider's events.
//!
//! A status only moves forward ([`Status::rank`]): an event that comes late (a delay after the
//! delivery) changes nothing, and an event that comes twice changes nothing the second time.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::stored::{self, Key, Stored};
use crate::store::KeyRange;
use crate::store::{keys, Condition, Store, StoreResult, Write};
use crate::values::ReminderChannel as Channel;
use crate::values::{AccountId, BillingId, Timestamp};

/// Deliveries a billing's representation shows, newest day first: a schedule has at most ten
/// steps of two channels, so this is the last two due dates' worth for the default schedule.
pub const SHOWN: usize = 20;

/// What became of a reminder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Being handed to the provider (claimed by a sender).
    Sending,
    /// The provider refused for a while (throttled, 5xx): tried again with backoff.
    Retrying,
    /// The provider took it.
    Sent,
    /// SES: the receiving server delays it.
    Delayed,
    /// The payer's server (e-mail) or phone (WhatsApp) has it.
    Delivered,
    /// WhatsApp: the payer read it.
    Read,
    /// SES: the address does not take mail (a hard bounce suppresses it).
    Bounced,
    /// SES: the payer marked it as spam (the address is suppressed).
    Complained,
    /// SES refused to send it (a virus, for instance).
    Rejected,
    /// The provider refused it for good, or the sender was interrupted while handing it over (not
    /// sent again: at most once).
    Failed,
    /// Not sent, and why (`error_message`): no e-mail or cell phone, opted out, suppressed.
    Skipped,
}

impl Status {
    /// Its place in a delivery's life: a status moves only to one of a higher rank.
    fn rank(self) -> u8 {
        match self {
            Status::Sending | Status::Retrying => 0,
            Status::Sent => 1,
            Status::Delayed => 2,
            Status::Delivered => 3,
            Status::Read => 4,
            Status::Bounced | Status::Rejected | Status::Failed | Status::Skipped => 5,
            Status::Complained => 6,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Sending => "sending",
            Status::Retrying => "retrying",
            Status::Sent => "sent",
            Status::Delayed => "delayed",
            Status::Delivered => "delivered",
            Status::Read => "read",
            Status::Bounced => "bounced",
            Status::Complained => "complained",
            Status::Rejected => "rejected",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
        }
    }

    /// Whether nothing more is tried for it (the provider's events may still move it).
    pub fn settled(self) -> bool {
        !matches!(self, Status::Sending | Status::Retrying)
    }
}

/// One reminder of one billing on one day through one channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    pub id: i64,
    pub account_id: AccountId,
    pub billing_id: BillingId,
    /// The day of the run that sent it.
    pub day: NaiveDate,
    /// Its step: days from the due date.
    pub days: i64,
    pub channel: Channel,
    pub status: Status,
    /// Where it went (the e-mail address or phone number), for the operator; never in the API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The provider's message id (SES `MessageId`, WhatsApp `messageId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Calls to the provider so far (retries of a transient failure count).
    pub attempts_count: i64,
    /// While `sending`: until when the sender that claimed it holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leased_until: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl Stored for Delivery {
    const KIND: Option<&'static str> = Some("reminder_delivery");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::reminder::reminder_delivery(self.account_id, self.billing_id, self.day, self.channel.as_str())
    }
}

impl Delivery {
    /// The reference that names it to the provider, given back with each of its events.
    pub fn reference(&self) -> String {
        keys::reminder::reminder_reference(self.account_id, self.billing_id, self.day, self.channel.as_str())
    }

    /// It, moved to `status` now (a version more).
    pub fn moved(&self, status: Status) -> Delivery {
        Delivery { status, updated_at: Timestamp::now(), version: self.version + 1, ..self.clone() }
    }

    /// The write that stores it over the version `before` had.
    pub fn over(&self, before: &Delivery) -> StoreResult<Write> {
        stored::put_if(self, (), Condition::version(before.version))
    }

    /// The write that stores it new (its key must be free).
    pub fn insert(&self) -> StoreResult<Write> {
        stored::insert(self, ())
    }
}

/// A billing's delivery on `day` through `channel`.
pub async fn find(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    day: NaiveDate,
    channel: Channel,
) -> StoreResult<Option<Delivery>> {
    stored::find(store, keys::reminder::reminder_delivery(account, billing, day, channel.as_str())).await
}

/// A billing's newest [`SHOWN`] deliveries, newest day first (one query).
pub async fn of_billing(store: &Store, account: AccountId, billing: BillingId) -> StoreResult<Vec<Delivery>> {
    let (pk, prefix) = keys::reminder::reminder_deliveries_of(account, billing);
    let page = store.page(&KeyRange::prefix(pk, prefix, false), SHOWN, None).await?;
    stored::read_all(page.items)
}

/// What a provider's event says of a delivery.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub at: Timestamp,
    pub error: Option<String>,
}

/// Applies a provider's event to the delivery `reference` names: the status moves when the event's
/// ranks higher (a late or repeated event changes nothing), `delivered_at` takes the first
/// delivery's time. `None` when no such delivery exists (an event of another table or stack).
pub async fn record_outcome(
    store: &Store,
    reference: &str,
    outcome: &Outcome,
) -> Result<Option<Delivery>, crate::refusal::Refusal> {
    let Some((account, billing, day, channel)) = keys::reminder::read_reminder_reference(reference) else {
        return Ok(None);
    };
    let Some(channel) = Channel::parse(&channel) else { return Ok(None) };
    // A concurrent writer of the delivery (the sender, another event) makes it read again.
    crate::contention::retry_on_conflict(|| async {
        let Some(current) = find(store, account, billing, day, channel).await? else { return Ok(None) };
        if outcome.status.rank() <= current.status.rank() && current.status.settled() {
            return Ok(Some(current));
        }
        let mut next = current.moved(outcome.status);
        next.leased_until = None;
        if matches!(outcome.status, Status::Delivered | Status::Read) && next.delivered_at.is_none() {
            next.delivered_at = Some(outcome.at);
        }
        if outcome.error.is_some() {
            next.error_message = outcome.error.clone();
        }
        store.write(vec![next.over(&current)?]).await?;
        Ok(Some(next))
    })
    .await
}

/// The representation of §2.1.
#[derive(Clone, Debug, Serialize)]
pub struct DeliveryView {
    pub id: i64,
    pub channel: &'static str,
    pub status: &'static str,
    pub delivered_at: Option<Timestamp>,
    pub error_message: Option<String>,
    pub attempts_count: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<&Delivery> for DeliveryView {
    fn from(d: &Delivery) -> Self {
        DeliveryView {
            id: d.id,
            channel: d.channel.as_str(),
            status: d.status.as_str(),
            delivered_at: d.delivered_at,
            error_message: d.error_message.clone(),
            attempts_count: d.attempts_count,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_moves_forward_only() {
        assert!(Status::Delivered.rank() > Status::Delayed.rank());
        assert!(Status::Complained.rank() > Status::Delivered.rank());
        assert!(Status::Read.rank() > Status::Delivered.rank());
        assert!(Status::Bounced.rank() > Status::Sent.rank());
        assert!(!Status::Sending.settled() && Status::Skipped.settled());
        let text = serde_json::to_string(&Status::Complained).unwrap();
        assert_eq!(text, format!("\"{}\"", Status::Complained.as_str()));
    }
}
