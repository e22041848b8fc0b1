//! The boleto channel: what the banks are told ([`remittance`]: registrations, changes and
//! write-offs in each bank's CNAB layout), what they answer ([`returns`]: return files read and
//! applied) and the payment a bank reports ([`bank`], also the simulated bank's). The layouts and
//! the slip are data and rendering in `crate::billets`; a billet's registration, which makes every
//! channel's charge, is [`crate::payments::registrar`].

pub mod bank;
pub mod remittance;
pub mod returns;

use super::channel::Withdrawal;
use super::channel::{no_billet, ChannelRoom};
use super::{Channel, Payment};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::values::{AccountId, BilletId, BillingId};

/// The boleto channel's room.
pub struct Boleto;

impl ChannelRoom for Boleto {
    const NAME: Channel = Channel::BankBillet;
    type Report = bank::Reported;

    fn payment(report: &bank::Reported, billing: BillingId, billet: Option<BilletId>) -> Result<Payment, String> {
        Ok(bank::payment(billing, billet.ok_or_else(|| no_billet(billing))?, report))
    }

    /// A billet the bank knows from a file and that closes otherwise than paid by boleto: its
    /// write-off.
    fn withdrawn(_: AccountId, _: &Billing, _: &Billing, billet: Option<&BilletWrite>) -> Option<Withdrawal> {
        billet.and_then(remittance::written_off).map(|_| Withdrawal::BoletoWriteOff)
    }
}
