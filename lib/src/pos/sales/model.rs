//! A sale as recorded: its items, payments, receipts and returns, its code, and what the
//! open-sales index carries of it while it owes something (how it is stored: `super::record`).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::values::{AccountId, ContactId, Money, PaymentKind, RefundTo, SaleId, Timestamp};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SaleItem {
    pub description: String,
    pub quantity: i64,
    #[serde(with = "number")]
    pub unit_price: Money,
    #[serde(with = "number")]
    pub amount: Money,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    pub kind: PaymentKind,
    #[serde(with = "number")]
    pub amount: Money,
}

/// A payment against the sale's open amount.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    pub at: Timestamp,
    pub kind: PaymentKind,
    #[serde(with = "number")]
    pub amount: Money,
}

/// Part of the sale given back: first off its open amount, the rest refunded in cash or as credit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SaleReturn {
    pub at: Timestamp,
    #[serde(with = "number")]
    pub amount: Money,
    #[serde(with = "number")]
    pub off_due: Money,
    #[serde(with = "number")]
    pub refunded: Money,
    pub refund_to: RefundTo,
}

/// What the open-sales index carries of a sale (`list_fields`): enough to preview a settlement
/// without reading the sales.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenEntry {
    pub contact_id: ContactId,
    pub code: String,
    #[serde(with = "number")]
    pub due_amount: Money,
    pub sold_on: NaiveDate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sale {
    pub id: SaleId,
    pub code: String,
    pub account_id: AccountId,
    pub contact_id: ContactId,
    pub sold_at: Timestamp,
    pub items: Vec<SaleItem>,
    pub payments: Vec<Payment>,
    #[serde(default)]
    pub receipts: Vec<Receipt>,
    #[serde(default)]
    pub returns: Vec<SaleReturn>,
    #[serde(with = "number")]
    pub total: Money,
    #[serde(with = "number")]
    pub on_account_amount: Money,
    #[serde(with = "number")]
    pub due_amount: Money,
    #[serde(default, with = "number")]
    pub returned_amount: Money,
    #[serde(default, with = "number")]
    pub settled_amount: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settlement_reference: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
    /// What the open-sales index carries of it, while it is listed there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_fields: Option<OpenEntry>,
}

/// The code of sale `id`: its number, zero-padded to six digits.
pub fn code_for(id: SaleId) -> String {
    format!("{:06}", id.get())
}

/// The sale a code names (any positive number, leading zeros or not).
pub fn id_of_code(code: &str) -> Option<SaleId> {
    code.trim().parse::<SaleId>().ok()
}

impl Sale {
    pub fn status(&self) -> &'static str {
        if self.returned_amount >= self.total {
            "returned"
        } else {
            "completed"
        }
    }

    /// With what the open-sales index carries while something is open (its index keys follow
    /// the same rule: `Stored::index` in `super::record`).
    pub(super) fn indexed(mut self) -> Sale {
        if self.due_amount.is_positive() {
            let sold_on = self.sold_at.date();
            self.list_fields = Some(OpenEntry {
                contact_id: self.contact_id,
                code: self.code.clone(),
                due_amount: self.due_amount,
                sold_on,
            });
        } else {
            self.list_fields = None;
        }
        self
    }

    /// `self` changed by `change`, one version more and re-indexed.
    pub fn changed(&self, change: impl FnOnce(&mut Sale)) -> Sale {
        let mut next = self.clone();
        change(&mut next);
        next.version += 1;
        next.updated_at = Timestamp::now();
        next.indexed()
    }
}
