//! A settlement by transfer (§4.7) as recorded: its cutoff, payer, state and running totals, the
//! lines (the sales it took), the sizes of its chunks and billing, and the refusal of a store
//! without a payer contact; and the preview of a settlement up to a date (what it would take,
//! grouped by contact), which the API shows as it is.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::refusal::Refusal;
use crate::store::item::number;
use crate::values::{AccountId, BillingId, ContactId, Money, SettlementState, Timestamp};

pub const CODE_SETTLEMENT_CONTACT_MISSING: &str = "settlement_contact_missing";
/// Why a message naming a chunk other than the next does nothing.
pub const CHUNK_RUN: &str = "another message ran this chunk, or it is not due";
/// Sales one message settles before handing the rest to the next message.
pub const CHUNK: usize = 50;
/// Sales a preview lists one by one (its totals count them all).
pub const PREVIEW_SALES_SHOWN: usize = 500;
/// Customers a preview lists (its counts and total take them all): the answer stays far below
/// Lambda's 6 MB whatever the account holds.
pub const PREVIEW_CONTACTS_SHOWN: usize = 1000;
/// Items of the payer's billing: one per customer, the rest summed in the last one.
pub(super) const BILLING_ITEMS: usize = 500;
/// Days from the settlement to its billing's due date (then the next business day).
pub(super) const DUE_IN_DAYS: u64 = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settlement {
    pub reference: String,
    pub account_id: AccountId,
    pub cutoff_at: NaiveDate,
    pub state: SettlementState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    pub payer_contact_id: ContactId,
    #[serde(default)]
    pub sales_count: i64,
    #[serde(default)]
    pub contacts_count: i64,
    #[serde(default, with = "number")]
    pub amount: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_id: Option<BillingId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    /// Chunks of sales run so far: the number of the chunk the next message runs.
    #[serde(default)]
    pub chunk: i64,
}

/// A sale a settlement took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub sale_code: String,
    pub contact_id: ContactId,
    #[serde(with = "number")]
    pub amount: Money,
}

pub(super) fn missing_contact() -> Refusal {
    Refusal::Rule {
        code: CODE_SETTLEMENT_CONTACT_MISSING,
        message: "A loja não configurou o contato pagador do acerto por transferência".to_owned(),
    }
}

/// What a settlement up to a date would take.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Preview {
    pub cutoff_at: NaiveDate,
    pub payer_contact_id: Option<ContactId>,
    pub total: Money,
    pub sales_count: usize,
    pub contacts_count: usize,
    pub contacts: Vec<ContactPreview>,
    /// Whether some sales are counted but not listed (more than 500).
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContactPreview {
    pub contact_id: ContactId,
    pub name: Option<String>,
    pub sales_count: usize,
    pub amount: Money,
    pub sales: Vec<SalePreview>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SalePreview {
    pub code: String,
    pub sold_on: NaiveDate,
    pub due_amount: Money,
}
