//! Credits and movements as the API shows them (`/v1/store_credits`, the `store_credit.created`
//! event).

use serde::Serialize;

use super::model::StoreCredit;
use super::movement::Movement;
use crate::values::{ContactId, CreditMovementKind, Money, StoreCreditId, Timestamp};

/// A credit as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoreCreditView {
    pub id: StoreCreditId,
    pub reference: String,
    pub contact_id: ContactId,
    pub amount: Money,
    pub description: Option<String>,
    pub balance: Money,
    pub created_at: Timestamp,
}

impl StoreCreditView {
    pub fn of(credit: &StoreCredit) -> Self {
        StoreCreditView {
            id: credit.id,
            reference: credit.reference.clone(),
            contact_id: credit.contact_id,
            amount: credit.amount,
            description: credit.description.clone(),
            balance: credit.balance,
            created_at: credit.created_at,
        }
    }
}

/// A movement as the API lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MovementView {
    pub number: i64,
    pub kind: CreditMovementKind,
    /// Positive when added or returned, negative when used.
    pub amount: Money,
    /// The balance after it.
    pub balance: Money,
    pub reference: Option<String>,
    pub sale_code: Option<String>,
    pub description: Option<String>,
    pub created_at: Timestamp,
}

impl MovementView {
    pub fn of(movement: &Movement) -> Self {
        MovementView {
            number: movement.number,
            kind: movement.movement,
            amount: movement.amount,
            balance: movement.balance,
            reference: movement.reference.clone(),
            sale_code: movement.sale_code.clone(),
            description: movement.description.clone(),
            created_at: movement.created_at,
        }
    }
}
