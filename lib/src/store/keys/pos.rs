//! Keys of the point of sale: sales, open on-account sales, store credits and settlements.

use super::*;
use crate::values::{AccountId, ContactId, SaleId};

/// A point-of-sale sale (in the account's partition).
pub fn sale(id: SaleId) -> String {
    record("SALE", id)
}

/// Prefix of [`sale`]: the lines of a settlement are one key range of it.
pub const SALE_PREFIX: &str = "SALE#";

/// Partition of one key item per sale of the account (`sk` = [`sale_key`]): lists read a page of
/// it, newest first, optionally within a date range.
pub fn sales(account: AccountId) -> String {
    format!("A#{account}#SALES")
}

/// The same, for one contact's sales.
pub fn sales_of_contact(account: AccountId, contact: ContactId) -> String {
    format!("A#{account}#SALES#C{:010}", contact.get())
}

/// Sort key of a sale's key items: sold at (epoch ms, 13 digits), then its id.
pub fn sale_key(sold_at_millis: i64, id: SaleId) -> String {
    format!("{sold_at_millis:013}#{:010}", id.get())
}

/// `gsi1` partition of the account's sales with an open on-account amount
/// (`gsi1sk = <sold on YYYY-MM-DD>#<id:010>`): what a settlement by transfer takes up to a date.
pub fn open_sales(account: AccountId) -> String {
    format!("A#{account}#SALES#OPEN")
}

/// Sort key of an open sale in [`open_sales`]: the day it was sold, then its id.
pub fn open_sale(sold_on: chrono::NaiveDate, id: SaleId) -> String {
    format!("{sold_on}#{:010}", id.get())
}

/// A customer credit added through the API, keyed by its `reference` (hashed: any length), so
/// that the item is its own idempotency guard.
pub fn store_credit(reference: &str) -> String {
    format!("CREDIT#{}", super::digest(reference))
}

/// Partition of one contact's credit movements (`sk` = [`credit_movement`]).
pub fn credit_movements(account: AccountId, contact: ContactId) -> String {
    format!("A#{account}#CREDITS#{:010}", contact.get())
}

/// The n-th credit movement of a contact (1, 2, …): a page is a key range.
pub fn credit_movement(n: i64) -> String {
    format!("MOVE#{n:010}")
}

/// A settlement by transfer, keyed by its `reference` (hashed).
pub fn settlement(reference: &str) -> String {
    format!("SETTLEMENT#{}", super::digest(reference))
}

/// Partition of a settlement's lines (`sk = SALE#<id:010>`): the sales it settled.
pub fn settlement_lines(account: AccountId, reference: &str) -> String {
    format!("A#{account}#{}", settlement(reference))
}

/// The range of [`sale_key`]s sold from `from` to `to` (epoch ms, both included).
pub fn sales_between(from: i64, to: i64) -> crate::store::Sort {
    crate::store::Sort::Between(format!("{from:013}#"), format!("{to:013}#9999999999"))
}
