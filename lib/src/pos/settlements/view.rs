//! Settlements as the API shows them (`/v1/receivable_settlements`). A preview
//! (`super::model::Preview`) is shown as the workflow computes it.

use chrono::NaiveDate;
use serde::Serialize;

use super::model::Settlement;
use crate::values::{BillingId, ContactId, Money, SettlementState, Timestamp};

/// The settlement as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SettlementView {
    pub reference: String,
    pub cutoff_at: NaiveDate,
    pub state: SettlementState,
    pub failure_reason: Option<String>,
    pub payer_contact_id: ContactId,
    pub sales_count: i64,
    pub contacts_count: i64,
    pub amount: Money,
    pub billing_id: Option<BillingId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

impl SettlementView {
    pub fn of(s: &Settlement) -> Self {
        SettlementView {
            reference: s.reference.clone(),
            cutoff_at: s.cutoff_at,
            state: s.state,
            failure_reason: s.failure_reason.clone(),
            payer_contact_id: s.payer_contact_id,
            sales_count: s.sales_count,
            contacts_count: s.contacts_count,
            amount: s.amount,
            billing_id: s.billing_id,
            created_at: s.created_at,
            updated_at: s.updated_at,
            completed_at: s.completed_at,
        }
    }
}
