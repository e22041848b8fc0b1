//! The boleto channel: what the banks are told ([`remittance`]: registrations, changes and
//! write-offs in each bank's CNAB layout), what they answer ([`returns`]: return files read and
//! applied) and the payment a bank reports ([`bank`], also the simulated bank's). The layouts and
//! the slip are data and rendering in `crate::billets`; a billet's registration, which makes every
//! channel's charge, is [`crate::payments::registrar`].

pub mod bank;
pub mod remittance;
pub mod returns;

use super::channel::Withdrawal;
use anyhow::Context as _;

use super::channel::{no_billet, ChannelRoom};
use super::{Channel, Payment};
use crate::accounts::Account;
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billets::provider::{provider_for, Answer};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::store::Store;
use crate::values::{today, AccountId, BilletId, BillingId};

/// The boleto channel's room.
pub struct Boleto;

impl ChannelRoom for Boleto {
    const NAME: Channel = Channel::BankBillet;
    type Report = bank::Reported;

    fn payment(report: &bank::Reported, billing: BillingId, billet: Option<BilletId>) -> Result<Payment, String> {
        Ok(bank::payment(billing, billet.ok_or_else(|| no_billet(billing))?, report))
    }

    /// The billet registered at its bank (`remitting` → `opened` with its codes, `rejected` with
    /// why, or `pending_remittance` for a bank that learns of it from a file).
    async fn charge(owner: &Account, _: &Billing, billet: &mut BankBillet) -> anyhow::Result<()> {
        let provider = provider_for(&billet.bank_symbol).context("no provider for an issued billet")?;
        let answer = provider.register(owner, billet).await.context("bank registration")?;
        *billet = registered(billet, answer);
        Ok(())
    }

    /// Nothing to call: the write-off was queued in the change's transaction, and the remittance
    /// job writes it into the bank's next file.
    async fn remove(_: &Store, _: AccountId, _: BillingId, _: Withdrawal) -> anyhow::Result<()> {
        Ok(())
    }

    /// A billet the bank knows from a file and that closes otherwise than paid by boleto: its
    /// write-off.
    fn withdrawn(_: AccountId, _: &Billing, _: &Billing, billet: Option<&BilletWrite>) -> Option<Withdrawal> {
        billet.and_then(remittance::written_off).map(|_| Withdrawal::BoletoWriteOff)
    }
}

/// A billet being registered (`remitting`) as its bank's answer leaves it.
fn registered(remitting: &BankBillet, answer: Answer) -> BankBillet {
    let mut done = match &answer {
        Answer::Registered { .. } => remitting.moved_to(BilletStatus::Opened),
        Answer::Rejected { .. } => remitting.moved_to(BilletStatus::Rejected),
        Answer::AwaitingRemittance { .. } => remitting.moved_to(BilletStatus::PendingRemittance),
    };
    // Remitted now, except to a bank that learns of billets from a remittance file (later).
    if !matches!(answer, Answer::AwaitingRemittance { .. }) {
        done.registered.remittanced_at = Some(today());
    }
    match answer {
        Answer::Registered { our_number, barcode, digitable_line, pix_qr_code, provider_id, provider_status } => {
            done.registered.our_number = Some(our_number);
            done.registered.barcode = Some(barcode);
            done.registered.digitable_line = Some(digitable_line);
            done.registered.pix_qr_code = pix_qr_code;
            done.registered.provider_id = Some(provider_id);
            done.registered.provider_status = Some(provider_status);
        }
        Answer::AwaitingRemittance { our_number, barcode, digitable_line, provider_status } => {
            done.registered.our_number = Some(our_number);
            done.registered.barcode = Some(barcode);
            done.registered.digitable_line = Some(digitable_line);
            done.registered.provider_status = Some(provider_status);
        }
        Answer::Rejected { message, provider_status } => {
            done.registered.bank_rejection = Some(message);
            done.registered.provider_status = Some(provider_status);
        }
    }
    done
}
