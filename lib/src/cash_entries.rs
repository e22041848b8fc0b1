//! Cash entries: money recorded on a bank account of the account. A manual settlement (pay-off)
//! writes one in the billing's transaction, inheriting the billing's category.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreResult, Write};
use crate::values::{
    AccountId, BankAccountId, BillCategoryId, BillingId, CashEntryId, ContactId, DischargeReason, Money, Timestamp,
};

const KIND: &str = "CASHENTRY";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CashEntry {
    pub id: CashEntryId,
    pub bank_account_id: BankAccountId,
    pub billing_id: BillingId,
    pub contact_id: Option<ContactId>,
    pub bill_category_id: Option<BillCategoryId>,
    #[serde(with = "number")]
    pub amount: Money,
    pub entry_date: NaiveDate,
    pub discharge_reason: Option<DischargeReason>,
    pub created_at: Timestamp,
}

impl CashEntry {
    /// A fresh id from this process's block of the account's sequence of cash entries
    /// (`Store::ids_from_block`: no write on most pay-offs).
    pub async fn next_id(store: &Store, account: AccountId) -> StoreResult<CashEntryId> {
        Ok(CashEntryId::new(store.ids_from_block(keys::account(account), keys::sequence(KIND), 1).await?))
    }

    /// The write that stores it (`A#<account>`, `CASHENTRY#<id>`; the key must be free).
    pub fn insert(&self, account: AccountId) -> StoreResult<Write> {
        stored::insert(self, account)
    }
}

impl Stored for CashEntry {
    const KIND: Option<&'static str> = Some("cash_entry");
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        (keys::account(account), keys::record(KIND, self.id))
    }
}
