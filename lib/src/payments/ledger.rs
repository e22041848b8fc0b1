//! The payment ledger: what a payment is ([`Payment`], by [`Channel`]) and what became of it
//! ([`Entry`]: once per channel and provider id, with what it paid, its fee, its credit and its
//! refunds; [`ToRefund`]: the account's list of payments kept to refund). Types and reads only:
//! the writes of a new entry are `recording`'s, the workflow that applies a payment is `apply`.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, KeyRange, Sort, Store, StoreError};
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
    /// How much of it was given back to the payer: the refunds made through the service, or what
    /// the provider reports (a Pix's `devolucoes`, a card's refunds), whichever is more.
    #[serde(default, with = "number")]
    pub refunded: Money,
    pub recorded_at: Timestamp,
    /// What the billet asked, and how what was paid differs from it: interest (with the fine: the
    /// banks' return files report them as one) or a discount. A payment kept to refund, or one
    /// without a billet, asked what it paid.
    #[serde(default, with = "number")]
    pub original_amount: Money,
    #[serde(default, with = "number")]
    pub interest: Money,
    #[serde(default, with = "number")]
    pub discount: Money,
    /// The provider's fee, and what reaches the account's bank account, on `credit_on`.
    #[serde(default, with = "number")]
    pub fee: Money,
    #[serde(default, with = "number")]
    pub net_amount: Money,
    #[serde(default)]
    pub credit_on: Option<NaiveDate>,
    /// The refunds made through the service (`refunds`), oldest first.
    #[serde(default)]
    pub refunds: Vec<Refund>,
    /// The refund under way: asked of the provider, not recorded yet (one at a time).
    #[serde(default)]
    pub claim: Option<Refund>,
    /// Moves on at each change of the entry (a refund's claim, a refund): a change is written only
    /// over the entry it read. 0: an entry written before it had one.
    #[serde(default)]
    pub version: i64,
}

/// A refund of a payment made through the service.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refund {
    /// Ours (`rf_…`): the provider's idempotency key, so asking again is the same refund.
    pub id: String,
    #[serde(with = "number")]
    pub amount: Money,
    #[serde(default)]
    pub reason: String,
    /// Who asked: `api` (an integrator) or `ops` (an operator).
    pub by: String,
    pub requested_at: Timestamp,
    /// When it was recorded as made.
    #[serde(default)]
    pub made_at: Option<Timestamp>,
    /// The provider's id of it (a Pix devolução's `rtrId`, a Stripe refund's id); none for a
    /// boleto or a pay-off, whose refund is made outside the service.
    #[serde(default)]
    pub provider_id: Option<String>,
}

/// Where a payment stands: `applied` (it settled its billing), `to_refund` (kept to give back),
/// `refunded` (given back whole).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Applied,
    ToRefund,
    Refunded,
}

impl Status {
    pub const ALL: [Status; 3] = [Status::Applied, Status::ToRefund, Status::Refunded];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::ToRefund => "to_refund",
            Status::Refunded => "refunded",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|status| status.as_str() == text)
    }
}

impl Entry {
    pub fn status(&self) -> Status {
        match self.outcome {
            _ if self.amount.is_positive() && self.refunded >= self.amount => Status::Refunded,
            Outcome::Settled => Status::Applied,
            Outcome::ToRefund => Status::ToRefund,
        }
    }

    /// What is left to give back, less a refund under way.
    pub fn refundable(&self) -> Money {
        let claimed = self.claim.as_ref().map_or(Money::ZERO, |claim| claim.amount);
        (self.amount - self.refunded - claimed).max(Money::ZERO)
    }

    /// Its id in the API (`pay_…`): its channel and provider id, so a read goes to its key.
    pub fn id(&self) -> String {
        payment_id(self.channel, &self.provider_id)
    }
}

/// The API's id of the payment `provider_id` of `channel`.
pub fn payment_id(channel: Channel, provider_id: &str) -> String {
    use base64::Engine as _;
    let text = format!("{}:{provider_id}", channel.as_str());
    format!("pay_{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text))
}

/// The channel and provider id an API id names; `None` for anything not made by [`payment_id`].
pub fn read_payment_id(id: &str) -> Option<(Channel, String)> {
    use base64::Engine as _;
    let encoded = id.strip_prefix("pay_").filter(|rest| rest.len() <= 400)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (channel, provider_id) = text.split_once(':')?;
    let channel = Channel::parse(channel)?;
    (!provider_id.is_empty()).then(|| (channel, provider_id.to_owned()))
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
        original_amount: payment.amount,
        interest: Money::ZERO,
        discount: Money::ZERO,
        fee: payment.fee,
        net_amount: payment.net_amount,
        credit_on: Some(payment.credit_on),
        refunds: Vec::new(),
        claim: None,
        version: 1,
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

/// The account's payments to refund, oldest first, at most `limit`.
pub async fn to_refund(store: &Store, account: AccountId, limit: usize) -> Result<Vec<Entry>, StoreError> {
    let range = KeyRange::listing(keys::payment::payments_to_refund(account), Sort::All, true);
    let items = store.items_in(&range, 0, limit).await?;
    Ok(stored::read_all::<ToRefund>(items)?.into_iter().map(|kept| kept.0).collect())
}
