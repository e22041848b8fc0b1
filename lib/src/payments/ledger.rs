//! The payment ledger: what a payment is ([`Payment`], by [`Channel`]) and what became of it
//! ([`Entry`]: once per channel and provider id; [`ToRefund`]: the account's list of payments kept to
//! refund). Types and writes only: the workflow that applies a payment is `apply`.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::refusal::Refusal;
use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, KeyRange, Sort, Store, StoreError, Write};
use crate::values::{AccountId, BilletId, BillingId, DischargeReason, Money, Timestamp};

/// How a payment came (a value billets and billings keep too).
pub use crate::values::PaymentChannel as Channel;

/// A payment as its channel learned it.
#[derive(Clone, Debug, PartialEq)]
pub struct Payment {
    pub channel: Channel,
    /// What the channel calls this payment; a payment is applied once per channel and id.
    pub provider_id: String,
    /// The billet it pays; none for a pay-off of a billing without one.
    pub billet_id: Option<BilletId>,
    /// What the payer paid (fine and interest included, discounts taken off).
    pub amount: Money,
    pub paid_on: NaiveDate,
    /// The provider's fee, deducted from what is credited.
    pub fee: Money,
    /// When the money is credited, and how much (the amount less the fee, unless the provider
    /// says otherwise).
    pub credit_on: NaiveDate,
    pub net_amount: Money,
    /// A pay-off's reason: the account wrote the billing off by hand (the manual channel), which
    /// makes it `discharged` rather than `paid`.
    pub paid_off: Option<DischargeReason>,
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
        keys::payment::payment(self.account_id, self.channel.as_str(), &self.provider_id)
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
        keys::payment::payment_to_refund(entry.account_id, at, entry.channel.as_str(), &entry.provider_id)
    }
}

/// The ledger entry of `payment` of billing `billing`.
pub fn entry(account: AccountId, billing: BillingId, payment: &Payment, outcome: Outcome, note: &str) -> Entry {
    Entry {
        account_id: account,
        channel: payment.channel,
        provider_id: payment.provider_id.clone(),
        billing_id: billing,
        billet_id: payment.billet_id,
        amount: payment.amount,
        paid_on: payment.paid_on,
        outcome,
        note: note.to_owned(),
        refunded: Money::ZERO,
        recorded_at: Timestamp::now(),
    }
}

/// The payment's entry, if the ledger has it.
pub async fn recorded(store: &Store, account: AccountId, payment: &Payment) -> Result<Option<Entry>, StoreError> {
    entry_of(store, account, payment.channel, &payment.provider_id).await
}

/// The ledger's entry of the payment `provider_id` of `channel`, if it has one.
pub async fn entry_of(
    store: &Store,
    account: AccountId,
    channel: Channel,
    provider_id: &str,
) -> Result<Option<Entry>, StoreError> {
    stored::find::<Entry>(store, keys::payment::payment(account, channel.as_str(), provider_id)).await
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

/// The account's payments to refund, oldest first, at most `limit`.
pub async fn to_refund(store: &Store, account: AccountId, limit: usize) -> Result<Vec<Entry>, StoreError> {
    let range = KeyRange::listing(keys::payment::payments_to_refund(account), Sort::All, true);
    let items = store.items_in(&range, 0, limit).await?;
    Ok(stored::read_all::<ToRefund>(items)?.into_iter().map(|kept| kept.0).collect())
}
