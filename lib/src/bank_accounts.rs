//! Bank accounts of an account (§2.6): where a manual settlement (pay-off) is recorded. Type
//! `service` is the service's own account, which a pay-off may not target. Created elsewhere.

use serde::{Deserialize, Serialize};

use crate::store::counting::Counting;
use crate::store::records::{self, Record};
use crate::store::Store;
use crate::values::text::collapse_whitespace;
use crate::values::{AccountId, BankAccountId, BankAccountType, Timestamp};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BankAccount {
    pub id: BankAccountId,
    pub name: String,
    pub account_type: BankAccountType,
    pub created_at: Timestamp,
    pub version: i64,
}

#[derive(Serialize, Deserialize)]
pub struct BankAccountListFields {
    #[serde(default)]
    pub name: String,
}

impl Record for BankAccount {
    const KIND: &'static str = "BANKACCOUNT";
    const ITEM_KIND: &'static str = "bankaccount";
    type Id = BankAccountId;
    type ListFields = BankAccountListFields;

    fn id(&self) -> BankAccountId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> BankAccountListFields {
        BankAccountListFields { name: self.name.clone() }
    }
}

impl Counting for BankAccount {}

pub async fn create(
    store: &Store,
    account: AccountId,
    name: &str,
    account_type: BankAccountType,
) -> anyhow::Result<BankAccount> {
    let bank_account = BankAccount {
        id: records::next_id::<BankAccount>(store, account).await?,
        name: collapse_whitespace(name),
        account_type,
        created_at: Timestamp::now(),
        version: 1,
    };
    records::insert(store, account, &bank_account, Vec::new()).await?;
    Ok(bank_account)
}
