//! `ops return …`: the bank's return files, uploaded to the bucket and applied (asks first on AWS),
//! and shown with their lines (`payments::boleto::returns`).

use anyhow::Context as _;
use billing_api::files::{self, Files};
use billing_api::payments::boleto::returns;
use billing_api::store::Store;
use billing_api::values::AccountId;
use clap::Subcommand;
use serde_json::{json, Value};

use super::confirm::Destructive;
use super::remittance::bank_layouts;

#[derive(Subcommand, Debug)]
pub enum ReturnCommand {
    /// Puts a return file of the bank in the bucket (returns/<account>/<name>) and applies it.
    /// The same file again changes nothing; a malformed one is refused naming line and field.
    /// Asks first on AWS.
    #[command(after_long_help = bank_layouts())]
    Upload {
        /// The return file (CNAB 240 or 400, of any bank layout: its header names the bank).
        file: std::path::PathBuf,
        /// The account whose files these are.
        #[arg(long)]
        account: AccountId,
    },
    /// The account's return files (with counts of lines applied, unchanged, not applied), or
    /// with --file the lines of one that were not applied (--all: every line).
    #[command(after_long_help = bank_layouts())]
    Show {
        /// The account whose files these are.
        #[arg(long)]
        account: AccountId,
        /// The file's SHA-256, as the list shows it.
        #[arg(long)]
        file: Option<String>,
        /// With --file: every line, applied ones too.
        #[arg(long, requires = "file")]
        all: bool,
    },
}

impl ReturnCommand {
    /// What an upload changes.
    pub fn destructive(&self) -> Option<Destructive> {
        let ReturnCommand::Upload { account, file } = self else { return None };
        Some(Destructive::on(
            *account,
            format!(
                "apply the bank's return file {} to account {account} (its billets and billings change: \
                 registered, refused, paid)",
                file.display()
            ),
        ))
    }
}

/// Runs one `return` command.
pub async fn run(store: &Store, files: &Files, command: ReturnCommand) -> anyhow::Result<Value> {
    match command {
        ReturnCommand::Upload { file, account } => upload_return(store, files, account, &file).await,
        ReturnCommand::Show { account, file, all } => show_returns(store, account, file.as_deref(), all).await,
    }
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
