//! One way a payment is applied (DESIGN §10). A billing can be paid through several channels, each
//! a room of its own (`boleto`: its remittances, the bank's return files and the simulated bank's
//! reports; `pix`: the billing's Pix charge, as its PSP reports it; `gateway`: a card, through the
//! account's checkout gateway, as its events and API tell it; `manual`: the account's pay-off with
//! its cash entry, [`paid_off`]); a channel turns what its provider says into one [`Payment`], and this
//! module applies it:
//!
//! - **exactly once per provider id**: the payment's ledger item ([`Entry`], `keys::payment::payment`) is
//!   written, only if absent, in the transaction that applies it, so a payment reported again (a
//!   second return file, a webhook twice, a reconciliation) changes nothing;
//! - **the first payment settles**: the billing `paid` and the billet it pays `paid`, with what
//!   was paid, announced by `billing.updated`, all in that transaction;
//! - **a later one is kept to refund**: a payment of a billing already settled otherwise, or of a
//!   billet no longer the billing's, moves nothing and is kept, with why, in the ledger and in the
//!   account's list of payments to refund (`keys::payment::payments_to_refund`, `infra/ops payment
//!   refunds`), and told to the account's receivers (`payment.to_refund`): never lost, never
//!   applied twice.
//!
//! The channel tells whether a payment is real before it gets here (a return file the account
//! uploaded; a PSP's call read back from the PSP).

pub mod boleto;
pub mod gateway;
pub mod ledger;
pub mod manual;
pub mod pix;
pub mod registrar;
pub mod secrets;
pub mod withdrawals;

pub use ledger::*;

use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::refusal::{Code, Problem, Refusal};
use crate::store::stored::{self, Stored};
use crate::store::{Store, Write};
use crate::values::{AccountId, BillingId, BillingStatus, Money, Timestamp};

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

/// Whether a billet takes a payment through `channel`: an open one, or one a remittance told the
/// bank of (a payer can pay a billet the bank registered before its confirmation arrives); by Pix
/// also one still waiting for its remittance (the charge is live at the PSP from the registration
/// on; the boleto's registration is then dropped from the queue, as a cancelled one's is).
fn payable(billet: &BankBillet, channel: Channel) -> bool {
    billet.status.collectable()
        || matches!(billet.status, BilletStatus::Remitting | BilletStatus::Remittanced)
        || (channel == Channel::Pix && billet.status == BilletStatus::PendingRemittance)
}

/// Why `payment` cannot settle `billing` (whose current billet is `billet`), if it cannot.
pub fn refused(billing: &Billing, billet: Option<&BankBillet>, payment: &Payment) -> Option<String> {
    match billet.filter(|b| b.id == payment.billet_id) {
        None => Some(format!("o boleto {} não é mais o da cobrança {}", payment.billet_id, billing.id)),
        Some(billet) if !payable(billet, payment.channel) || !billing.status.collectable() => {
            Some(format!("a cobrança {} está {} e o boleto {}", billing.id, billing.status, billet.status))
        }
        Some(_) => None,
    }
}

/// A billing and the billet a payment settles, as it leaves them: the billet `paid` with what was
/// paid (the difference to its amount as discount or interest, the fee, the credit), the billing
/// `paid` with `gw_received_with` the channel, `gw_payment_date`, `gw_gross_amount` the billet's
/// amount and the difference and fee, so that `display_amount_payable` (gross − discount + extra)
/// is frozen at what was paid.
pub fn settled(billing: Billing, billet: &BankBillet, payment: &Payment) -> (Billing, BankBillet) {
    let difference = payment.amount - billet.amount;
    let (discount, extra) =
        if difference < Money::ZERO { (-difference, Money::ZERO) } else { (Money::ZERO, difference) };
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
    (next, paid)
}

/// What a channel's own transaction writes to settle `billing` (whose current billet is
/// `billet`) with `payment`, beside its own records: the billing and the billet as it leaves
/// them, and the payment's ledger entry (only if absent). `Err` with why when it cannot settle
/// ([`refused`]).
pub fn settling(
    account: AccountId,
    billing: Billing,
    billet: Option<&BankBillet>,
    payment: &Payment,
) -> Result<Result<(Billing, BankBillet, Write), String>, Refusal> {
    let billet = match (refused(&billing, billet, payment), billet) {
        (None, Some(billet)) => billet,
        (why, _) => return Ok(Err(why.unwrap_or_default())),
    };
    let ledger = stored::insert(&entry(account, billing.id, payment, Outcome::Settled, ""), ())?;
    let (next, paid) = settled(billing, billet, payment);
    Ok(Ok((next, paid, ledger)))
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
    let (billing, ruled) = change(store, account, id, |billing, billet| async move {
        // Another report of the same payment won the race.
        if let Some(found) = recorded(store, account, payment).await? {
            return Ok(Ruled::Unchanged(Err(Applied::Already(found.outcome))));
        }
        match settling(account, billing, billet.as_ref(), payment)? {
            Ok((next, paid, ledger)) => {
                let billet = billet.map(|from| BilletWrite::Moved { from, to: paid });
                Ok(Ruled::Changed { next, billet, also: vec![ledger], announce: true, then: Ok(()) })
            }
            Err(why) => Ok(Ruled::Unchanged(Err(Applied::ToRefund(why)))),
        }
    })
    .await?;
    match ruled {
        Ok(()) => Ok(Applied::Settled(Box::new(billing))),
        Err(Applied::ToRefund(why)) => match store.write(kept_to_refund(account, id, payment, &why)?).await {
            Ok(()) => Ok(Applied::ToRefund(why)),
            Err(error) if error.failed_at(0) => {
                let found = recorded(store, account, payment).await?;
                Ok(Applied::Already(found.map_or(Outcome::ToRefund, |f| f.outcome)))
            }
            Err(error) => Err(error.into()),
        },
        Err(other) => Ok(other),
    }
}

/// Records what the provider reports given back of an applied payment (`refunded`, the sum of its
/// refunds so far): on its ledger entry; a payment kept to refund leaves the account's list once
/// wholly given back; a payment that settled its billet marks the billet's `provider_status`
/// (`DEVOLVIDO`, or `DEVOLVIDO_PARCIAL`), announced by `billing.updated`. Returns whether anything
/// changed (a refund reported again changes nothing).
pub async fn record_refund(
    store: &Store,
    account: AccountId,
    payment: &Payment,
    refunded: Money,
) -> Result<bool, Refusal> {
    let Some(entry) = recorded(store, account, payment).await? else { return Ok(false) };
    if entry.refunded == refunded || !refunded.is_positive() {
        return Ok(false);
    }
    let whole = refunded >= entry.amount;
    let next = Entry { refunded, ..entry.clone() };
    let mut writes = vec![stored::put(&next, ())?];
    match entry.outcome {
        Outcome::ToRefund if whole => {
            let (pk, sk) = ToRefund(entry.clone()).key(());
            writes.push(Write::delete(pk, sk));
        }
        Outcome::ToRefund => writes.push(stored::put(&ToRefund(next.clone()), ())?),
        Outcome::Settled => {
            let status = if whole { "DEVOLVIDO" } else { "DEVOLVIDO_PARCIAL" };
            let (_, done) = Box::pin(change(store, account, entry.billing_id, |billing, billet| {
                let writes = writes.clone();
                async move {
                    let Some(billet) = billet.filter(|b| Some(b.id) == entry.billet_id) else {
                        return Ok(Ruled::Unchanged(false));
                    };
                    let mut to = billet.moved_to(billet.status);
                    to.registered.provider_status = Some(status.to_owned());
                    let billet = Some(BilletWrite::Moved { from: billet, to });
                    Ok(Ruled::Changed { next: billing, billet, also: writes, announce: true, then: true })
                }
            }))
            .await?;
            if done {
                return Ok(true);
            }
        }
    }
    store.write(writes).await?;
    Ok(true)
}
