//! How settlements are stored: a settlement keyed by its reference in the account's partition, its
//! lines in their own partition (`A#<account>#SETTLEMENT#<sha256(reference)>`, `sk = SALE#<id>`),
//! the conditional updates of a settlement, and where the open-sales index ends for a cutoff.

use chrono::NaiveDate;

use super::model::{Line, Settlement};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Sort, Update, Write};
use crate::values::{AccountId, SaleId};

impl Stored for Settlement {
    const KIND: Option<&'static str> = Some("settlement");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        settlement_key(self.account_id, &self.reference)
    }
}

/// The key of the account's settlement with this reference.
pub(super) fn settlement_key(account: AccountId, reference: &str) -> Key {
    (keys::account(account), keys::pos::settlement(reference))
}

impl Settlement {
    /// An update of this settlement, under `condition`.
    pub(super) fn update(&self, change: Update, condition: Condition) -> Write {
        stored::update(self, (), change, condition)
    }
}

impl Stored for Line {
    const KIND: Option<&'static str> = Some("settlement_line");
    /// The account, the settlement's reference and the sale.
    type Scope<'a> = (AccountId, &'a str, SaleId);

    fn key(&self, (account, reference, sale): Self::Scope<'_>) -> Key {
        (keys::pos::settlement_lines(account, reference), keys::pos::sale(sale))
    }
}

/// The day after the cutoff, as the open-sales index's keys begin (`YYYY-MM-DD#…`).
pub(super) fn after(cutoff: NaiveDate) -> Sort {
    Sort::Below(cutoff.succ_opt().unwrap_or(cutoff).to_string())
}
