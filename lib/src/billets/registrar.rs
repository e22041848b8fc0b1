//! The billet-registration worker (consumer of the billet-registration queue).
//!
//! For a message `(account, billing, generation)`:
//! 1. The billing is read. Nothing is done when it is gone, when a later registration was asked
//!    for (a re-issue: `billet_generation` moved on), or when it is no longer `opened` and has no
//!    billet yet.
//! 2. Without a billet for this generation, one is issued: an `issued` billet with the
//!    beneficiary and payer frozen, the next `our_sequential_number` of (account, agreement), and
//!    the billing pointing at it, written in one transaction conditioned on the billing's
//!    version. Two deliveries racing here write one billet: the loser's condition fails and it
//!    reads the winner's billet.
//! 3. A billet still awaiting the bank is marked `remitting`, sent to the provider, and written
//!    `opened` (documents filled) or `rejected` (`bank_rejection` filled), each write conditioned
//!    on the billet's version, so a billet cancelled meanwhile stays cancelled. A provider failure
//!    leaves it `remitting` and fails the message; the redelivery carries on from there.
//!
//! A delivery of an answered billet changes nothing, so duplicates are harmless. Sequence numbers
//! burnt by a lost race leave gaps, which banks accept (our numbers must be unique, not dense).

use anyhow::{bail, Context as _};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

use super::model::{self, BankBillet, BilletStatus, Payer, Recipient, Registered, Settlement};
use super::provider::{provider_for, Answer};
use crate::accounts::{self, Account, AccountId};
use crate::billings::compute::Status;
use crate::billings::model::Billing;
use crate::contacts::Contact;
use crate::http::ApiError;
use crate::jobs::Job;
use crate::references::BankRule;
use crate::store::records;
use crate::store::{keys, Store, StoreError};
use crate::time::{today, Timestamp};

/// What one message came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The billet of this registration, in the status the bank left it.
    Answered { billet_id: i64, status: BilletStatus },
    /// Nothing to do (the reason, for the log).
    Skipped(&'static str),
}

/// Handles one SQS batch; the ids of the messages that failed go back for redelivery.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "billet registration", move |job| async move { handle(store, &job).await }).await
}

pub async fn handle(store: &Store, job: &Job) -> anyhow::Result<Outcome> {
    match job {
        Job::BilletRegistration { account_id, billing_id, generation, .. } => {
            register(store, *account_id, *billing_id, *generation).await
        }
        Job::BulkExpansion { .. } => bail!("a bulk-expansion job on the billet-registration queue"),
    }
}

pub async fn register(store: &Store, account: AccountId, billing_id: i64, generation: i64) -> anyhow::Result<Outcome> {
    let Some(owner) = accounts::find(store, account).await? else { return Ok(Outcome::Skipped("account not found")) };
    for _ in 0..6 {
        let Some(billing) = records::find::<Billing>(store, account, billing_id).await? else {
            return Ok(Outcome::Skipped("billing not found"));
        };
        if billing.billet_generation != generation {
            return Ok(Outcome::Skipped("a later registration was asked for"));
        }
        let billet = match billing.billet_id {
            Some(id) => {
                model::find(store, account, billing_id, id).await?.context("the billing's billet is missing")?
            }
            None if billing.status != Status::Opened => return Ok(Outcome::Skipped("billing no longer open")),
            None => match issue(store, &owner, &billing).await {
                Ok(billet) => billet,
                // The billing changed (another delivery issued the billet, or an update): read again.
                Err(ApiError::Conflict) => continue,
                Err(error) => return Err(error.into()),
            },
        };
        if !billet.status.awaiting_bank() {
            return Ok(Outcome::Answered { billet_id: billet.id, status: billet.status });
        }
        return transmit(store, &owner, billet).await;
    }
    bail!("billing {billing_id} kept changing during its billet registration")
}

/// The payer as the billet prints it.
fn payer_of(contact: Option<&Contact>) -> Payer {
    let Some(c) = contact else { return Payer::default() };
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let street = [c.address_street.as_deref(), c.address_number.as_deref(), c.address_complement.as_deref()]
        .into_iter()
        .flatten()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    Payer {
        payer_full_name: c.description().unwrap_or_default().to_owned(),
        payer_document: c.document().unwrap_or_default().to_owned(),
        payer_address_postal_code: text(&c.address_postal_code),
        payer_address_street: street,
        payer_address_district: text(&c.address_district),
        payer_address_city: text(&c.address_city),
        payer_address_state: text(&c.address_state),
    }
}

/// Step 2: the `issued` billet, written with the billing's pointer to it.
async fn issue(store: &Store, owner: &Account, billing: &Billing) -> Result<BankBillet, ApiError> {
    let account = owner.id;
    let rule = records::find_referenced::<BankRule>(store, account, billing.bank_rule_id).await?;
    let contact = records::find_referenced::<Contact>(store, account, billing.contact_id).await?;
    let bank_symbol = rule.as_ref().map(|r| r.bank_symbol.clone()).unwrap_or_default();
    let provider = provider_for(&bank_symbol);
    let rule_agreement = rule.as_ref().and_then(|r| r.agreement_code.as_deref());
    let agreement = match provider {
        Some(p) => Some(p.agreement(account, rule_agreement)),
        None => rule_agreement.map(str::to_owned),
    };
    let sequence = keys::our_number_sequence(agreement.as_deref().unwrap_or("-"));
    let our_sequential_number = store.next_id(keys::account(account), sequence).await?;
    let id = store.next_id(keys::account(account), keys::sequence("BILLET")).await?;
    let now = Timestamp::now();
    let mut billet = BankBillet {
        id,
        billing_id: billing.id,
        generation: billing.billet_generation,
        status: BilletStatus::Issued,
        bank_symbol: bank_symbol.clone(),
        amount: billing.amount,
        due_date: billing.due_date,
        our_sequential_number,
        uuid: uuid_v4(),
        agreement_code: agreement,
        bank_billet_account: None,
        bank_account: provider.map(|p| p.beneficiary_account(account)).unwrap_or_default(),
        recipient: Recipient {
            recipient_full_name: owner.name.clone(),
            recipient_document: owner.document.clone().unwrap_or_default(),
            recipient_full_address: owner.full_address(),
        },
        payer: payer_of(contact.as_ref()),
        registered: Registered::default(),
        settlement: Settlement::default(),
        created_at: now,
        updated_at: now,
        version: 1,
    };
    if provider.is_none() {
        billet.status = BilletStatus::Rejected;
        billet.registered.bank_rejection = Some(format!("Nenhum banco integrado para o símbolo \"{bank_symbol}\""));
    }
    let next = Billing { billet_id: Some(id), version: billing.version + 1, ..billing.clone() };
    records::replace(store, account, billing, &next, "", vec![billet.insert(account)?]).await?;
    Ok(billet)
}

/// Step 3: through `remitting` to the bank's answer.
async fn transmit(store: &Store, owner: &Account, billet: BankBillet) -> anyhow::Result<Outcome> {
    let account = owner.id;
    let provider = provider_for(&billet.bank_symbol).context("no provider for an issued billet")?;
    let remitting = if billet.status == BilletStatus::Remitting {
        billet
    } else {
        let next = billet.moved_to(BilletStatus::Remitting);
        if !written(store.write(vec![billet.replace_with(account, &next)?]).await)? {
            return Ok(Outcome::Skipped("the billet changed while being sent"));
        }
        next
    };
    let answer = provider.register(owner, &remitting).await.context("bank registration")?;
    let mut done = match &answer {
        Answer::Registered { .. } => remitting.moved_to(BilletStatus::Opened),
        Answer::Rejected { .. } => remitting.moved_to(BilletStatus::Rejected),
    };
    done.registered.remittanced_at = Some(today());
    match answer {
        Answer::Registered { our_number, barcode, digitable_line, pix_qr_code, provider_id, provider_status } => {
            done.registered.our_number = Some(our_number);
            done.registered.barcode = Some(barcode);
            done.registered.digitable_line = Some(digitable_line);
            done.registered.pix_qr_code = pix_qr_code;
            done.registered.provider_id = Some(provider_id);
            done.registered.provider_status = Some(provider_status);
        }
        Answer::Rejected { message, provider_status } => {
            done.registered.bank_rejection = Some(message);
            done.registered.provider_status = Some(provider_status);
        }
    }
    if !written(store.write(vec![remitting.replace_with(account, &done)?]).await)? {
        return Ok(Outcome::Skipped("the billet changed while the bank answered"));
    }
    Ok(Outcome::Answered { billet_id: done.id, status: done.status })
}

/// Whether a conditional write went through (`false`: its condition failed).
fn written(result: Result<(), StoreError>) -> anyhow::Result<bool> {
    match result {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed(_)) => Ok(false),
        Err(error) => Err(anyhow::Error::new(error)),
    }
}

/// A random UUID (version 4).
pub fn uuid_v4() -> String {
    super::provider::uuid_v4_layout(rand::random())
}
