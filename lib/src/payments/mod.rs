//! One way a payment is applied (DESIGN §10). A billing can be paid through several channels, each
//! a room of its own (`bank`: the boleto, as the bank's return file or the simulated bank report
//! it; `pix`: the billing's Pix charge, as its PSP reports it; `manual`: the account's pay-off,
//! [`paid_off`]); a channel turns what its provider says into one [`Payment`], and this module applies it:
//!
//! - **exactly once per provider id**: the payment's ledger item ([`Entry`], `keys::payment`) is
//!   written, only if absent, in the transaction that applies it, so a payment reported again (a
//!   second return file, a webhook twice, a reconciliation) changes nothing;
//! - **the first payment settles**: the billing `paid` and the billet it pays `paid`, with what
//!   was paid, announced by `billing.updated`, all in that transaction;
//! - **a later one is kept to refund**: a payment of a billing already settled otherwise, or of a
//!   billet no longer the billing's, moves nothing and is kept, with why, in the ledger and in the
//!   account's list of payments to refund (`keys::payments_to_refund`, `infra/ops payment
//!   refunds`), and told to the account's receivers (`payment.to_refund`): never lost, never
//!   applied twice.
//!
//! The channel tells whether a payment is real before it gets here (a return file the account
//! uploaded; a PSP's call read back from the PSP).

pub mod bank;
pub mod pix;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::refusal::{Code, Problem, Refusal};
use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, KeyRange, Sort, Store, StoreError, StoreResult, Write};
use crate::values::{AccountId, BilletId, BillingId, BillingStatus, Money, Timestamp};

/// How a payment came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The boleto, paid at a bank.
    BankBillet,
    /// The billing's Pix charge, paid from the payer's bank.
    Pix,
    /// Paid outside the service and written off by the account (pay-off, `discharged`).
    Manual,
}

impl Channel {
    /// Its name: in the ledger's keys and as the billing's `gw_received_with`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::BankBillet => "bank_billet",
            Channel::Pix => "pix",
            Channel::Manual => "manual",
        }
    }
}

/// A payment as its channel learned it.
#[derive(Clone, Debug, PartialEq)]
pub struct Payment {
    pub channel: Channel,
    /// What the channel calls this payment; a payment is applied once per channel and id.
    pub provider_id: String,
    /// The billet it pays.
    pub billet_id: BilletId,
    /// What the payer paid (fine and interest included, discounts taken off).
    pub amount: Money,
    pub paid_on: NaiveDate,
    /// The provider's fee, deducted from what is credited.
    pub fee: Money,
    /// When the money is credited, and how much (the amount less the fee, unless the provider
    /// says otherwise).
    pub credit_on: NaiveDate,
    pub net_amount: Money,
}

impl Payment {
    /// Why the payment cannot be a payment at all (a non-positive amount, a fee above it).
    pub fn invalid(&self) -> Option<String> {
        if !self.amount.is_positive() {
            return Some(format!("valor pago {} não é positivo", self.amount));
        }
        if self.fee < Money::ZERO || self.fee > self.amount {
            return Some(format!("tarifa {} fora de 0 a {}", self.fee, self.amount));
        }
        None
    }
}

/// What became of a payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It settled its billing.
    Settled,
    /// It came after the billing was settled otherwise (or for a billet no longer the billing's):
    /// kept, to be refunded to the payer.
    ToRefund,
}

/// A payment in the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub account_id: AccountId,
    pub channel: Channel,
    pub provider_id: String,
    pub billing_id: BillingId,
    /// The billet it paid; none for a pay-off of a billing without one.
    #[serde(default)]
    pub billet_id: Option<BilletId>,
    #[serde(with = "number")]
    pub amount: Money,
    pub paid_on: NaiveDate,
    pub outcome: Outcome,
    /// Why it is to refund.
    #[serde(default)]
    pub note: String,
    /// How much of it the provider reports given back to the payer (a Pix's `devolucoes`).
    #[serde(default, with = "number")]
    pub refunded: Money,
    pub recorded_at: Timestamp,
}

impl Stored for Entry {
    const KIND: Option<&'static str> = Some("payment");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment(self.account_id, self.channel.as_str(), &self.provider_id)
    }
}

/// A payment to refund, in the account's list of them (a copy of its ledger entry).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToRefund(pub Entry);

impl Stored for ToRefund {
    const KIND: Option<&'static str> = Some("payment_to_refund");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        let entry = &self.0;
        let at = entry.recorded_at.0.timestamp_millis();
        keys::payment_to_refund(entry.account_id, at, entry.channel.as_str(), &entry.provider_id)
    }
}

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

/// The ledger entry of `payment` of billing `billing`.
pub fn entry(account: AccountId, billing: BillingId, payment: &Payment, outcome: Outcome, note: &str) -> Entry {
    Entry {
        account_id: account,
        channel: payment.channel,
        provider_id: payment.provider_id.clone(),
        billing_id: billing,
        billet_id: Some(payment.billet_id),
        amount: payment.amount,
        paid_on: payment.paid_on,
        outcome,
        note: note.to_owned(),
        refunded: Money::ZERO,
        recorded_at: Timestamp::now(),
    }
}

/// The ledger entry of a pay-off (`billings::service::pay_off`): the account's own write-off of
/// `billing` (its current billet `billet`, if any) for `amount` on `on`, as cash entry
/// `cash_entry`: written, only if absent, in the pay-off's transaction, so that a payment any
/// channel reports afterwards finds the billing settled (kept to refund) and the ledger shows how
/// it was.
pub fn paid_off(
    account: AccountId,
    billing: BillingId,
    billet: Option<BilletId>,
    cash_entry: impl std::fmt::Display,
    amount: Money,
    on: NaiveDate,
) -> StoreResult<Write> {
    let entry = Entry {
        account_id: account,
        channel: Channel::Manual,
        provider_id: format!("cash_entry/{cash_entry}"),
        billing_id: billing,
        billet_id: billet,
        amount,
        paid_on: on,
        outcome: Outcome::Settled,
        note: String::new(),
        refunded: Money::ZERO,
        recorded_at: Timestamp::now(),
    };
    stored::insert(&entry, ())
}

/// The payment's entry, if the ledger has it.
pub async fn recorded(store: &Store, account: AccountId, payment: &Payment) -> Result<Option<Entry>, StoreError> {
    let (pk, sk) = keys::payment(account, payment.channel.as_str(), &payment.provider_id);
    stored::find::<Entry>(store, (pk, sk)).await
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

/// The writes that keep `payment` of billing `billing` to refund: its ledger entry (only if
/// absent), its place in the account's list, and the `payment.to_refund` event that tells the
/// account's receivers (the account gives the amount back to the payer).
pub fn kept_to_refund(
    account: AccountId,
    billing: BillingId,
    payment: &Payment,
    why: &str,
) -> Result<Vec<Write>, Refusal> {
    let entry = entry(account, billing, payment, Outcome::ToRefund, why);
    let event = crate::events::record(account, crate::events::PAYMENT_TO_REFUND, to_refund_event(&entry))?;
    Ok(vec![stored::insert(&entry, ())?, stored::put(&ToRefund(entry), ())?, event])
}

/// What `payment.to_refund` says of a payment kept to refund.
pub fn to_refund_event(entry: &Entry) -> serde_json::Value {
    serde_json::json!({ "payment": {
        "billing_id": entry.billing_id,
        "bank_billet_id": entry.billet_id,
        "channel": entry.channel.as_str(),
        "provider_id": entry.provider_id,
        "amount": format!("{:.2}", entry.amount.get()),
        "paid_on": entry.paid_on,
        "reason": entry.note,
        "recorded_at": entry.recorded_at,
    }})
}

/// Applies `payment` of the account's billing `id` (see the module's documentation). A payment a
/// channel must refuse outright ([`Payment::invalid`]) is a `Refusal::Invalid`.
pub async fn apply(store: &Store, account: AccountId, id: BillingId, payment: &Payment) -> Result<Applied, Refusal> {
    if let Some(why) = payment.invalid() {
        return Err(Refusal::invalid(Problem::general(Code::Invalid, why)));
    }
    if let Some(found) = recorded(store, account, payment).await? {
        return Ok(Applied::Already(found.outcome));
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

/// The account's payments to refund, oldest first, at most `limit`.
pub async fn to_refund(store: &Store, account: AccountId, limit: usize) -> Result<Vec<Entry>, StoreError> {
    let range = KeyRange::listing(keys::payments_to_refund(account), Sort::All, true);
    let items = store.items_in(&range, 0, limit).await?;
    Ok(stored::read_all::<ToRefund>(items)?.into_iter().map(|kept| kept.0).collect())
}
