//! A customer credit (§4.7) as recorded: the contact, the amount and the balance it left, with
//! the codes and refusals of its rules (an unknown contact, a reference reused with other data).

use serde::{Deserialize, Serialize};

use crate::refusal::Refusal;
use crate::store::item::number;
use crate::values::{ContactId, Money, StoreCreditId, Timestamp};

/// The stable code of an unknown contact (§7).
pub const CODE_CONTACT_NOT_FOUND: &str = "contact_not_found";
/// The stable code of a `reference` reused with different data.
pub const CODE_REFERENCE_REUSED: &str = "reference_reused";
pub const REFERENCE_MAX_CHARS: usize = 100;
pub const DESCRIPTION_MAX_CHARS: usize = 255;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoreCredit {
    pub id: StoreCreditId,
    pub reference: String,
    pub contact_id: ContactId,
    #[serde(with = "number")]
    pub amount: Money,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The contact's credit balance once it was added.
    #[serde(with = "number")]
    pub balance: Money,
    pub created_at: Timestamp,
}

pub(super) fn contact_not_found() -> Refusal {
    Refusal::Rule { code: CODE_CONTACT_NOT_FOUND, message: "Contato não encontrado na conta".to_owned() }
}

/// A `reference` already used with other data.
pub fn reference_reused(message: impl Into<String>) -> Refusal {
    Refusal::Clash { code: CODE_REFERENCE_REUSED, message: message.into() }
}
