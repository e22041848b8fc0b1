//! The billet-registration worker (consumer of the billet-registration queue).
//!
//! For a message `(account, billing, generation)`:
//! 1. The billing is read. Nothing is done when it is gone, when a later registration was asked
//!    for (a re-issue: `billet_generation` moved on), or when it is no longer `opened` and has no
//!    billet yet.
//! 2. Without a billet for this generation, one is issued: an `issued` billet with the
//!    beneficiary and payer frozen, the next `our_sequential_number` of (account, agreement), its
//!    payer link and where it is by its id (`BilletRef`), and the billing pointing at it, written
//!    in one transaction conditioned on the billing's
//!    version. Two deliveries racing here write one billet: the loser's condition fails and it
//!    reads the winner's billet.
//! 3. A billet still awaiting the bank is marked `remitting`, sent to the provider, and written
//!    `opened` (documents filled) or `rejected` (`bank_rejection` filled), each write conditioned
//!    on the billet's version, so a billet cancelled meanwhile stays cancelled; the answer is
//!    announced by a `billing.updated` event in the same transaction. On a rule with a Pix
//!    institution, the billing's Pix charge is made (or revised) with the billet's terms before
//!    that write, and the billet carries its code (`payments::pix`). A provider or PSP failure
//!    leaves it `remitting` and fails the message; the redelivery carries on from there.
//!
//! A delivery of an answered billet changes nothing, so duplicates are harmless. Sequence numbers
//! burnt by a lost race leave gaps, which banks accept (our numbers must be unique, not dense).

use anyhow::Context as _;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

use super::boleto::Boleto;
use super::card::Cards;
use super::manual::Manual;
use super::pix::Pix;
use super::ChannelRoom;
use crate::accounts::{self, Account};
use crate::bank_rules::BankRule;
use crate::billets::link::PayerLink;
use crate::billets::model::{BankBillet, BilletRef, BilletStatus, Payer, Recipient, Registered, Settlement};
use crate::billets::provider::provider_for;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::billings::service::{announcement, change, Ruled};
use crate::contacts::Contact;
use crate::jobs::BilletRegistration;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::{keys, Store, StoreError};
use crate::values::{AccountId, BilletId, BillingId, BillingStatus, Timestamp};

/// What one message came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The billet of this registration, in the status the bank left it.
    Answered { billet_id: BilletId, status: BilletStatus },
    /// Nothing to do (the reason, for the log).
    Skipped(&'static str),
}

/// Handles one SQS batch; the ids of the messages that failed go back for redelivery.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "billet registration", move |message: BilletRegistration| async move {
        register(store, message.account_id, message.billing_id, message.generation).await
    })
    .await
}

/// What step 2 found: the billet to carry on with, or why there is nothing to do.
enum Found {
    Billet(Box<BankBillet>),
    Skip(&'static str),
}

pub async fn register(
    store: &Store,
    account: AccountId,
    billing_id: BillingId,
    generation: i64,
) -> anyhow::Result<Outcome> {
    let Some(owner) = accounts::find(store, account).await? else { return Ok(Outcome::Skipped("account not found")) };
    // An account whose checkout gateway is on: the billet's page takes cards too.
    let takes_cards = crate::payments::card::link(store, account).await?.is_some_and(|link| link.enabled);
    let found = change(store, account, billing_id, |billing, billet| {
        let owner = &owner;
        async move {
            if billing.billet_generation != generation {
                return Ok(Ruled::Unchanged(Found::Skip("a later registration was asked for")));
            }
            if billing.billet_id.is_some() {
                let billet = billet.context("the billing's billet is missing")?;
                return Ok(Ruled::Unchanged(Found::Billet(Box::new(billet))));
            }
            if billing.status != BillingStatus::Opened {
                return Ok(Ruled::Unchanged(Found::Skip("billing no longer open")));
            }
            let billet = issue(store, owner, &billing).await?;
            let link = PayerLink::new(account, billing.id, billet.id);
            let billet = BankBillet { payer_token: Some(link.token.clone()), ..billet };
            // Its card checkout, on the billet's page.
            let gw_payment_link = takes_cards.then(|| format!("{}/cartao", crate::billets::link::url(&link.token)));
            let next = Billing { billet_id: Some(billet.id), gw_payment_link, ..billing };
            // An issued billet is on its way to the bank: announced when the bank answers.
            let announce = billet.status == BilletStatus::Rejected;
            let then = Found::Billet(Box::new(billet.clone()));
            let place = BilletRef { account_id: account, billet_id: billet.id, billing_id: billing.id };
            let also = vec![link.insert()?, crate::store::stored::insert(&place, ())?];
            Ok(Ruled::Changed { next, billet: Some(BilletWrite::New(billet)), also, announce, then })
        }
    })
    .await;
    let billet = match found {
        Ok((_, Found::Billet(billet))) => *billet,
        Ok((_, Found::Skip(reason))) => return Ok(Outcome::Skipped(reason)),
        Err(Refusal::NotFound) => return Ok(Outcome::Skipped("billing not found")),
        Err(error) => return Err(anyhow::anyhow!("billet registration: {error}")),
    };
    // Sent to the provider only once: a billet waiting for a remittance file (or in one) is the
    // remittance job's from there on.
    let unsent = billet.status == BilletStatus::Issued
        || (billet.status == BilletStatus::Remitting && billet.remittance_id.is_none());
    if !unsent {
        return Ok(Outcome::Answered { billet_id: billet.id, status: billet.status });
    }
    transmit(store, &owner, billet, takes_cards).await
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
        payer_document: c.document().unwrap_or_default(),
        payer_address_postal_code: text(&c.address_postal_code),
        payer_address_street: street,
        payer_address_district: text(&c.address_district),
        payer_address_city: text(&c.address_city),
        payer_address_state: text(&c.address_state),
    }
}

/// Step 2: the `issued` billet of the billing's registration (written by the caller with the
/// billing's pointer to it, on the billing's version).
async fn issue(store: &Store, owner: &Account, billing: &Billing) -> Result<BankBillet, Refusal> {
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
    // Both from this process's blocks: no registration writes a sequence item of the account, only
    // one in twenty (gaps are allowed: our numbers must be unique, not dense).
    let sequence = keys::bank_file::our_number_sequence(agreement.as_deref().unwrap_or("-"));
    let (our_sequential_number, id) = tokio::try_join!(
        store.ids_from_block(keys::account(account), sequence, 1),
        store.ids_from_block(keys::account(account), keys::sequence("BILLET"), 1),
    )?;
    let id = BilletId::new(id);
    let now = Timestamp::now();
    let bank_account =
        provider.map(|p| p.beneficiary_account(account, agreement.as_deref().unwrap_or_default())).unwrap_or_default();
    let mut billet = BankBillet {
        id,
        billing_id: billing.id,
        generation: billing.billet_generation,
        status: BilletStatus::Issued,
        bank_symbol: bank_symbol.clone(),
        amount: billing.amount,
        due_date: billing.due_date,
        our_sequential_number,
        uuid: uuid::Uuid::new_v4().to_string(),
        agreement_code: agreement,
        bank_billet_account: None,
        bank_account,
        recipient: Recipient {
            recipient_full_name: owner.name.clone(),
            recipient_document: owner.document.clone().unwrap_or_default(),
            recipient_full_address: owner.full_address(),
        },
        payer: payer_of(contact.as_ref()),
        registered: Registered::default(),
        settlement: Settlement::default(),
        payer_token: None,
        remittance_id: None,
        // The rule's Pix institution: its charge is made with the billet's registration.
        pix_psp: rule.as_ref().and_then(|r| r.pix_secret_id.clone()),
        paid_with: None,
        created_at: now,
        updated_at: now,
        version: 1,
    };
    if provider.is_none() {
        billet.status = BilletStatus::Rejected;
        billet.registered.bank_rejection = Some(format!("Nenhum banco integrado para o símbolo \"{bank_symbol}\""));
    }
    Ok(billet)
}

/// Step 3: through `remitting` to the bank's answer.
async fn transmit(store: &Store, owner: &Account, billet: BankBillet, takes_cards: bool) -> anyhow::Result<Outcome> {
    let account = owner.id;
    let remitting = if billet.status == BilletStatus::Remitting {
        billet
    } else {
        let next = billet.moved_to(BilletStatus::Remitting);
        let result = store.write(vec![billet.replace_with(account, &next)?]).await;
        // A failed condition may be this very write, applied and tried again after its answer was
        // lost: the billet as it is tells.
        if !written(result)? && !stored_as(store, account, &next).await? {
            return Ok(Outcome::Skipped("the billet changed while being sent"));
        }
        next
    };
    // Every channel's charge of the billet: the bank's registration first, then the Pix charge
    // (made, or revised for a re-issue); the card's is made at the payer's checkout.
    let billing =
        records::find::<Billing>(store, account, remitting.billing_id).await?.context("the billet's billing")?;
    let mut done = remitting.clone();
    Boleto::charge(owner, &billing, &mut done).await?;
    Pix::charge(owner, &billing, &mut done).await?;
    Cards::charge(owner, &billing, &mut done).await?;
    Manual::charge(owner, &billing, &mut done).await?;
    // The answer and its `billing.updated` event in one transaction.
    let event = announcement(store, account, &billing, Some(&done)).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut writes = vec![remitting.replace_with(account, &done)?, event];
    if done.status == BilletStatus::PendingRemittance {
        writes.extend(super::boleto::remittance::queue(
            account,
            &done,
            super::boleto::remittance::Instruction::Register,
        )?);
    }
    // A schedule's cycle whose schedule has a card on file: charged off-session by the card queue.
    if takes_cards && done.status != BilletStatus::Rejected {
        writes.extend(super::card::on_file::charge_task(store, account, &billing).await?);
    }
    // A schedule's cycle whose recurrence is authorized: debited by Pix Automático.
    if done.status != BilletStatus::Rejected {
        writes.extend(super::pix::automatic::debit_task(store, account, &billing, &done).await?);
    }
    if !written(store.write(writes).await)? {
        return Ok(Outcome::Skipped("the billet changed while the bank answered"));
    }
    Ok(Outcome::Answered { billet_id: done.id, status: done.status })
}

/// Whether the billet is stored just as `expected` (its version and status).
async fn stored_as(store: &Store, account: AccountId, expected: &BankBillet) -> anyhow::Result<bool> {
    let found = crate::billets::model::find(store, account, expected.billing_id, expected.id).await?;
    Ok(found.is_some_and(|b| b.version == expected.version && b.status == expected.status))
}

/// Whether a conditional write went through (`false`: its condition failed).
fn written(result: Result<(), StoreError>) -> anyhow::Result<bool> {
    match result {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed(_)) => Ok(false),
        Err(error) => Err(anyhow::Error::new(error)),
    }
}
