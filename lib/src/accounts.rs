//! Accounts: the tenants. Created and changed "elsewhere" (the ops CLI); the API only reads them
//! through the authorizer to gate access (§5).

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};

use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, StoreResult};
use crate::values::text::collapse_whitespace;
use crate::values::ContactId;
use crate::values::Timestamp;
pub use crate::values::{AccountId, AccountStatus};

/// An account as stored (`pk = A#<id>`, `sk = ACCOUNT`) and as the ops CLI prints it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub status: AccountStatus,
    pub kyc_approved: bool,
    pub pos_enabled: bool,
    /// Health module (patients and their financial guardians on billings).
    #[serde(default)]
    pub health_module: bool,
    /// Beneficiary data printed on bank billets (frozen into each billet at issuance): CNPJ or
    /// CPF digits, street address, city.
    pub document: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    /// Point of sale: the contact who pays the receivable of a settlement by transfer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settlement_contact_id: Option<ContactId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
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
    /// `Some(None)` clears it.
    pub settlement_contact_id: Option<Option<ContactId>>,
}

impl Account {
    /// Sets the beneficiary fields sent (an empty text clears one); the document keeps digits only.
    fn apply_profile(&mut self, changes: &AccountChanges) {
        let clean = |text: &String| Some(collapse_whitespace(text)).filter(|t| !t.is_empty());
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
}

impl Stored for Account {
    const KIND: Option<&'static str> = Some("account");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        key_of(self.id)
    }
}

fn key_of(id: AccountId) -> Key {
    (keys::account(id), keys::ACCOUNT_SK.to_owned())
}

pub async fn find(store: &Store, id: AccountId) -> StoreResult<Option<Account>> {
    stored::find(store, key_of(id)).await
}

pub async fn create(store: &Store, name: &str, changes: AccountChanges) -> anyhow::Result<Account> {
    let name = collapse_whitespace(name);
    if name.is_empty() {
        bail!("an account needs a name");
    }
    let id = AccountId::new(store.next_id(keys::GLOBAL_PK.to_owned(), keys::sequence("ACCOUNT")).await?);
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
        settlement_contact_id: changes.settlement_contact_id.flatten(),
        created_at: now,
        updated_at: now,
        version: 1,
    };
    account.apply_profile(&changes);
    store.write(vec![stored::insert(&account, ())?]).await.context("create account")?;
    Ok(account)
}

pub async fn update(store: &Store, id: AccountId, changes: AccountChanges) -> anyhow::Result<Option<Account>> {
    for _ in 0..5 {
        let Some(current) = find(store, id).await? else { return Ok(None) };
        let mut next = current.clone();
        if let Some(name) = &changes.name {
            next.name = collapse_whitespace(name);
        }
        next.status = changes.status.unwrap_or(next.status);
        next.kyc_approved = changes.kyc_approved.unwrap_or(next.kyc_approved);
        next.pos_enabled = changes.pos_enabled.unwrap_or(next.pos_enabled);
        next.health_module = changes.health_module.unwrap_or(next.health_module);
        if let Some(contact) = changes.settlement_contact_id {
            next.settlement_contact_id = contact;
        }
        next.apply_profile(&changes);
        next.version += 1;
        next.updated_at = Timestamp::now();
        match store.write(vec![stored::put_if(&next, (), Condition::version(current.version))?]).await {
            Ok(()) => return Ok(Some(next)),
            Err(e) if e.failed_at(0) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    bail!("account {id} kept changing under this update; try again")
}
