//! `ops account …`: accounts (tenants, created "elsewhere" in the spec's words) created, changed,
//! shown and listed. A change takes effect at once (the authorizer cache is flushed); one that
//! shuts the account out or turns something off asks first on AWS.

use anyhow::Context as _;
use billing_api::accounts::{self, AccountChanges};
use billing_api::contacts::Contact;
use billing_api::store::records;
use billing_api::store::Store;
use billing_api::values::{AccountId, AccountStatus, ContactId};
use clap::{Subcommand, ValueEnum};
use serde_json::{json, Value};

use super::confirm::Destructive;
use super::listings::{self, PageArgs};
use crate::cache_flush::CacheFlusher;

#[derive(Subcommand, Debug)]
pub enum AccountCommand {
    /// Creates an account (active, KYC approved, point of sale off unless told otherwise).
    Create {
        /// The account's name.
        #[arg(long)]
        name: String,
        #[command(flatten)]
        settings: Settings,
    },
    /// Changes an account; the authorizer cache is flushed so the change applies at once (on
    /// AWS twice, the authorizer's timeout apart). Asks first on AWS when it locks the account
    /// out or turns something off.
    Update {
        /// The account's id.
        #[arg(long)]
        id: AccountId,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        settings: Settings,
    },
    /// Shows one account.
    Show {
        /// The account's id.
        #[arg(long)]
        id: AccountId,
    },
    /// Lists accounts by id, a page at a time.
    List {
        #[command(flatten)]
        page: PageArgs,
    },
}

#[derive(clap::Args, Debug)]
pub struct Settings {
    /// active, overdue, locked or canceled (anything but active answers 403 to every token).
    #[arg(long)]
    pub status: Option<AccountStatus>,
    /// Registration verification (KYC); pending answers 403 to every token.
    #[arg(long)]
    pub kyc: Option<Kyc>,
    /// Point-of-sale module.
    #[arg(long)]
    pub pos: Option<Switch>,
    /// Health module (billings name a patient; the payer defaults to the patient's guardian).
    #[arg(long)]
    pub health: Option<Switch>,
    /// Beneficiary CNPJ or CPF printed on bank billets (digits; punctuation is dropped).
    #[arg(long)]
    pub document: Option<String>,
    /// Beneficiary street address printed on bank billets.
    #[arg(long)]
    pub address: Option<String>,
    /// Beneficiary city (bank billets and the Pix code).
    #[arg(long)]
    pub city: Option<String>,
    /// Point of sale: the contact who pays settlements by transfer (`none` clears it).
    #[arg(long, value_parser = settlement_contact, value_name = "CONTACT_ID|none")]
    pub settlement_contact: Option<String>,
}

fn settlement_contact(text: &str) -> Result<String, String> {
    match text {
        "none" => Ok(text.to_owned()),
        id => id.parse::<ContactId>().map(|_| id.to_owned()).map_err(|_| "a contact id, or none".to_owned()),
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Kyc {
    Approved,
    Pending,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl Settings {
    pub fn changes(&self, name: Option<String>) -> AccountChanges {
        AccountChanges {
            name,
            status: self.status,
            kyc_approved: self.kyc.map(|k| matches!(k, Kyc::Approved)),
            pos_enabled: self.pos.map(|p| matches!(p, Switch::On)),
            health_module: self.health.map(|h| matches!(h, Switch::On)),
            document: self.document.clone(),
            address: self.address.clone(),
            city: self.city.clone(),
            settlement_contact_id: self.settlement_contact.as_deref().map(|c| c.parse().ok()),
        }
    }

    /// The parts of the change that shut the account's integrations out or take something
    /// away (what the confirmation names); empty when there is none.
    fn restrictions(&self) -> Vec<String> {
        let mut found = Vec::new();
        if let Some(status) = self.status.filter(|s| *s != AccountStatus::Active) {
            found.push(format!("status {status} (every token answers 403)"));
        }
        if let Some(Kyc::Pending) = self.kyc {
            found.push("KYC pending (every token answers 403)".to_owned());
        }
        if let Some(Switch::Off) = self.pos {
            found.push("point of sale off (its routes answer 403)".to_owned());
        }
        if let Some(Switch::Off) = self.health {
            found.push("health module off".to_owned());
        }
        if self.settlement_contact.as_deref() == Some("none") {
            found.push("no settlement contact".to_owned());
        }
        found
    }
}

impl AccountCommand {
    /// What an update takes away, when it shuts the account out or turns something off.
    pub fn destructive(&self) -> Option<Destructive> {
        let AccountCommand::Update { id, settings, .. } = self else { return None };
        let restrictions = settings.restrictions();
        match restrictions.is_empty() {
            true => None,
            false => Some(Destructive::on(*id, format!("change account {id}: {}", restrictions.join(", ")))),
        }
    }
}

/// Runs one `account` command.
pub async fn run(store: &Store, flusher: &CacheFlusher, command: AccountCommand) -> anyhow::Result<Value> {
    match command {
        AccountCommand::Create { name, settings } => create_account(store, &name, settings.changes(None)).await,
        AccountCommand::Update { id, name, settings } => {
            update_account(store, flusher, id, settings.changes(name)).await
        }
        AccountCommand::Show { id } => show_account(store, id).await,
        AccountCommand::List { page } => listings::accounts(store, page.after, page.limit).await,
    }
}

pub async fn create_account(store: &Store, name: &str, changes: AccountChanges) -> anyhow::Result<Value> {
    let account = accounts::create(store, name, changes).await?;
    Ok(json!({ "account": account }))
}

pub async fn show_account(store: &Store, id: AccountId) -> anyhow::Result<Value> {
    let account = accounts::find(store, id).await?.with_context(|| format!("no account {id}"))?;
    Ok(json!({ "account": account }))
}

/// A status, KYC or module change takes effect at once: the authorizer cache is flushed so that no
/// lookup in flight keeps the old account (`CacheFlusher::flush_settled`: twice on AWS, with the
/// authorizer's timeout between).
pub async fn update_account(
    store: &Store,
    flusher: &CacheFlusher,
    id: AccountId,
    changes: AccountChanges,
) -> anyhow::Result<Value> {
    if let Some(Some(contact)) = changes.settlement_contact_id {
        records::find::<Contact>(store, id, contact)
            .await?
            .with_context(|| format!("account {id} has no contact {contact} to pay its settlements"))?;
    }
    let account = accounts::update(store, id, changes).await?.with_context(|| format!("no account {id}"))?;
    let mut output = json!({ "account": account });
    flusher.flush_settled().await?.add_to(&mut output);
    Ok(output)
}
