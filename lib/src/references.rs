//! Records the spec says are created elsewhere (§2.6) and billings refer to: bank rules, bank
//! accounts and financial categories. The ops CLI creates them; the API reads them (categories
//! through `GET /v1/bill_categories`, the others as foreign keys of billings).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::accounts::AccountId;
use crate::store::item::{b, n, opt_s, s};
use crate::store::records::{self, version_of, Record};
use crate::store::{Item, ItemExt, Store};
use crate::time::Timestamp;

/// The bank account type that is the service's own account: pay-off cannot target it (§4.2).
pub const SERVICE_ACCOUNT_TYPE: &str = "service";
pub const BANK_ACCOUNT_TYPES: [&str; 4] = ["checking", "savings", "cash", SERVICE_ACCOUNT_TYPE];
pub const CATEGORY_TYPES: [&str; 2] = ["receivable", "payable"];

/// Which bank or agreement produces the billets of a billing (`bank_symbol` picks the provider).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BankRule {
    pub id: i64,
    pub name: String,
    pub bank_symbol: String,
    pub agreement_code: Option<String>,
    pub active: bool,
    pub created_at: Timestamp,
    #[serde(skip)]
    pub version: i64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BankAccount {
    pub id: i64,
    pub name: String,
    pub account_type: String,
    pub created_at: Timestamp,
    #[serde(skip)]
    pub version: i64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BillCategory {
    pub id: i64,
    pub description: String,
    pub category_type: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(skip)]
    pub version: i64,
}

impl Record for BankRule {
    const KIND: &'static str = "BANKRULE";

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        HashMap::from([
            ("id".into(), n(self.id)),
            ("name".into(), s(&self.name)),
            ("bank_symbol".into(), s(&self.bank_symbol)),
            ("agreement_code".into(), opt_s(self.agreement_code.clone())),
            ("active".into(), b(self.active)),
            ("created_at".into(), s(self.created_at.to_string())),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        Ok(BankRule {
            id: item.int("id")?,
            name: item.string("name")?,
            bank_symbol: item.string("bank_symbol")?,
            agreement_code: item.opt_string("agreement_code"),
            active: item.boolean("active")?,
            created_at: item.timestamp("created_at")?,
            version: version_of(item)?,
        })
    }

    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([("name".into(), s(&self.name))])
    }
}

impl Record for BankAccount {
    const KIND: &'static str = "BANKACCOUNT";

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        HashMap::from([
            ("id".into(), n(self.id)),
            ("name".into(), s(&self.name)),
            ("account_type".into(), s(&self.account_type)),
            ("created_at".into(), s(self.created_at.to_string())),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        Ok(BankAccount {
            id: item.int("id")?,
            name: item.string("name")?,
            account_type: item.string("account_type")?,
            created_at: item.timestamp("created_at")?,
            version: version_of(item)?,
        })
    }

    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([("name".into(), s(&self.name))])
    }
}

impl Record for BillCategory {
    const KIND: &'static str = "CATEGORY";

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        HashMap::from([
            ("id".into(), n(self.id)),
            ("description".into(), s(&self.description)),
            ("category_type".into(), s(&self.category_type)),
            ("created_at".into(), s(self.created_at.to_string())),
            ("updated_at".into(), s(self.updated_at.to_string())),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        Ok(BillCategory {
            id: item.int("id")?,
            description: item.string("description")?,
            category_type: item.string("category_type")?,
            created_at: item.timestamp("created_at")?,
            updated_at: item.timestamp("updated_at")?,
            version: version_of(item)?,
        })
    }

    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([("description".into(), s(&self.description)), ("category_type".into(), s(&self.category_type))])
    }

    fn index_sk(&self) -> String {
        format!("{}#{}", self.category_type, crate::store::keys::record(Self::KIND, self.id))
    }
}

fn require(value: &str, allowed: &[&str], what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(allowed.contains(&value), "{what} must be one of {}", allowed.join(", "));
    Ok(())
}

pub async fn create_bank_rule(
    store: &Store,
    account: AccountId,
    name: &str,
    bank_symbol: &str,
    agreement_code: Option<String>,
) -> anyhow::Result<BankRule> {
    let rule = BankRule {
        id: records::next_id::<BankRule>(store, account).await?,
        name: crate::text::collapse_whitespace(name),
        bank_symbol: bank_symbol.trim().to_owned(),
        agreement_code,
        active: true,
        created_at: Timestamp::now(),
        version: 1,
    };
    records::insert(store, account, &rule, "", Vec::new()).await?;
    Ok(rule)
}

pub async fn create_bank_account(
    store: &Store,
    account: AccountId,
    name: &str,
    account_type: &str,
) -> anyhow::Result<BankAccount> {
    require(account_type, &BANK_ACCOUNT_TYPES, "account type")?;
    let bank_account = BankAccount {
        id: records::next_id::<BankAccount>(store, account).await?,
        name: crate::text::collapse_whitespace(name),
        account_type: account_type.to_owned(),
        created_at: Timestamp::now(),
        version: 1,
    };
    records::insert(store, account, &bank_account, "", Vec::new()).await?;
    Ok(bank_account)
}

pub async fn create_category(
    store: &Store,
    account: AccountId,
    description: &str,
    category_type: &str,
) -> anyhow::Result<BillCategory> {
    require(category_type, &CATEGORY_TYPES, "category type")?;
    let now = Timestamp::now();
    let category = BillCategory {
        id: records::next_id::<BillCategory>(store, account).await?,
        description: crate::text::collapse_whitespace(description),
        category_type: category_type.to_owned(),
        created_at: now,
        updated_at: now,
        version: 1,
    };
    records::insert(store, account, &category, "", Vec::new()).await?;
    Ok(category)
}
