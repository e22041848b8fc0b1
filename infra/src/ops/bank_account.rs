//! `ops bank-account …`: an account's bank accounts (the pay-off targets), created and listed.

use billing_api::bank_accounts;
use billing_api::store::Store;
use billing_api::values::{AccountId, BankAccountType};
use clap::Subcommand;
use serde_json::{json, Value};

use super::listings::{self, PageArgs};
use super::require_account;

#[derive(Subcommand, Debug)]
pub enum BankAccountCommand {
    /// Creates a bank account.
    Create {
        /// The account it belongs to.
        #[arg(long)]
        account: AccountId,
        /// The bank account's name.
        #[arg(long)]
        name: String,
        /// checking, savings, cash, or service (the service's own account).
        #[arg(long = "type", default_value = "checking")]
        account_type: String,
    },
    /// Lists the account's, by id, a page at a time.
    List {
        /// The account whose bank accounts to list.
        #[arg(long)]
        account: AccountId,
        #[command(flatten)]
        page: PageArgs,
    },
}

/// Runs one `bank-account` command.
pub async fn run(store: &Store, command: BankAccountCommand) -> anyhow::Result<Value> {
    match command {
        BankAccountCommand::Create { account, name, account_type } => {
            create_bank_account(store, account, &name, &account_type).await
        }
        BankAccountCommand::List { account, page } => {
            listings::bank_accounts(store, account, page.after, page.limit).await
        }
    }
}

/// A bank account; type `service` is the service's own account (refused as pay-off target).
pub async fn create_bank_account(
    store: &Store,
    account: AccountId,
    name: &str,
    account_type: &str,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let account_type: BankAccountType =
        account_type.parse().map_err(|_| anyhow::anyhow!("account type must be one of {}", BankAccountType::list()))?;
    let bank_account = bank_accounts::create(store, account, name, account_type).await?;
    Ok(json!({ "bank_account": bank_account }))
}
