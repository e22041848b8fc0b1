//! The ops CLI's bank files (issue 26): remittance files made now for one account, and the bank's
//! return files uploaded to the bucket and applied (`billings::billets::{remittance, returns}`).

use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::bank_rules::BankRule;
use billing_api::billets::provider::provider_for;
use billing_api::billings::billets::{remittance, returns};
use billing_api::files::{self, Files};
use billing_api::store::Store;
use billing_api::values::{AccountId, BankRuleId};
use serde_json::{json, Value};

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
                let (rules, next) = crate::listings::page::<BankRule>(store, account, after, 100).await?;
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

/// `return upload`: the file into the bucket (`returns/<account>/<name>`, as the bank's transfer
/// would put it; on AWS the bucket's trigger applies it too, which changes nothing more) and applied
/// now. A malformed file is refused naming the line and the field.
pub async fn upload_return(
    store: &Store,
    files: &Files,
    account: AccountId,
    path: &std::path::Path,
) -> anyhow::Result<Value> {
    billing_api::accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    let bytes = std::fs::read(path).with_context(|| format!("read {}", path.display()))?;
    anyhow::ensure!(
        i64::try_from(bytes.len()).unwrap_or(i64::MAX) <= files::MAX_RETURN_BYTES,
        "{} is larger than {} bytes",
        path.display(),
        files::MAX_RETURN_BYTES
    );
    let name = path.file_name().and_then(|n| n.to_str()).map(files::slug).unwrap_or_else(|| "return".into());
    // Read before it is stored: a malformed file never reaches the bucket's trigger.
    let parsed = billing_api::billets::cnab_return::parse(&returns::text_of(&bytes))
        .map_err(|malformed| anyhow::anyhow!("return file {} refused: {malformed}", path.display()))?;
    let key = format!("{}{account}/{name}", files::RETURNS);
    files.put(&key, &bytes).await?;
    let digest = returns::digest(&bytes);
    let applied = returns::apply_titles(store, account, &name, &digest, parsed.bank, &parsed.titles).await?;
    Ok(
        json!({ "key": key, "return_file": applied.file, "applied_now": applied.applied_now, "already_applied": applied.already }),
    )
}

/// `return show`: the account's return files, or one file's lines (all of them with `--all`, else
/// those not applied).
pub async fn show_returns(store: &Store, account: AccountId, file: Option<&str>, all: bool) -> anyhow::Result<Value> {
    let Some(sha256) = file else {
        return Ok(json!({ "return_files": returns::files_of(store, account, 100).await? }));
    };
    let sha256 = sha256.trim().to_ascii_lowercase();
    anyhow::ensure!(
        sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit()),
        "--file takes a return file's SHA-256 (64 hexadecimal digits, as `return show` lists them)"
    );
    let lines = returns::lines_of(store, account, &sha256).await?;
    let shown: Vec<Value> = lines
        .into_iter()
        .filter(|l| all || l.outcome != returns::Outcome::Applied)
        .map(|l| {
            json!({
                "line": l.line, "movement": l.movement, "our_number": l.our_number, "reference": l.reference,
                "billing_id": l.billing_id, "billet_id": l.billet_id, "amount": l.amount, "paid_amount": l.paid_amount,
                "outcome": l.outcome, "note": l.note, "applied_at": l.applied_at,
            })
        })
        .collect();
    Ok(json!({ "sha256": sha256, "lines": shown }))
}
