//! The one decision every channel's payment goes through (the parent module's text): [`decide`], in
//! the billing's transaction, says whether a [`Payment`] was applied before, settles the billing or
//! is kept to refund; [`keep`] writes one kept to refund after it. [`apply`] is both for a channel
//! with nothing of its own to write; a channel with more (a return file's line, a card's state, a
//! pay-off's cash entry) calls [`decision`] from its own rule and [`keep`] after it.

use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::{self, BilletWrite};
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::refusal::{Code, Problem, Refusal};
use crate::store::{Store, Write};
use crate::values::{AccountId, BillingId, BillingStatus, Money, Timestamp};

use super::ledger::{entry, recorded, Channel, Entry, Outcome, Payment};
use super::recording::{kept_to_refund, recorded_new};

/// What [`apply`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum Applied {
    /// It settled the billing, as now stored.
    Settled(Box<Billing>),
    /// Kept to refund, with why.
    ToRefund(String),
    /// Applied before (the same channel and provider id): nothing changed.
    Already(Outcome),
}

/// What one payment does to a billing, decided in the billing's transaction.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // made once per payment and moved straight into its change
pub enum Decided {
    /// It settles the billing: the billing and its billet as it leaves them, and what the
    /// transaction writes beside them (the payment's ledger entry, only if absent).
    Settles { next: Box<Billing>, billet: Option<BilletWrite>, also: Vec<Write> },
    /// The ledger has it already, with this outcome: nothing changes.
    Already(Outcome),
    /// The billing cannot take it: kept to refund ([`keep`]), with why.
    ToRefund(String),
}

/// Whether a billet takes a payment through `channel`: an open one, or one a remittance told the
/// bank of (a payer can pay a billet the bank registered before its confirmation arrives); by Pix
/// also one still waiting for its remittance (the charge is live at the PSP from the registration
/// on; the boleto's registration is then dropped from the queue, as a cancelled one's is); a
/// pay-off takes any (it writes off the billet when it is still open).
fn payable(billet: &BankBillet, channel: Channel) -> bool {
    billet.status.collectable()
        || matches!(billet.status, BilletStatus::Remitting | BilletStatus::Remittanced)
        || (channel == Channel::Pix && billet.status == BilletStatus::PendingRemittance)
        || channel == Channel::Manual
}

/// Why `payment` cannot settle `billing` (whose current billet is `billet`), if it cannot: the
/// billing is not collectable, or the payment names a billet that is not its current one, or one
/// that does not take it.
pub fn refused(billing: &Billing, billet: Option<&BankBillet>, payment: &Payment) -> Option<String> {
    let named = match payment.billet_id {
        Some(id) => match billet.filter(|b| b.id == id) {
            None => return Some(format!("o boleto {id} não é mais o da cobrança {}", billing.id)),
            Some(billet) => Some(billet),
        },
        None => None,
    };
    let takes = named.is_none_or(|b| payable(b, payment.channel));
    match takes && billing.status.collectable() {
        true => None,
        false => {
            let billet = named.map_or_else(|| "sem boleto".to_owned(), |b| format!("o boleto {}", b.status));
            Some(format!("a cobrança {} está {} e {billet}", billing.id, billing.status))
        }
    }
}

/// How what was paid differs from what the billet asked: (discount, interest and fine), one of
/// them zero.
fn difference(paid: Money, asked: Money) -> (Money, Money) {
    let difference = paid - asked;
    if difference < Money::ZERO {
        (-difference, Money::ZERO)
    } else {
        (Money::ZERO, difference)
    }
}

/// A billing and the billet a payment settles, as it leaves them. Paid through a channel: the
/// billet `paid` with what was paid (the difference to its amount as discount or interest, the
/// fee, the credit), the billing `paid` with `gw_received_with` the channel, `gw_payment_date`,
/// `gw_gross_amount` the billet's amount and the difference and fee, so that
/// `display_amount_payable` (gross − discount + extra) is frozen at what was paid. Paid off
/// (`payment.paid_off`): the billing `discharged` with its reason and the amount received, its
/// open billet written off (`discharged`).
pub fn settled(billing: Billing, billet: Option<&BankBillet>, payment: &Payment) -> (Billing, Option<BilletWrite>) {
    if let Some(reason) = payment.paid_off {
        let next = Billing {
            status: BillingStatus::Discharged,
            discharge_reason: Some(reason),
            gw_gross_amount: payment.amount,
            gw_payment_date: Some(payment.paid_on),
            gw_received_with: Some(reason.to_string()),
            updated_at: Timestamp::now(),
            ..billing
        };
        return (next, lifecycle::close(billet, BilletStatus::Discharged));
    }
    let Some(billet) = billet else { return (billing, None) };
    let (discount, extra) = difference(payment.amount, billet.amount);
    let mut paid = billet.moved_to(BilletStatus::Paid);
    paid.settlement.paid_amount = payment.amount;
    paid.settlement.paid_at = Some(payment.paid_on);
    paid.settlement.net_amount = payment.net_amount;
    paid.settlement.bank_rate = payment.fee;
    paid.settlement.discount = discount;
    paid.settlement.interest = extra;
    paid.settlement.credit_at = Some(payment.credit_on);
    paid.registered.provider_status = Some("LIQUIDADO".into());
    paid.paid_with = Some(payment.channel.as_str().to_owned());
    let next = Billing {
        status: BillingStatus::Paid,
        gw_received_with: Some(payment.channel.as_str().to_owned()),
        gw_payment_date: Some(payment.paid_on),
        gw_gross_amount: billet.amount,
        gw_fee_amount: payment.fee,
        gw_discount_amount: discount,
        gw_extra_amount: extra,
        updated_at: Timestamp::now(),
        ..billing
    };
    (next, Some(BilletWrite::Moved { from: billet.clone(), to: paid }))
}

/// What `payment` does to the account's `billing` (its current billet `billet`), the ledger's
/// entry of it being `recorded`: applied before (once per channel and provider id), settles it (the
/// first payment), or is kept to refund (a later one, or one the billing cannot take). What the
/// settling withdraws at the other channels, the billing's change adds (`billings::channels`).
pub fn decide(
    account: AccountId,
    billing: Billing,
    billet: Option<&BankBillet>,
    payment: &Payment,
    recorded: Option<&Entry>,
) -> Result<Decided, Refusal> {
    if let Some(found) = recorded {
        return Ok(Decided::Already(found.outcome));
    }
    if let Some(why) = refused(&billing, billet, payment) {
        return Ok(Decided::ToRefund(why));
    }
    let mut entry = entry(account, billing.id, payment, Outcome::Settled, "");
    if let (Some(billet), None) = (billet, payment.paid_off) {
        (entry.discount, entry.interest) = difference(payment.amount, billet.amount);
        entry.original_amount = billet.amount;
    }
    let ledger = recorded_new(&entry)?;
    let (next, billet) = settled(billing, billet, payment);
    Ok(Decided::Settles { next: Box::new(next), billet, also: ledger })
}

/// [`decide`], the ledger read first (in the billing's transaction, so that a report of the same
/// payment that won a race is seen).
pub async fn decision(
    store: &Store,
    account: AccountId,
    billing: Billing,
    billet: Option<&BankBillet>,
    payment: &Payment,
) -> Result<Decided, Refusal> {
    let found = recorded(store, account, payment).await?;
    decide(account, billing, billet, payment, found.as_ref())
}

/// Keeps `payment` of the account's billing `id` to refund, with why (after the transaction that
/// decided it): its ledger entry, its place in the account's list and `payment.to_refund`, once.
/// `also` goes into the same transaction (a return file's line). When another report of it was
/// kept first: `Already`, with what the ledger says.
pub async fn keep(
    store: &Store,
    account: AccountId,
    id: BillingId,
    payment: &Payment,
    why: &str,
    also: Vec<Write>,
) -> Result<Applied, Refusal> {
    let mut writes = kept_to_refund(account, id, payment, why)?;
    writes.extend(also);
    match store.write(writes).await {
        Ok(()) => Ok(Applied::ToRefund(why.to_owned())),
        Err(error) if error.failed_at(0) => {
            let found = recorded(store, account, payment).await?;
            Ok(Applied::Already(found.map_or(Outcome::ToRefund, |f| f.outcome)))
        }
        Err(error) => Err(error.into()),
    }
}

/// Applies `payment` of the account's billing `id` (see the module's documentation). A payment a
/// channel must refuse outright ([`Payment::invalid`]) is a `Refusal::Invalid`.
pub async fn apply(store: &Store, account: AccountId, id: BillingId, payment: &Payment) -> Result<Applied, Refusal> {
    if let Some(found) = recorded(store, account, payment).await? {
        return Ok(Applied::Already(found.outcome));
    }
    apply_new(store, account, id, payment).await
}

/// [`apply`] of a payment its channel has just found absent from the ledger (a channel that reads
/// the ledger before the billing: `pix::take`), without reading it again first; the billing's
/// transaction still reads it, for a report of the same payment that won a race.
pub async fn apply_new(
    store: &Store,
    account: AccountId,
    id: BillingId,
    payment: &Payment,
) -> Result<Applied, Refusal> {
    if let Some(why) = payment.invalid() {
        return Err(Refusal::invalid(Problem::general(Code::Invalid, why)));
    }
    // `None`: settled; else applied before (`Ok`) or to keep to refund (`Err`, with why).
    let (billing, left) = change(store, account, id, |billing, billet| async move {
        Ok(match decision(store, account, billing, billet.as_ref(), payment).await? {
            Decided::Settles { next, billet, also } => {
                Ruled::Changed { next: *next, billet, also, announce: true, then: None }
            }
            Decided::Already(outcome) => Ruled::Unchanged(Some(Ok(outcome))),
            Decided::ToRefund(why) => Ruled::Unchanged(Some(Err(why))),
        })
    })
    .await?;
    match left {
        None => Ok(Applied::Settled(Box::new(billing))),
        Some(Ok(outcome)) => Ok(Applied::Already(outcome)),
        Some(Err(why)) => keep(store, account, id, payment, &why, Vec::new()).await,
    }
}
