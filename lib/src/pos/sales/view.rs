//! The sale as the API shows it (`GET /v1/sales`, the `sale.updated` event).

use serde::Serialize;

use super::model::Sale;
use crate::values::{ContactId, Money, PaymentKind, RefundTo, Timestamp};

/// The sale as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SaleView {
    pub code: String,
    pub contact_id: ContactId,
    /// `completed`, or `returned` once all of it was given back.
    pub status: &'static str,
    pub sold_at: Timestamp,
    pub total: Money,
    pub items: Vec<ItemView>,
    pub payments: Vec<PaymentView>,
    pub on_account_amount: Money,
    pub due_amount: Money,
    pub returned_amount: Money,
    pub settled_amount: Money,
    pub settlement_reference: Option<String>,
    pub receipts: Vec<ReceiptView>,
    pub returns: Vec<ReturnView>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ItemView {
    pub description: String,
    pub quantity: i64,
    pub unit_price: Money,
    pub amount: Money,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PaymentView {
    pub kind: PaymentKind,
    pub amount: Money,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReceiptView {
    pub received_at: Timestamp,
    pub kind: PaymentKind,
    pub amount: Money,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReturnView {
    pub returned_at: Timestamp,
    pub amount: Money,
    /// What it took off the open amount.
    pub off_due_amount: Money,
    /// What was given back, in `refund_to`.
    pub refunded_amount: Money,
    pub refund_to: RefundTo,
}

impl SaleView {
    pub fn of(sale: &Sale) -> SaleView {
        SaleView {
            code: sale.code.clone(),
            contact_id: sale.contact_id,
            status: sale.status(),
            sold_at: sale.sold_at,
            total: sale.total,
            items: sale
                .items
                .iter()
                .map(|i| ItemView {
                    description: i.description.clone(),
                    quantity: i.quantity,
                    unit_price: i.unit_price,
                    amount: i.amount,
                })
                .collect(),
            payments: sale.payments.iter().map(|p| PaymentView { kind: p.kind, amount: p.amount }).collect(),
            on_account_amount: sale.on_account_amount,
            due_amount: sale.due_amount,
            returned_amount: sale.returned_amount,
            settled_amount: sale.settled_amount,
            settlement_reference: sale.settlement_reference.clone(),
            receipts: sale
                .receipts
                .iter()
                .map(|r| ReceiptView { received_at: r.at, kind: r.kind, amount: r.amount })
                .collect(),
            returns: sale
                .returns
                .iter()
                .map(|r| ReturnView {
                    returned_at: r.at,
                    amount: r.amount,
                    off_due_amount: r.off_due,
                    refunded_amount: r.refunded,
                    refund_to: r.refund_to,
                })
                .collect(),
            created_at: sale.created_at,
            updated_at: sale.updated_at,
        }
    }
}

impl Sale {
    /// The `sale.updated` event of the sale as it is.
    pub fn announced(&self) -> crate::store::StoreResult<crate::store::Write> {
        crate::events::record(
            self.account_id,
            crate::events::SALE_UPDATED,
            serde_json::json!({ "sale": SaleView::of(self) }),
        )
    }
}
