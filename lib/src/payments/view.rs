//! A payment as the API shows it (`GET /v1/payments`, its events): the ledger entry, amounts as
//! decimal strings.

use chrono::NaiveDate;
use serde::Serialize;

use super::ledger::{Entry, Refund};
use crate::values::{BilletId, BillingId, Money, Timestamp};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaymentView {
    pub id: String,
    pub billing_id: BillingId,
    pub bank_billet_id: Option<BilletId>,
    pub channel: &'static str,
    /// The provider's id: our number and date of a boleto's return line, a Pix's endToEndId, a
    /// card's intent, a pay-off's cash entry.
    pub provider_id: String,
    pub status: &'static str,
    /// What the payer paid.
    pub amount: Money,
    /// What the billet asked, and the difference: interest (fine included) or discount.
    pub original_amount: Money,
    pub interest_amount: Money,
    pub discount_amount: Money,
    pub fee_amount: Money,
    pub net_amount: Money,
    pub refunded_amount: Money,
    pub paid_on: NaiveDate,
    pub credit_on: Option<NaiveDate>,
    /// Why it is kept to refund (empty for one that settled its billing).
    pub reason: String,
    pub recorded_at: Timestamp,
    pub refunds: Vec<RefundView>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefundView {
    pub id: String,
    pub amount: Money,
    pub reason: String,
    pub by: String,
    pub requested_at: Timestamp,
    pub made_at: Option<Timestamp>,
    pub provider_id: Option<String>,
}

impl RefundView {
    pub fn new(refund: &Refund) -> Self {
        RefundView {
            id: refund.id.clone(),
            amount: refund.amount,
            reason: refund.reason.clone(),
            by: refund.by.clone(),
            requested_at: refund.requested_at,
            made_at: refund.made_at,
            provider_id: refund.provider_id.clone(),
        }
    }
}

impl PaymentView {
    pub fn new(entry: &Entry) -> Self {
        PaymentView {
            id: entry.id(),
            billing_id: entry.billing_id,
            bank_billet_id: entry.billet_id,
            channel: entry.channel.as_str(),
            provider_id: entry.provider_id.clone(),
            status: entry.status().as_str(),
            amount: entry.amount,
            original_amount: entry.original_amount,
            interest_amount: entry.interest,
            discount_amount: entry.discount,
            fee_amount: entry.fee,
            net_amount: entry.net_amount,
            refunded_amount: entry.refunded,
            paid_on: entry.paid_on,
            credit_on: entry.credit_on,
            reason: entry.note.clone(),
            recorded_at: entry.recorded_at,
            refunds: entry.refunds.iter().map(RefundView::new).collect(),
        }
    }
}
