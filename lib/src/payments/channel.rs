//! The surface every payment channel's room offers the payment workflow (DESIGN §10):
//! [`ChannelRoom`], implemented by `boleto::Boleto`, `pix::Pix`, `card::Cards` and
//! `manual::Manual`. A channel makes or revises its charge when a billet is registered (the
//! registrar asks every room in turn), reads what its provider reports of a payment into one
//! [`Payment`] (which `decide` applies), and says which of its charges a billing's change withdraws
//! (which `withdrawals` writes in the change's transaction and the channel's worker carries out at
//! the provider: the remittance job, the Pix charges and the card releases queues).

use super::{Channel, Payment};
use crate::accounts::Account;
use crate::billets::model::BankBillet;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::store::Store;
use crate::values::{AccountId, BilletId, BillingId};

/// A charge withdrawn at its channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Withdrawal {
    /// The billet's write-off, in its bank's next remittance.
    BoletoWriteOff,
    /// The billing's Pix charge, removed at the PSP whose secret this is.
    PixCharge(String),
    /// The billing's card intents, cancelled at the gateway: its card's when still open (named),
    /// and those its checkout made that nobody confirmed.
    CardIntents(Option<String>),
}

/// A payment channel, as the workflow sees it.
#[allow(async_fn_in_trait)] // implemented and called inside the crate only
pub trait ChannelRoom {
    /// Its name in the ledger, on the billet and on the billing (`gw_received_with`).
    const NAME: Channel;

    /// What its provider reports of one payment (a bank's, a Pix received, a gateway's intent, a
    /// pay-off's cash entry).
    type Report;

    /// The payment `report` makes of billet `billet` (the billing's current one; none for a
    /// billing without one) of billing `billing`, or why it is no payment.
    fn payment(report: &Self::Report, billing: BillingId, billet: Option<BilletId>) -> Result<Payment, String>;

    /// Makes this channel's charge of `billet`, the billing's billet being registered by `owner`,
    /// or revises the billing's charge for it (a re-issue): what the billet carries of it. The
    /// boleto's comes first (the bank's answer says whether the billet takes payments at all); a
    /// provider that cannot be reached fails, and the registration is tried again.
    async fn charge(owner: &Account, billing: &Billing, billet: &mut BankBillet) -> anyhow::Result<()>;

    /// Carries out at the provider what [`ChannelRoom::withdrawn`] asked of this channel for the
    /// account's billing `billing` (its worker, after the change's transaction): nothing when the
    /// withdrawal is not this channel's or needs no call. Done twice, it changes nothing more.
    async fn remove(
        store: &Store,
        account: AccountId,
        billing: BillingId,
        withdrawal: Withdrawal,
    ) -> anyhow::Result<()>;

    /// The charge of this channel that the change of a billing from `current` to `next` (writing
    /// `billet`, when it writes its billet) withdraws, if it withdraws one.
    fn withdrawn(
        account: AccountId,
        current: &Billing,
        next: &Billing,
        billet: Option<&BilletWrite>,
    ) -> Option<Withdrawal>;
}

/// Why a payment of a channel that pays billets names none.
pub fn no_billet(billing: BillingId) -> String {
    format!("a cobrança {billing} não tem boleto a pagar")
}
