//! The manual channel: a billing paid off by the account (§3.1 `pay_off`), with a cash entry on
//! one of its bank accounts; the pay-off is the channel's payment in the ledger
//! (`ledger::paid_off`), and its open billet is written off in the same transaction.

mod routes;

pub use routes::routes;

use super::channel::Withdrawal;
use super::{Channel, ChannelRoom, Decided, Payment};
use crate::bank_accounts::BankAccount;
use crate::billets::model::BankBillet;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::compute;
use crate::billings::input::{bank_account_not_found, PayOff};
use crate::billings::model::Billing;
use crate::billings::service;
use crate::billings::view::Embedded;
use crate::cash_entries::CashEntry;
use crate::refusal::{Code, Problem, Refusal};
use crate::store::records;
use crate::store::{Store, Write};
use crate::values::{today, AccountId, BankAccountType, BilletId, BillingId, DischargeReason, Money, Timestamp};

/// `POST /v1/billings/{id}/pay_off` (§3.1): a collectable billing is settled manually, recording a
/// cash entry on a bank account of the account (not the service's own) that inherits the billing's
/// category. Without `gw_gross_amount`, the amount payable today is taken as received. Its open
/// billet is written off (`discharged`) in the same transaction.
pub async fn pay_off(
    store: &Store,
    account: AccountId,
    id: BillingId,
    request: Result<PayOff, Vec<Problem>>,
) -> Result<(Billing, Embedded), Refusal> {
    let (billing, (), embedded) = service::change_shown(store, account, id, |current, billet| {
        let request = request.clone();
        async move {
            let request = request.map_err(Refusal::Invalid)?;
            match records::find::<BankAccount>(store, account, request.bank_account_id).await? {
                None => return Err(Refusal::invalid(bank_account_not_found())),
                Some(a) if a.account_type == BankAccountType::Service => {
                    let message = "Conta bancária do próprio serviço não pode receber baixa manual";
                    return Err(Refusal::invalid(Problem::at("bank_account_id", Code::NotAllowed, message)));
                }
                Some(_) => {}
            }
            if !current.status.accepts_cancel_or_pay_off() {
                return Err(service::refused(&current, "baixada"));
            }
            if current.is_booklet() {
                let message = "Um carnê é pago pelas suas parcelas: dê baixa em cada uma";
                return Err(Refusal::invalid(Problem::general(Code::NotAllowed, message)));
            }
            let today = today();
            let received =
                request.gross.unwrap_or_else(|| Money::new(compute::compute(&current.terms(), today).amount_payable));
            let entry = CashEntry {
                id: CashEntry::next_id(store, account).await?,
                bank_account_id: request.bank_account_id,
                billing_id: current.id,
                contact_id: current.contact_id,
                bill_category_id: current.bill_category_id,
                amount: received,
                entry_date: today,
                discharge_reason: Some(request.discharge_reason),
                created_at: Timestamp::now(),
            };
            let (pk, sk) = records::key_of::<BankAccount>(account, request.bank_account_id);
            // The pay-off is the manual channel's payment, decided as every payment is (a new cash
            // entry is a new payment: the ledger has none of it to read).
            let report = (entry.clone(), request.discharge_reason);
            let payment =
                Manual::payment(&report, current.id, billet.as_ref().map(|b| b.id)).map_err(anyhow::Error::msg)?;
            let id = current.id;
            match super::decide(account, current.clone(), billet.as_ref(), &payment, None)? {
                Decided::Settles { next, billet, mut also } => {
                    also.extend([entry.insert(account)?, Write::check_exists(pk, sk)]);
                    Ok(service::Ruled::Changed { next: *next, billet, also, announce: true, then: () })
                }
                Decided::Already(_) | Decided::ToRefund(_) => {
                    tracing::warn!(billing = %id, "a pay-off the payment workflow refused");
                    Err(service::refused(&current, "baixada"))
                }
            }
        }
    })
    .await?;
    Ok((billing, embedded))
}

/// The manual channel's payment: the pay-off recorded as `entry` (its amount, its day), of the
/// billing's current billet `billet`, if it has one; no fee, credited that day.
fn paid_off(billet: Option<BilletId>, entry: &CashEntry, reason: DischargeReason) -> Payment {
    Payment {
        channel: Channel::Manual,
        provider_id: format!("cash_entry/{}", entry.id),
        billet_id: billet,
        amount: entry.amount,
        paid_on: entry.entry_date,
        fee: Money::ZERO,
        credit_on: entry.entry_date,
        net_amount: entry.amount,
        paid_off: Some(reason),
    }
}

/// The manual channel's room: a pay-off's payment is its cash entry, with its reason; it has no
/// charge to withdraw.
pub struct Manual;

impl ChannelRoom for Manual {
    const NAME: Channel = Channel::Manual;
    type Report = (CashEntry, DischargeReason);

    fn payment(report: &Self::Report, _: BillingId, billet: Option<BilletId>) -> Result<Payment, String> {
        let (entry, reason) = report;
        Ok(paid_off(billet, entry, *reason))
    }

    /// None: the account writes the billing off itself.
    async fn charge(_: &crate::accounts::Account, _: &Billing, _: &mut BankBillet) -> anyhow::Result<()> {
        Ok(())
    }

    async fn remove(_: &Store, _: AccountId, _: BillingId, _: Withdrawal) -> anyhow::Result<()> {
        Ok(())
    }

    fn withdrawn(_: AccountId, _: &Billing, _: &Billing, _: Option<&BilletWrite>) -> Option<Withdrawal> {
        None
    }
}
