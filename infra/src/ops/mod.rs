//! The ops CLI (`infra/ops`, or `ops` once installed with `cargo install --path infra --bin ops
//! --locked`): the operations the spec says happen "elsewhere" (accounts, tokens) and the
//! operator's own, one file per command group, each group's command line beside what it does.
//! Here: the command line's global flags and its groups, which commands make sense only locally
//! and which ask for confirmation on AWS, and [`run`], which decides where a run works and hands
//! the command to its group.

use std::io::IsTerminal as _;

use anyhow::Context as _;
use billing_api::store::Store;
use billing_api::values::AccountId;
use clap::{Parser, Subcommand};
use serde_json::Value;

use crate::target::{self, Consent, LocalOnly, Target};
use account::AccountCommand;
use bank_account::BankAccountCommand;
use bank_rule::BankRuleCommand;
use billing::BillingCommand;
use category::CategoryCommand;
use confirm::Destructive;
use contact::ContactCommand;
use export::ExportCommand;
use gateway::GatewayCommand;
use payment::PaymentCommand;
use pix::PixCommand;
use reminders::RemindersCommand;
use remittance::RemittanceCommand;
use returns::ReturnCommand;
use sale::SaleCommand;
use schedules::SchedulesCommand;
use token::TokenCommand;
use webhook::WebhookCommand;

pub mod account;
pub mod bank_account;
pub mod bank_rule;
pub mod billing;
pub mod category;
pub mod confirm;
pub mod contact;
pub mod export;
pub mod gateway;
pub mod listings;
pub mod names;
pub mod output;
pub mod payment;
pub mod pix;
pub mod reminders;
pub mod remittance;
pub mod returns;
pub mod sale;
pub mod schedules;
pub mod token;
pub mod webhook;

// The operations the black-box tests and the functions' tests call by their path from before the
// command groups had files of their own (`infra::ops::…`).
pub use account::update_account;
pub use bank_account::create_bank_account;
pub use bank_rule::create_bank_rule;
pub use billing::{pay_billing, recount_billings};
pub use category::create_category;
pub use contact::{
    recount_contacts, recount_reach, rename_stored_contacts, set_financial_guardian, set_on_account_limit,
};
pub use payment::payments_to_refund;
pub use token::revoke_token;

#[derive(Parser, Debug)]
#[command(
    name = "ops",
    about = "Operations that happen outside the API: accounts, API tokens, bank rules, bank accounts, categories, billings, contacts, webhook receivers, point-of-sale sales, bank files, payments to refund, Pix, reminders, card payments",
    long_about = "Operations that happen outside the API: accounts, API tokens, bank rules, bank accounts, categories, billings (legacy ones, recounts), contacts (guardians, limits, repairs), webhook receivers, point-of-sale sales, remittance and return files, payments to refund, Pix, reminders, card payments.\n\n\
        Prints JSON on stdout. Errors are JSON on stderr with exit status 1; a command refused before it started (a local-only command against AWS, a destructive one not confirmed) exits with 2.\n\n\
        Where it works: with --stack NAME (or OPS_STACK) against AWS, the table, API and webhook key read from that stack's outputs; with --local against the local stack started by infra/run (.local/stack.env); otherwise from the environment (AWS_ENDPOINT_URL set: local; unset: AWS with TABLE_NAME, REST_API_ID, API_STAGE, WEBHOOK_KEY_SECRET_ID).\n\n\
        Against AWS, commands that delete, revoke, disable, lock, refund or replace secrets ask for confirmation on the terminal unless --yes is given.",
    version
)]
pub struct Cli {
    /// The CloudFormation stack to work on: its outputs name the table, the API and its stage
    /// (and the webhook key), and the run targets AWS.
    #[arg(long, global = true, env = "OPS_STACK", value_name = "NAME")]
    pub stack: Option<String>,
    /// Work on the local stack that infra/run started: read its settings from .local/stack.env
    /// (in this directory or the nearest parent that has one; OPS_LOCAL_ENV names another file).
    #[arg(long, global = true, conflicts_with = "stack")]
    pub local: bool,
    /// Do not ask before a destructive command against AWS (needed when stdin is not a terminal).
    #[arg(long, short = 'y', global = true)]
    pub yes: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Accounts (tenants).
    #[command(subcommand)]
    Account(AccountCommand),
    /// API tokens of an account.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Bank rules (which bank or agreement issues an account's billets).
    #[command(subcommand)]
    BankRule(BankRuleCommand),
    /// Bank accounts of an account (pay-off targets).
    #[command(subcommand)]
    BankAccount(BankAccountCommand),
    /// Financial categories (receivable or payable).
    #[command(subcommand)]
    Category(CategoryCommand),
    /// Billings: legacy ones (recurring `schedule`, instalment booklet `carne`) migrated from
    /// elsewhere, a type's counters counted again, and (local stack) the simulated bank's payment.
    #[command(subcommand)]
    Billing(BillingCommand),
    /// Contacts: the health module's financial guardian, the point of sale's limit, and the repairs
    /// of contacts written around the service (counters and a tag's reach counted again, stored
    /// names moved).
    #[command(subcommand)]
    Contact(ContactCommand),
    /// Webhook receivers of an account, their deliveries and replays.
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// Point of sale: sales made at the store's counter, their receipts and returns.
    #[command(subcommand)]
    Sale(SaleCommand),
    /// Remittance files to the banks, for every bank layout (CNAB 240 and 400): made now, listed.
    #[command(subcommand, after_long_help = remittance::bank_layouts())]
    Remittance(RemittanceCommand),
    /// The banks' return files, of every bank layout (CNAB 240 and 400): uploaded and applied,
    /// shown.
    #[command(subcommand, after_long_help = remittance::bank_layouts())]
    Return(ReturnCommand),
    /// The payments ledger as every channel writes it: payments, one payment, refunds, a day's
    /// statement, those kept to refund.
    #[command(subcommand)]
    Payment(PaymentCommand),
    /// An account's billings or payments written to a CSV file (UTF-8 with BOM, `;`, decimal
    /// commas) by the stack's exports worker, followed with a progress bar; prints a link to it.
    Export(ExportCommand),
    /// Pix: a bank rule's Pix institution (PSP), a Pix given back to its payer, the reconciliation
    /// of what no webhook brought, and (local stack) a payer's Pix at the local PSP.
    #[command(subcommand)]
    Pix(PixCommand),
    /// Reminders to payers: a day's run, an account's schedule and senders, a billing's
    /// deliveries, suppressed addresses, and (local stack) the providers' events.
    #[command(subcommand)]
    Reminders(RemindersCommand),
    /// Schedules: a day's issuing run (each schedule's cycle due by then issued once), a
    /// schedule's cycles and the billings they made.
    #[command(subcommand)]
    Schedules(SchedulesCommand),
    /// Card payments: an account's checkout gateway (Stripe) and its keys, a billing's card
    /// payment captured, released, refunded or read back from the gateway, the funds' availability.
    #[command(subcommand)]
    Gateway(GatewayCommand),
    /// Creates the table, queues, secret and bucket when missing (local stack only).
    Setup,
}

impl Command {
    /// Why the command makes sense only on the local stack, for those that do.
    pub fn local_only(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Command::Setup => Some(("setup", "creates the table, queues and secret that the stack deploys on AWS")),
            Command::Billing(command) => command.local_only(),
            Command::Pix(command) => command.local_only(),
            Command::Reminders(command) => command.local_only(),
            _ => None,
        }
    }

    /// What the command destroys or takes away, for those that ask for confirmation on AWS.
    pub fn destructive(&self) -> Option<Destructive> {
        match self {
            Command::Account(command) => command.destructive(),
            Command::Token(command) => command.destructive(),
            Command::Contact(command) => command.destructive(),
            Command::Webhook(command) => command.destructive(),
            Command::Sale(command) => command.destructive(),
            Command::Return(command) => command.destructive(),
            Command::Pix(command) => command.destructive(),
            Command::Payment(command) => command.destructive(),
            Command::Gateway(command) => command.destructive(),
            _ => None,
        }
    }
}

/// Runs the command where the flags and the environment say: refused first, before any AWS call,
/// when it is local-only against AWS or destructive and not confirmed; asked on the terminal when
/// it must be. Returns the JSON to print.
pub async fn run(cli: Cli) -> anyhow::Result<Value> {
    let stack = cli.stack.as_deref().map(str::trim).filter(|s| !s.is_empty());
    anyhow::ensure!(!(cli.local && stack.is_some()), "give --local or --stack (OPS_STACK), not both");
    let target = Target::of(stack.is_some(), |name| std::env::var(name).ok());
    if let (Target::Aws, Some((command, why))) = (target, cli.command.local_only()) {
        return Err(LocalOnly::new(command, why, stack.is_some()).into());
    }
    // Decided before anything is read, so a refusal costs no AWS call.
    let action = cli.command.destructive();
    let consent =
        target::consent(target, action.as_ref().map(|a| a.what.as_str()), cli.yes, std::io::stdin().is_terminal())?;
    let config = billing_api::config::aws().await;
    let names = names::Names::resolve(&config, stack).await?;
    billing_api::app::wire();
    let store = Store::new(aws_sdk_dynamodb::Client::new(&config), names.table.clone());
    if let (Consent::Ask, Some(action)) = (consent, &action) {
        confirm::ask_first(&store, &names.place, action).await?;
    }
    let output = dispatch(cli.command, &config, &names, store).await;
    // Against the local stack, the dev server hands on what the command wrote at once, not at its
    // next minute's sweep (`CacheFlusher::nudge_outbox`; nothing elsewhere).
    names.flusher.nudge_outbox().await;
    output
}

/// Hands the command to its group.
async fn dispatch(
    command: Command,
    config: &aws_config::SdkConfig,
    names: &names::Names,
    store: Store,
) -> anyhow::Result<Value> {
    match command {
        Command::Account(command) => account::run(&store, &names.flusher, command).await,
        Command::Token(command) => token::run(&store, &names.flusher, command).await,
        Command::BankRule(command) => bank_rule::run(&store, command).await,
        Command::BankAccount(command) => bank_account::run(&store, command).await,
        Command::Category(command) => category::run(&store, command).await,
        Command::Billing(command) => billing::run(&store, command).await,
        Command::Contact(command) => contact::run(&store, command).await,
        Command::Webhook(command) => webhook::run(config, names.webhook_key_secret.as_deref(), store, command).await,
        Command::Sale(command) => sale::run(&store, command).await,
        Command::Remittance(command) => remittance::run(&store, &names.files(config), command).await,
        Command::Return(command) => returns::run(&store, &names.files(config), command).await,
        Command::Payment(command) => payment::run(&store, command).await,
        Command::Export(command) => export::run(&store, &names.files(config), command).await,
        Command::Pix(command) => pix::run(&store, config, command).await,
        Command::Reminders(command) => reminders::run(&store, config, command).await,
        Command::Schedules(command) => Box::pin(schedules::run(&store, command)).await,
        Command::Gateway(command) => Box::pin(gateway::run(&store, command)).await,
        Command::Setup => Ok(serde_json::to_value(crate::local_stack::ensure(config, &names.table).await?)?),
    }
}

/// A refusal as the operator reads it: its messages.
pub fn refusal(refusal: billing_api::refusal::Refusal) -> anyhow::Error {
    use billing_api::refusal::Refusal;
    match refusal {
        Refusal::Invalid(problems) => anyhow::anyhow!("{}", billing_api::refusal::messages(&problems).join("; ")),
        Refusal::Rule { message, .. } | Refusal::Clash { message, .. } => anyhow::anyhow!("{message}"),
        other => anyhow::anyhow!("{other}"),
    }
}

/// The account, or an error naming it when there is none.
pub async fn require_account(store: &Store, account: AccountId) -> anyhow::Result<()> {
    billing_api::accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::*;

    /// `ops` with these words.
    fn parse(words: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("ops").chain(words.iter().copied())).unwrap()
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every flag of every command has help, and every command says what it does.
    #[test]
    fn every_argument_and_command_has_help() {
        fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
            if command.get_about().is_none() && command.get_long_about().is_none() {
                missing.push(format!("command `{path}`"));
            }
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                if matches!(id, "help" | "version") {
                    continue;
                }
                let help = arg.get_help().or(arg.get_long_help()).map(|h| h.to_string()).unwrap_or_default();
                if help.trim().is_empty() {
                    missing.push(format!("`{path} --{}`", arg.get_long().unwrap_or(id)));
                }
            }
            for sub in command.get_subcommands().filter(|sub| sub.get_name() != "help") {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut command = Cli::command();
        command.build();
        let mut missing = Vec::new();
        walk(&command, "ops", &mut missing);
        assert!(missing.is_empty(), "without help text: {missing:#?}");
        // The walk did walk: the tree has every group and their commands.
        let names: Vec<_> = command.get_subcommands().map(|c| c.get_name().to_owned()).collect();
        assert!(names.contains(&"webhook".to_owned()) && names.contains(&"sale".to_owned()), "{names:?}");
    }

    #[test]
    fn global_flags_go_anywhere_and_local_excludes_stack() {
        let cli = parse(&["token", "revoke", "--account", "1", "--id", "2", "--yes", "--stack", "prod"]);
        assert!(cli.yes && !cli.local);
        assert_eq!(cli.stack.as_deref(), Some("prod"));
        assert!(parse(&["--local", "account", "list"]).local);
        let both = Cli::try_parse_from(["ops", "--local", "--stack", "prod", "account", "list"]).unwrap_err();
        assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
    }

    #[test]
    fn destructive_commands_are_the_ones_that_take_something_away() {
        let what = |words: &[&str]| parse(words).command.destructive().map(|d| (d.what, d.account));
        let revoke = what(&["token", "revoke", "--account", "1", "--id", "2"]).unwrap();
        assert_eq!(revoke.1, Some(AccountId::new(1)));
        assert!(revoke.0.starts_with("revoke API token 2 of account 1"), "{}", revoke.0);

        for words in [
            &["account", "update", "--id", "1", "--status", "locked"][..],
            &["account", "update", "--id", "1", "--status", "overdue"],
            &["account", "update", "--id", "1", "--status", "canceled"],
            &["account", "update", "--id", "1", "--kyc", "pending"],
            &["account", "update", "--id", "1", "--pos", "off"],
            &["account", "update", "--id", "1", "--health", "off"],
            &["account", "update", "--id", "1", "--settlement-contact", "none"],
            &["webhook", "remove", "--account", "1", "--id", "1"],
            &["webhook", "disable", "--account", "1", "--id", "1"],
            &["webhook", "rotate-secret", "--account", "1", "--id", "1"],
            &["webhook", "reseal", "--account", "1"],
            &["webhook", "reseal"],
            &["sale", "return", "--account", "1", "--sale", "V1", "--amount", "10.00"],
            &["contact", "guardian", "--account", "1", "--contact", "2", "--clear"],
            &["contact", "limit", "--account", "1", "--contact", "2", "--clear"],
            &["pix", "refund", "--account", "1", "--end-to-end-id", "E1"],
            &["gateway", "refund", "--account", "1", "--billing", "2"],
        ] {
            assert!(what(words).is_some(), "{words:?} should ask");
        }
        let locked = what(&["account", "update", "--id", "3", "--status", "locked", "--pos", "off"]).unwrap();
        assert_eq!(
            locked.0,
            "change account 3: status locked (every token answers 403), point of sale off (its routes answer 403)"
        );
        assert_eq!(what(&["webhook", "reseal"]).unwrap().1, None);
        let pix = what(&["pix", "refund", "--account", "1", "--end-to-end-id", "E1", "--amount", "5.00"]).unwrap();
        assert_eq!(pix.0, "give back 5.00 of Pix E1 of account 1 to its payer (through its PSP)");
        let card = what(&["gateway", "refund", "--account", "1", "--billing", "2"]).unwrap();
        assert_eq!(
            card,
            (
                "refund the card payment of billing 2 of account 1 whole (through the gateway)".into(),
                Some(AccountId::new(1))
            )
        );

        for words in [
            &["account", "create", "--name", "Loja"][..],
            &["account", "update", "--id", "1", "--status", "active", "--kyc", "approved", "--pos", "on"],
            &["account", "update", "--id", "1", "--name", "Outro nome", "--settlement-contact", "4"],
            &["account", "list"],
            &["token", "create", "--account", "1", "--name", "ERP"],
            &["token", "list", "--account", "1"],
            &["webhook", "add", "--account", "1", "--url", "https://example.com/hook"],
            &["webhook", "enable", "--account", "1", "--id", "1"],
            &["webhook", "replay", "--account", "1", "--event", "evt_1"],
            &["sale", "receive", "--account", "1", "--sale", "V1", "--amount", "10.00"],
            &["contact", "guardian", "--account", "1", "--contact", "2", "--guardian", "3"],
            &["contact", "limit", "--account", "1", "--contact", "2", "--limit", "50.00"],
            &["pix", "reconcile"],
            &["gateway", "sync", "--account", "1", "--billing", "2"],
            &["setup"],
        ] {
            assert_eq!(what(words), None, "{words:?} should not ask");
        }
    }
}
