//! Sending one billing's reminder of one day: read the billing as it is now (a billing paid,
//! cancelled, moved to another due date or past its return date since the run found it gets
//! nothing), then for each channel the account's schedule still has on that step, claim the
//! delivery (written only if absent), check the contact (an address, a cell phone, not opted out,
//! not suppressed: otherwise `skipped` with the reason), and hand it to the provider.
//!
//! At most once: the claim (`sending`, with a lease) is written before the call; a sender killed
//! between the claim and the provider's answer leaves a claim that the next try finds expired
//! and marks `failed` rather than risk a second message. A transient refusal (throttled, 5xx) is
//! `retrying` and tried again with backoff, each call counted in `attempts_count`; past
//! [`MAX_ATTEMPTS`] it is `failed`.

use std::time::Duration;

use chrono::NaiveDate;

use super::deliveries::{self, Delivery, Status};
use super::message::{self, Letter};
use super::providers::{Failure, Providers};
use super::schedule::{self, Channel, Schedule};
use super::suppression;
use crate::billets::model::BankBillet;
use crate::billings::standing::Standing;
use crate::billings::{compute, Billing};
use crate::contacts::Contact;
use crate::refusal::Refusal;
use crate::store::{keys, records, Store, StoreError};
use crate::values::{AccountId, BillingId, BillingStatus, Money, Timestamp};

/// Calls to the provider a delivery gets at most.
pub const MAX_ATTEMPTS: i64 = 6;
/// How long a sender holds a claimed delivery: twice a provider call's longest
/// (`providers::CALL_TIMEOUT`), so that a claim outlives the call it covers.
pub const LEASE: Duration = Duration::from_secs(20);
/// The pauses between the tries of a transient failure within one handling (the rest wait for the
/// message's next delivery).
const BACKOFF: [Duration; 2] = [Duration::from_millis(500), Duration::from_secs(2)];

/// One billing's reminder of one day: what the daily run found.
#[derive(Clone, Debug, PartialEq)]
pub struct Reminder {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    /// The run's day.
    pub day: NaiveDate,
    /// The step: days from the due date.
    pub days: i64,
    /// The due date the run found it on.
    pub due_date: NaiveDate,
    pub channels: Vec<Channel>,
}

/// What a reminder came to, channel by channel (none when the billing no longer wants one).
pub type Sent = Vec<(Channel, Status)>;

/// Why a reminder is not sent (the delivery's `error_message` when it is `skipped`).
const NO_EMAIL: &str = "O contato não tem e-mail";
const NO_CELL_PHONE: &str = "O contato não tem celular";
const NO_CONTACT: &str = "A cobrança não tem contato";
const OPTED_OUT: &str = "O contato pediu para não receber lembretes";
const NOT_PAYABLE: &str = "O boleto da cobrança não está disponível para pagamento";
const INTERRUPTED: &str = "Envio interrompido antes da resposta do provedor; não repetido para não enviar duas vezes";

/// Sends `reminder`; fails (for the message to come back) only when storage or a provider's
/// transient refusal outlasted this handling's tries.
pub async fn send(store: &Store, providers: &Providers, reminder: &Reminder) -> anyhow::Result<Sent> {
    let (account, id) = (reminder.account_id, reminder.billing_id);
    let (billing, billets) = match crate::billings::service::whole_or_404(store, account, id).await {
        Ok(found) => found,
        Err(Refusal::NotFound) => return Ok(Vec::new()),
        Err(other) => return Err(anyhow::Error::new(other)),
    };
    if !still_due(&billing, reminder) {
        return Ok(Vec::new());
    }
    // The schedule and the contact at once: one round trip.
    let (schedule, contact) = tokio::try_join!(
        schedule::of(store, account),
        records::find_referenced::<Contact>(store, account, billing.contact_id),
    )?;
    let channels: Vec<Channel> =
        schedule.channels_on(reminder.days).into_iter().filter(|c| reminder.channels.contains(c)).collect();
    if channels.is_empty() {
        return Ok(Vec::new());
    }
    let letter = billets.first().and_then(|billet| letter_of(&billing, billet, contact.as_ref(), reminder.day));
    // A link without the payer pages' address would reach the payer broken: a configuration error
    // (the message fails, and its alarm says so), never a reminder sent.
    if let Some(letter) = &letter {
        anyhow::ensure!(
            letter.pay_url.starts_with("http"),
            "PAYER_BASE_URL is not set: the reminder's links would be relative"
        );
    }
    let mut sent = Vec::new();
    for channel in channels {
        let to = Recipient::of(channel, contact.as_ref(), letter.as_ref());
        let status = deliver(store, providers, &schedule, reminder, channel, to).await?;
        sent.push((channel, status));
    }
    Ok(sent)
}

/// Whether the billing still wants the reminder the run found: open, on the same due date, and
/// not past its return date (the bank no longer takes the boleto then).
fn still_due(billing: &Billing, reminder: &Reminder) -> bool {
    let returned = compute::return_date(billing.due_date, billing.devolution(), billing.instruction_days);
    billing.status == BillingStatus::Opened
        && billing.due_date == reminder.due_date
        && returned.is_none_or(|last| reminder.day <= last)
}

/// What the reminder tells the payer on `day`, when the billing's billet can be paid (or its Pix,
/// before the boleto reaches the bank).
fn letter_of(billing: &Billing, billet: &BankBillet, contact: Option<&Contact>, day: NaiveDate) -> Option<Letter> {
    let token = billet.payer_token.as_deref()?;
    let (amount, digitable_line) = match Standing::of(billet, billing, day) {
        Standing::Payable(due) => (due.total, billet.registered.digitable_line.clone()),
        Standing::Registering if billet.registered.pix_qr_code.is_some() => {
            (Money::new(compute::compute(&billing.terms(), day).amount_payable), None)
        }
        _ => return None,
    };
    let days = (day - billing.due_date).num_days();
    let pay_url = crate::billets::link::url(token);
    let payer = contact.and_then(|c| c.description()).unwrap_or(&billet.payer.payer_full_name);
    Some(Letter {
        beneficiary: billet.recipient.recipient_full_name.clone(),
        payer_name: payer.to_owned(),
        headline: message::headline(days),
        overdue: days > 0,
        amount: format!("R$ {}", crate::billets::printing::text::amount(amount)),
        due_date: crate::billets::printing::text::date(billing.due_date),
        reference: Some(billing.code.clone()).filter(|c| !c.is_empty()),
        digitable_line,
        pix_code: billet.registered.pix_qr_code.clone(),
        unsubscribe_url: super::unsubscribe_url(&pay_url),
        pay_url,
    })
}

/// Where a channel's reminder goes, or why it cannot go.
enum Recipient<'a> {
    Email { to: String, letter: &'a Letter },
    Whatsapp { to: String, letter: &'a Letter },
    Nowhere(&'static str),
}

impl<'a> Recipient<'a> {
    fn of(channel: Channel, contact: Option<&Contact>, letter: Option<&'a Letter>) -> Recipient<'a> {
        let Some(contact) = contact else { return Recipient::Nowhere(NO_CONTACT) };
        if contact.reminders_opt_out {
            return Recipient::Nowhere(OPTED_OUT);
        }
        let Some(letter) = letter else { return Recipient::Nowhere(NOT_PAYABLE) };
        match channel {
            Channel::Email => match contact.email.as_deref().filter(|e| !e.is_empty()) {
                Some(email) => Recipient::Email { to: email.to_owned(), letter },
                None => Recipient::Nowhere(NO_EMAIL),
            },
            Channel::Whatsapp => {
                match message::cell_phone(contact.cell_phone_area.as_deref(), contact.cell_phone_number.as_deref()) {
                    Some(phone) => Recipient::Whatsapp { to: phone, letter },
                    None => Recipient::Nowhere(NO_CELL_PHONE),
                }
            }
        }
    }

    fn address(&self) -> Option<&str> {
        match self {
            Recipient::Email { to, .. } | Recipient::Whatsapp { to, .. } => Some(to),
            Recipient::Nowhere(_) => None,
        }
    }
}

/// One channel's delivery: claimed once, then sent (or skipped, or failed), its outcome stored.
async fn deliver(
    store: &Store,
    providers: &Providers,
    schedule: &Schedule,
    reminder: &Reminder,
    channel: Channel,
    to: Recipient<'_>,
) -> anyhow::Result<Status> {
    let (account, billing) = (reminder.account_id, reminder.billing_id);
    let found = deliveries::find(store, account, billing, reminder.day, channel).await?;
    let mut current = match found {
        Some(done) if done.status.settled() => return Ok(done.status),
        Some(claimed) if claimed.status == Status::Sending => {
            let held = claimed.leased_until.is_some_and(|until| until.0 > Timestamp::now().0);
            anyhow::ensure!(!held, "another sender holds the reminder {}", claimed.reference());
            let mut failed = claimed.moved(Status::Failed);
            failed.leased_until = None;
            failed.error_message = Some(INTERRUPTED.to_owned());
            store.write(vec![failed.over(&claimed)?]).await?;
            return Ok(Status::Failed);
        }
        Some(retrying) => retrying,
        None => {
            let mut fresh = new_delivery(store, reminder, channel).await?;
            fresh.to = to.address().map(str::to_owned);
            let reason = match &to {
                Recipient::Nowhere(reason) => Some((*reason).to_owned()),
                Recipient::Email { to, .. } => suppression::find(store, account, to).await?.map(|s| s.explained()),
                Recipient::Whatsapp { .. } => None,
            };
            if let Some(reason) = reason {
                let skipped = Delivery { status: Status::Skipped, error_message: Some(reason), ..fresh };
                return match store.write(vec![skipped.insert()?]).await {
                    Ok(()) => Ok(Status::Skipped),
                    Err(StoreError::ConditionFailed(_)) => anyhow::bail!("a concurrent sender wrote the delivery"),
                    Err(other) => Err(other.into()),
                };
            }
            fresh
        }
    };
    let reference = current.reference();
    for pause in BACKOFF.iter().map(Some).chain([None]) {
        // The claim, stored before the call.
        let mut claim = current.moved(Status::Sending);
        claim.attempts_count += 1;
        claim.leased_until = Some(Timestamp(Timestamp::now().0 + chrono::Duration::from_std(LEASE)?));
        let written = if current.version == 0 { claim.insert()? } else { claim.over(&current)? };
        store.write(vec![written]).await?;
        let answer = call_provider(providers, schedule, &to, &reference).await?;
        let (status, provider_id, error) = match answer {
            Ok(id) => (Status::Sent, Some(id), None),
            Err(Failure::Permanent(error)) => (Status::Failed, None, Some(error)),
            Err(Failure::Transient(error)) if claim.attempts_count >= MAX_ATTEMPTS => {
                (Status::Failed, None, Some(format!("{error} (desistido após {MAX_ATTEMPTS} tentativas)")))
            }
            Err(Failure::Transient(error)) => (Status::Retrying, None, Some(error)),
        };
        let mut after = claim.moved(status);
        after.leased_until = None;
        after.provider_id = provider_id;
        after.error_message = error;
        store.write(vec![after.over(&claim)?]).await?;
        if status != Status::Retrying {
            return Ok(status);
        }
        current = after;
        match pause {
            Some(pause) => tokio::time::sleep(*pause).await,
            None => anyhow::bail!("{}: still refused after {} attempts", reference, current.attempts_count),
        }
    }
    unreachable!("the loop returns or fails")
}

/// One call to the provider of `to`'s channel, from the account's sender (its e-mail address, its
/// WhatsApp number and template): the provider's id of the message, or why it refused it.
/// `Err`: the letter could not be written.
async fn call_provider(
    providers: &Providers,
    schedule: &Schedule,
    to: &Recipient<'_>,
    reference: &str,
) -> anyhow::Result<Result<String, Failure>> {
    Ok(match to {
        Recipient::Email { to, letter } => {
            let email = letter.email()?;
            let from = schedule.email_sender.as_deref().unwrap_or(&providers.default_sender);
            let from = message::mailbox(&letter.beneficiary, from);
            providers.send_email(&from, to, &email, reference, &letter.unsubscribe_url).await
        }
        Recipient::Whatsapp { to, letter } => {
            let number = schedule.whatsapp_phone_number_id.as_deref().unwrap_or_default();
            let template = schedule.whatsapp_template.as_deref().unwrap_or(schedule::DEFAULT_WHATSAPP_TEMPLATE);
            let token = letter.pay_url.rsplit('/').next().unwrap_or_default();
            providers.send_whatsapp(number, &letter.whatsapp(to, template, token, reference)).await
        }
        Recipient::Nowhere(reason) => Err(Failure::Permanent((*reason).to_owned())),
    })
}

/// A new delivery of `reminder` through `channel`, not stored yet (version 0), with a new id.
async fn new_delivery(store: &Store, reminder: &Reminder, channel: Channel) -> anyhow::Result<Delivery> {
    let (pk, sk) = keys::reminder::reminder_sequence(reminder.account_id);
    let id = store.ids_from_block(pk, sk, 1).await?;
    let now = Timestamp::now();
    Ok(Delivery {
        id,
        account_id: reminder.account_id,
        billing_id: reminder.billing_id,
        day: reminder.day,
        days: reminder.days,
        channel,
        status: Status::Sending,
        to: None,
        provider_id: None,
        delivered_at: None,
        error_message: None,
        attempts_count: 0,
        leased_until: None,
        created_at: now,
        updated_at: now,
        version: 0,
    })
}
