//! `ops bank-rule …`: an account's bank rules (which bank or agreement issues its billets),
//! created and listed.

use billing_api::bank_rules;
use billing_api::store::Store;
use billing_api::values::AccountId;
use clap::Subcommand;
use serde_json::{json, Value};

use super::listings::{self, PageArgs};
use super::require_account;

#[derive(Subcommand, Debug)]
pub enum BankRuleCommand {
    /// Creates a bank rule.
    Create {
        /// The account it belongs to.
        #[arg(long)]
        account: AccountId,
        /// The rule's name.
        #[arg(long)]
        name: String,
        /// The bank or provider that issues the billets: `simulated` (the simulated bank), or a bank
        /// of remittance files: `itau`, `itau_400`, `bradesco`, `bradesco_400`, `banco_do_brasil`,
        /// `santander`, `caixa`, `sicoob` (docs/banks.md).
        #[arg(long, default_value = "simulated")]
        bank_symbol: String,
        /// The agreement (convênio) with the bank, as that bank writes it (docs/banks.md;
        /// checked here: `itau` 0057/12345-7/109, `bradesco` 1234-0/0012345-6/09/4567890, …).
        #[arg(long)]
        agreement_code: Option<String>,
    },
    /// Lists the account's, by id, a page at a time.
    List {
        /// The account whose rules to list.
        #[arg(long)]
        account: AccountId,
        #[command(flatten)]
        page: PageArgs,
    },
}

/// Runs one `bank-rule` command.
pub async fn run(store: &Store, command: BankRuleCommand) -> anyhow::Result<Value> {
    match command {
        BankRuleCommand::Create { account, name, bank_symbol, agreement_code } => {
            create_bank_rule(store, account, &name, &bank_symbol, agreement_code).await
        }
        BankRuleCommand::List { account, page } => listings::bank_rules(store, account, page.after, page.limit).await,
    }
}

/// A bank rule (which bank or agreement issues the billets). `bank_symbol` names the provider.
pub async fn create_bank_rule(
    store: &Store,
    account: AccountId,
    name: &str,
    bank_symbol: &str,
    agreement_code: Option<String>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let rule = bank_rules::create(store, account, name, bank_symbol, agreement_code).await?;
    Ok(json!({ "bank_rule": rule }))
}
