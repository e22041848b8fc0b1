//! The writes of a new ledger entry, beside the entry: its rows (`rows`: what `GET /v1/payments`
//! reads), its day's counts (`statement`) and its event; and those of a payment kept to refund.

use crate::refusal::Refusal;
use crate::store::stored;
use crate::store::Write;
use crate::values::{AccountId, BillingId};

use super::ledger::{entry, Entry, Outcome, Payment, ToRefund};
use super::{rows, statement};

/// The writes of a new ledger entry: the entry, only if absent (the condition a report of the
/// same payment fails on, and the whole transaction with it), its rows, its day's counts and its
/// event (`payment.applied`, or `payment.to_refund`).
pub fn recorded_new(entry: &Entry) -> Result<Vec<Write>, Refusal> {
    let kind = match entry.outcome {
        Outcome::Settled => crate::events::PAYMENT_APPLIED,
        Outcome::ToRefund => crate::events::PAYMENT_TO_REFUND,
    };
    let event = crate::events::record(entry.account_id, kind, payment_event(entry))?;
    let mut writes = vec![stored::insert(entry, ())?, event, statement::received(entry)];
    writes.extend(rows::put(entry)?);
    Ok(writes)
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
    let mut writes = recorded_new(&entry)?;
    writes.push(stored::put(&ToRefund(entry), ())?);
    Ok(writes)
}

/// What a payment event (`payment.applied`, `payment.to_refund`, `payment.refunded`) says: the
/// payment as `GET /v1/payments/{id}` shows it.
pub fn payment_event(entry: &Entry) -> serde_json::Value {
    serde_json::json!({ "payment": super::view::PaymentView::new(entry) })
}
