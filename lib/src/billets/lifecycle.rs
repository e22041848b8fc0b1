//! What a billing's changes do to its bank billet.
//!
//! - **Re-issue**: when an update of a billing whose registration was asked for changes what the
//!   billet prints or where it is registered (amount, due date, payer, bank rule), the current
//!   billet is cancelled in the update's transaction and a new registration is asked for
//!   (`billet_generation` + 1; the worker ignores messages of older generations). An update of a
//!   billing whose billet was rejected asks again even when it changes nothing, so fixing the
//!   payer's contact and sending `PATCH {"billing": {}}` retries the registration.
//! - **Cancel** cancels the open billet; **pay-off** writes it off (`discharged`).
//! - **Bank payment** ([`pay`], the simulated bank's settlement run by the ops CLI): billet
//!   `paid`, billing `paid` with its `gw_*` fields, and a `billing.updated` event recorded.

use anyhow::{bail, Context as _};
use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::model::{self, BankBillet, BilletStatus};
use crate::accounts::AccountId;
use crate::billings::compute::Status;
use crate::billings::model::Billing;
use crate::http::ApiResult;
use crate::jobs::{Job, Queues};
use crate::store::{records, retry_in_turn, Store, Write};
use crate::time::{today, Timestamp};

/// The billet of the billing's latest registration, once issued.
pub async fn current(store: &Store, account: AccountId, billing: &Billing) -> ApiResult<Option<BankBillet>> {
    match billing.billet_id {
        Some(id) => Ok(model::find(store, account, billing.id, id).await?),
        None => Ok(None),
    }
}

/// §2.1: the billet (if any) still lets the billing be edited freely.
pub fn billet_editable(current: Option<&BankBillet>) -> bool {
    current.is_none_or(|b| b.status.editable())
}

/// Whether `after` needs a new billet (see the module text).
pub fn reissue_needed(before: &Billing, after: &Billing, current: Option<&BankBillet>) -> bool {
    before.billet_generation > 0
        && after.status == Status::Opened
        && (before.amount != after.amount
            || before.due_date != after.due_date
            || before.contact_id != after.contact_id
            || before.bank_rule_id != after.bank_rule_id
            || current.is_some_and(|b| b.status == BilletStatus::Rejected))
}

/// Closes the billet in `to` (`canceled`, `discharged`) when it is still open.
pub fn close(account: AccountId, current: Option<&BankBillet>, to: BilletStatus) -> anyhow::Result<Vec<Write>> {
    match current {
        Some(billet) if billet.status.open() => {
            let mut next = billet.moved_to(to);
            if to == BilletStatus::Discharged {
                next.settlement.discharged_at = Some(today());
            }
            Ok(vec![billet.replace_with(account, &next)?])
        }
        _ => Ok(Vec::new()),
    }
}

/// Asks for a new registration on `next` and cancels the current billet (same transaction).
pub fn reissue(account: AccountId, next: &mut Billing, current: Option<&BankBillet>) -> anyhow::Result<Vec<Write>> {
    next.billet_generation += 1;
    next.billet_id = None;
    close(account, current, BilletStatus::Canceled)
}

/// Sends the registration message of the billing's latest generation. The billing is already
/// stored: should the message fail, the error is logged and the billing waits without a billet
/// (an update re-issues it).
pub async fn request_registration(queues: &Queues, account: AccountId, billing: &Billing) {
    let job = Job::billet_registration(account, billing.id, billing.billet_generation);
    if let Err(error) = queues.send(&job).await {
        tracing::error!(error = ?error, billing_id = billing.id, "could not enqueue the billet registration");
    }
}

/// A payment the bank reported.
#[derive(Clone, Debug)]
pub struct Payment {
    pub amount: Decimal,
    pub paid_on: NaiveDate,
    /// The bank's fee, deducted from what is credited.
    pub fee: Decimal,
}

/// Settles the billing's opened billet with a bank payment: the billet becomes `paid` (paid
/// amount and date, discount or interest as the difference to its amount, fee, credit on the
/// next business day); the billing becomes `paid` with `gw_received_with = bank_billet`,
/// `gw_payment_date`, `gw_gross_amount` = the billet's amount, `gw_discount_amount` /
/// `gw_extra_amount` = the difference, `gw_fee_amount` = the fee, so that
/// `display_amount_payable` (gross − discount + extra) is frozen at what was paid; and a
/// `billing.updated` event is recorded. All in one transaction.
pub async fn pay(store: &Store, account: AccountId, billing_id: i64, payment: &Payment) -> anyhow::Result<Billing> {
    if payment.amount <= Decimal::ZERO || payment.fee < Decimal::ZERO || payment.fee > payment.amount {
        bail!("the paid amount must be positive and the fee between zero and the paid amount");
    }
    let billing = retry_in_turn(records::key_of::<Billing>(account, billing_id), || async {
        let billing: Billing = records::find_or_404(store, account, billing_id).await?;
        if !billing.status.collectable() {
            return Err(
                anyhow::anyhow!("billing {billing_id} is {} and cannot be paid", billing.status.as_str()).into()
            );
        }
        let billet = current(store, account, &billing).await?;
        let Some(billet) = billet.filter(|b| b.status.collectable()) else {
            return Err(anyhow::anyhow!("billing {billing_id} has no registered (opened) bank billet yet").into());
        };
        let difference = payment.amount - billet.amount;
        let (discount, extra) =
            if difference < Decimal::ZERO { (-difference, Decimal::ZERO) } else { (Decimal::ZERO, difference) };
        let mut paid = billet.moved_to(BilletStatus::Paid);
        paid.settlement.paid_amount = payment.amount;
        paid.settlement.paid_at = Some(payment.paid_on);
        paid.settlement.net_amount = payment.amount - payment.fee;
        paid.settlement.bank_rate = payment.fee;
        paid.settlement.discount = discount;
        paid.settlement.interest = extra;
        paid.settlement.credit_at = Some(super::provider::credit_date(payment.paid_on));
        paid.registered.provider_status = Some("LIQUIDADO".into());
        let mut next = Billing {
            status: Status::Paid,
            updated_at: Timestamp::now(),
            version: billing.version + 1,
            ..billing.clone()
        };
        next.gw.received_with = Some("bank_billet".into());
        next.gw.payment_date = Some(payment.paid_on);
        next.gw.gross_amount = billet.amount;
        next.gw.fee_amount = payment.fee;
        next.gw.discount_amount = discount;
        next.gw.extra_amount = extra;
        // The event shows the billing as this transaction leaves it, the paid billet included.
        let mut billets = model::of_billing(store, account, billing.id).await?;
        billets.iter_mut().filter(|b| b.id == paid.id).for_each(|b| *b = paid.clone());
        let shown = crate::billings::single_with(store, account, &next, &billets).await?;
        let event =
            crate::events::record(account, crate::events::BILLING_UPDATED, serde_json::json!({"billing": shown}))?;
        let also = vec![billet.replace_with(account, &paid)?, event];
        records::replace(store, account, &billing, &next, "", also).await?;
        Ok(next)
    })
    .await
    .context("bank payment")?;
    Ok(billing)
}
