//! Credit movements: the n-th change of a contact's credit balance (added, used in a sale, returned
//! as credit), with the balance after it. Stored in the contact's own partition (`super::record`),
//! in the transaction that changes the balance, which writes the contact on its version, so
//! numbers and balances never skip or repeat.

use serde::{Deserialize, Serialize};

use crate::contacts::Contact;
use crate::store::item::number;
use crate::values::{CreditMovementKind, Money, Timestamp};

/// The n-th credit movement of a contact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Movement {
    pub number: i64,
    pub movement: CreditMovementKind,
    /// Positive when credit is added or returned, negative when used.
    #[serde(with = "number")]
    pub amount: Money,
    /// The balance after it.
    #[serde(with = "number")]
    pub balance: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sale_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub created_at: Timestamp,
}

impl Movement {
    /// The next movement of `contact` (whose balance is already the new one), to write with it.
    pub fn next_of(contact: &Contact, movement: CreditMovementKind, amount: Money) -> Movement {
        Movement {
            number: contact.credit_movements,
            movement,
            amount,
            balance: contact.credit_balance,
            reference: None,
            sale_code: None,
            description: None,
            created_at: Timestamp::now(),
        }
    }
}
