//! Accounts: the tenants. Created and changed "elsewhere" (the ops CLI); the API only reads them
//! through the authorizer to gate access (§5).

use std::collections::HashMap;

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};

use crate::store::item::{b, n, opt_s, s};
use crate::store::{keys, Condition, Item, ItemExt, Store, Write};
use crate::time::Timestamp;

pub type AccountId = i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountStatus {
    Active,
    Overdue,
    Locked,
    Canceled,
}

impl AccountStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AccountStatus::Active => "active",
            AccountStatus::Overdue => "overdue",
            AccountStatus::Locked => "locked",
            AccountStatus::Canceled => "canceled",
        }
    }
}

impl std::str::FromStr for AccountStatus {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "active" => Ok(AccountStatus::Active),
            "overdue" => Ok(AccountStatus::Overdue),
            "locked" => Ok(AccountStatus::Locked),
            "canceled" => Ok(AccountStatus::Canceled),
            other => Err(format!("unknown account status {other:?} (active, overdue, locked, canceled)")),
        }
    }
}

impl std::fmt::Display for AccountStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub status: AccountStatus,
    pub kyc_approved: bool,
    pub pos_enabled: bool,
    /// Health module (patients and their financial guardians on billings).
    pub health_module: bool,
    /// Beneficiary data printed on bank billets (frozen into each billet at issuance): CNPJ or
    /// CPF digits, street address, city.
    pub document: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    #[serde(skip)]
    pub version: i64,
}

/// What the ops CLI may change; `None` keeps the current value.
#[derive(Clone, Debug, Default)]
pub struct AccountChanges {
    pub name: Option<String>,
    pub status: Option<AccountStatus>,
    pub kyc_approved: Option<bool>,
    pub pos_enabled: Option<bool>,
    pub health_module: Option<bool>,
    pub document: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
}

impl Account {
    /// Sets the beneficiary fields sent (an empty text clears one); the document keeps digits only.
    fn apply_profile(&mut self, changes: &AccountChanges) {
        let clean = |text: &String| Some(crate::text::collapse_whitespace(text)).filter(|t| !t.is_empty());
        if let Some(document) = &changes.document {
            self.document =
                Some(document.chars().filter(char::is_ascii_digit).collect()).filter(|d: &String| !d.is_empty());
        }
        if let Some(address) = &changes.address {
            self.address = clean(address);
        }
        if let Some(city) = &changes.city {
            self.city = clean(city);
        }
    }

    /// The beneficiary's full address on a billet: street address and city.
    pub fn full_address(&self) -> String {
        [self.address.as_deref(), self.city.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(", ")
    }

    fn to_item(&self) -> Item {
        HashMap::from([
            ("pk".to_owned(), s(keys::account(self.id))),
            ("sk".to_owned(), s(keys::ACCOUNT_SK)),
            ("kind".to_owned(), s("account")),
            ("id".to_owned(), n(self.id)),
            ("name".to_owned(), s(&self.name)),
            ("status".to_owned(), s(self.status.as_str())),
            ("kyc_approved".to_owned(), b(self.kyc_approved)),
            ("pos_enabled".to_owned(), b(self.pos_enabled)),
            ("health_module".to_owned(), b(self.health_module)),
            ("document".to_owned(), opt_s(self.document.clone())),
            ("address".to_owned(), opt_s(self.address.clone())),
            ("city".to_owned(), opt_s(self.city.clone())),
            ("created_at".to_owned(), s(self.created_at.to_string())),
            ("updated_at".to_owned(), s(self.updated_at.to_string())),
            ("version".to_owned(), n(self.version)),
        ])
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        Ok(Account {
            id: item.int("id")?,
            name: item.string("name")?,
            status: item.string("status")?.parse().map_err(anyhow::Error::msg)?,
            kyc_approved: item.boolean("kyc_approved")?,
            pos_enabled: item.boolean("pos_enabled")?,
            health_module: item.boolean("health_module").unwrap_or(false),
            document: item.opt_string("document"),
            address: item.opt_string("address"),
            city: item.opt_string("city"),
            created_at: item.timestamp("created_at")?,
            updated_at: item.timestamp("updated_at")?,
            version: item.int("version")?,
        })
    }
}

pub async fn find(store: &Store, id: AccountId) -> anyhow::Result<Option<Account>> {
    let item = store.get(keys::account(id), keys::ACCOUNT_SK).await?;
    item.map(|i| Account::from_item(&i)).transpose()
}

pub async fn create(store: &Store, name: &str, changes: AccountChanges) -> anyhow::Result<Account> {
    let name = crate::text::collapse_whitespace(name);
    if name.is_empty() {
        bail!("an account needs a name");
    }
    let id = store.next_id(keys::GLOBAL_PK.to_owned(), keys::sequence("ACCOUNT")).await?;
    let now = Timestamp::now();
    let mut account = Account {
        id,
        name,
        status: changes.status.unwrap_or(AccountStatus::Active),
        kyc_approved: changes.kyc_approved.unwrap_or(true),
        pos_enabled: changes.pos_enabled.unwrap_or(false),
        health_module: changes.health_module.unwrap_or(false),
        document: None,
        address: None,
        city: None,
        created_at: now,
        updated_at: now,
        version: 1,
    };
    account.apply_profile(&changes);
    store.write(vec![Write::put_if(account.to_item(), Condition::absent())]).await.context("create account")?;
    Ok(account)
}

pub async fn update(store: &Store, id: AccountId, changes: AccountChanges) -> anyhow::Result<Option<Account>> {
    for _ in 0..5 {
        let Some(current) = find(store, id).await? else { return Ok(None) };
        let mut next = current.clone();
        if let Some(name) = &changes.name {
            next.name = crate::text::collapse_whitespace(name);
        }
        next.status = changes.status.unwrap_or(next.status);
        next.kyc_approved = changes.kyc_approved.unwrap_or(next.kyc_approved);
        next.pos_enabled = changes.pos_enabled.unwrap_or(next.pos_enabled);
        next.health_module = changes.health_module.unwrap_or(next.health_module);
        next.apply_profile(&changes);
        next.version += 1;
        next.updated_at = Timestamp::now();
        match store.write(vec![Write::put_if(next.to_item(), Condition::version(current.version))]).await {
            Ok(()) => return Ok(Some(next)),
            Err(e) if e.failed_at(0) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    bail!("account {id} kept changing under this update; try again")
}
