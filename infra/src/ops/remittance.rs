//! `ops remittance …`: the remittance files an account's agreements send to their banks, made now
//! (what the schedule would make next) and listed (`payments::boleto::remittance`).

use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::bank_rules::BankRule;
use billing_api::billets::banks;
use billing_api::billets::provider::provider_for;
use billing_api::files::Files;
use billing_api::payments::boleto::remittance;
use billing_api::store::Store;
use billing_api::values::{AccountId, BankRuleId};
use clap::Subcommand;
use serde_json::{json, Value};

#[derive(Subcommand, Debug)]
pub enum RemittanceCommand {
    /// Makes the account's remittance files due now (every agreement whose bank takes files,
    /// or one rule's), finishing first any left open; prints where they are in the bucket.
    #[command(after_long_help = bank_layouts())]
    Create {
        /// The account whose files these are.
        #[arg(long)]
        account: AccountId,
        /// Only this bank rule's agreement.
        #[arg(long)]
        bank_rule: Option<BankRuleId>,
    },
    /// The account's latest remittance files.
    #[command(after_long_help = bank_layouts())]
    List {
        /// The account whose files these are.
        #[arg(long)]
        account: AccountId,
        /// How many (newest first).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=100))]
        limit: u16,
    },
}

/// The bank layouts whose files these commands make and read, as their help ends
/// (`billets::banks::ALL`: a new bank's layout shows here with no edit).
pub fn bank_layouts() -> String {
    let layouts: Vec<String> = banks::ALL
        .iter()
        .map(|bank| format!("{} ({} {}, CNAB {})", bank.symbol, bank.title, bank.code, bank.width()))
        .collect();
    format!("Bank layouts (a bank rule's bank_symbol): {}.", layouts.join(", "))
}

/// Runs one `remittance` command.
pub async fn run(store: &Store, files: &Files, command: RemittanceCommand) -> anyhow::Result<Value> {
    match command {
        RemittanceCommand::Create { account, bank_rule } => create_remittances(store, files, account, bank_rule).await,
        RemittanceCommand::List { account, limit } => list_remittances(store, account, usize::from(limit)).await,
    }
}

/// How long `remittance create` keeps making files (what is left waits for the next run).
const BUDGET: Duration = Duration::from_secs(240);

/// The lanes (`remittance::lane`) of the account's rules whose bank takes remittance files (or of
/// one rule, which must be such a rule).
async fn agreements(store: &Store, account: AccountId, rule: Option<BankRuleId>) -> anyhow::Result<Vec<String>> {
    let rules: Vec<BankRule> = match rule {
        Some(id) => {
            let found = billing_api::store::records::find::<BankRule>(store, account, id).await?;
            let found = found.with_context(|| format!("no bank rule {id} in account {account}"))?;
            anyhow::ensure!(
                remittance::by_file(&found.bank_symbol),
                "bank rule {id} ({}) registers its billets at once: it has no remittance files",
                found.bank_symbol
            );
            vec![found]
        }
        None => {
            let (mut all, mut after) = (Vec::new(), 0);
            loop {
                let (rules, next) = super::listings::page::<BankRule>(store, account, after, 100).await?;
                all.extend(rules);
                match next {
                    Some(next) => after = next,
                    None => break all,
                }
            }
        }
    };
    let mut found = Vec::new();
    for rule in rules.iter().filter(|r| remittance::by_file(&r.bank_symbol)) {
        if let Some(provider) = provider_for(&rule.bank_symbol) {
            let agreement = provider.agreement(account, rule.agreement_code.as_deref());
            let agreement = remittance::lane(&rule.bank_symbol, &agreement);
            if !found.contains(&agreement) {
                found.push(agreement);
            }
        }
    }
    Ok(found)
}

/// `remittance create`: the account's files due now (open ones finished first).
pub async fn create_remittances(
    store: &Store,
    files: &Files,
    account: AccountId,
    rule: Option<BankRuleId>,
) -> anyhow::Result<Value> {
    billing_api::accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    let deadline = Instant::now() + BUDGET;
    let mut made = remittance::finish_open(store, files, account).await?;
    for agreement in agreements(store, account, rule).await? {
        made.extend(remittance::run_agreement(store, files, account, &agreement, deadline).await?);
    }
    Ok(json!({ "bucket": files.bucket(), "remittances": made }))
}

/// `remittance list`: the account's latest files (without their text).
pub async fn list_remittances(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Value> {
    let found = remittance::list(store, account, limit).await?;
    let shown: Vec<Value> = found
        .into_iter()
        .map(|r| {
            json!({
                "id": r.id, "agreement": r.agreement, "sequence": r.sequence, "state": r.state,
                "titles": r.titles.iter().map(|t| json!({
                    "billing_id": t.billing_id, "billet_id": t.billet_id, "instruction": t.instruction, "amount": t.amount,
                })).collect::<Vec<_>>(),
                "total": r.total, "key": r.key, "sha256": r.sha256,
                "created_at": r.created_at, "closed_at": r.closed_at,
            })
        })
        .collect();
    Ok(json!({ "remittances": shown }))
}
