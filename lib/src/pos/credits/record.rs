//! How credits and their movements are stored: a credit keyed by its reference in the account's
//! partition (`CREDIT#<sha256>`), a movement by its number in the contact's own partition
//! (`A#<account>#CREDITS#<contact>`, `sk = MOVE#<n>`).

use super::model::StoreCredit;
use super::movement::Movement;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, StoreResult, Write};
use crate::values::{AccountId, ContactId};

impl Stored for StoreCredit {
    const KIND: Option<&'static str> = Some("store_credit");
    type Scope<'a> = AccountId;

    /// Keyed by its reference: writing it only if absent is the reference's guard.
    fn key(&self, account: AccountId) -> Key {
        credit_key(account, &self.reference)
    }
}

/// The key of the account's credit with this reference.
pub(super) fn credit_key(account: AccountId, reference: &str) -> Key {
    (keys::account(account), keys::pos::store_credit(reference))
}

impl Stored for Movement {
    const KIND: Option<&'static str> = Some("credit_movement");
    /// The account and the contact whose movement it is.
    type Scope<'a> = (AccountId, ContactId);

    fn key(&self, (account, contact): Self::Scope<'_>) -> Key {
        (keys::pos::credit_movements(account, contact), keys::pos::credit_movement(self.number))
    }
}

impl Movement {
    /// The write that stores it, as a movement of `contact` (its number must be free).
    pub fn insert(&self, account: AccountId, contact: ContactId) -> StoreResult<Write> {
        stored::insert(self, (account, contact))
    }
}
