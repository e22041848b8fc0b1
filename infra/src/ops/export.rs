//! `ops export`: an account's billings or payments written to a CSV file in the bucket by the
//! stack's exports worker, as `POST /v1/exports` asks; the command follows it with a progress bar
//! on stderr and prints the export, with a link to its file, once done.

use std::collections::BTreeMap;
use std::io::Write as _;

use billing_api::exports::routes::ExportView;
use billing_api::exports::{Kind, Status};
use billing_api::files::Files;
use billing_api::store::Store;
use billing_api::values::AccountId;
use clap::Args;
use serde_json::{json, Value};

use super::require_account;

#[derive(Args, Debug)]
pub struct ExportCommand {
    /// The account whose records these are.
    #[arg(long)]
    pub account: AccountId,
    /// billings or payments.
    #[arg(long, value_parser = parse_kind)]
    pub kind: Kind,
    /// A filter of the list, NAME=VALUE (again for more): payments take paid_from, paid_to,
    /// credited_from, credited_to, channel, status; billings one of status, bank_rule_id,
    /// bill_category_id, contact_id, and billing_type.
    #[arg(long = "filter", value_parser = parse_filter)]
    pub filters: Vec<(String, String)>,
    /// Print the export as queued and return (the worker makes it in the background).
    #[arg(long)]
    pub no_wait: bool,
    /// The longest wait for it, in minutes.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=1440))]
    pub wait_minutes: u64,
}

fn parse_kind(text: &str) -> Result<Kind, String> {
    match text {
        "billings" => Ok(Kind::Billings),
        "payments" => Ok(Kind::Payments),
        _ => Err("billings or payments".to_owned()),
    }
}

fn parse_filter(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').ok_or("NAME=VALUE")?;
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

/// One line of progress, redrawn in place: `[#####.....] 52% 520,000 / 1,000,000 rows`.
pub fn progress_bar(done: i64, total: Option<i64>) -> String {
    const WIDTH: usize = 30;
    match total.filter(|t| *t > 0) {
        Some(total) => {
            let share = (done.min(total) as f64) / (total as f64);
            let filled = (share * WIDTH as f64).round() as usize;
            format!(
                "[{}{}] {:>3.0}% {done} / {total} rows",
                "=".repeat(filled),
                ".".repeat(WIDTH - filled),
                share * 100.0
            )
        }
        None => format!("[{}] {done} rows", "?".repeat(WIDTH)),
    }
}

/// Asks for the export and, unless `--no-wait`, follows it to its end.
pub async fn run(store: &Store, files: &Files, command: ExportCommand) -> anyhow::Result<Value> {
    require_account(store, command.account).await?;
    let filters: BTreeMap<String, String> = command.filters.into_iter().collect();
    let made = billing_api::exports::create(store, command.account, command.kind, filters).await;
    let made = made.map_err(super::refusal)?;
    if command.no_wait {
        return Ok(json!({ "export": ExportView::new(&made, None) }));
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(command.wait_minutes * 60);
    let mut stderr = std::io::stderr();
    loop {
        let export =
            billing_api::exports::find(store, command.account, &made.id).await?.unwrap_or_else(|| made.clone());
        let _ = write!(stderr, "\r{}", progress_bar(export.rows_done, export.rows_total));
        match export.status {
            Status::Done => {
                let _ = writeln!(stderr);
                let link = billing_api::exports::link(files, &export).await.map_err(|e| anyhow::anyhow!("{e}"))?;
                return Ok(json!({ "export": ExportView::new(&export, Some(link)) }));
            }
            Status::Failed => anyhow::bail!("export {} failed: {}", export.id, export.error.unwrap_or_default()),
            Status::Queued | Status::Running if std::time::Instant::now() > until => {
                let _ = writeln!(stderr);
                anyhow::bail!(
                    "export {} still {:?} after the wait; `ops export` again shows a new one",
                    export.id,
                    export.status
                )
            }
            Status::Queued | Status::Running => tokio::time::sleep(std::time::Duration::from_secs(1)).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_rows_done() {
        assert_eq!(progress_bar(0, Some(10)), format!("[{}]   0% 0 / 10 rows", ".".repeat(30)));
        assert_eq!(progress_bar(5, Some(10)), format!("[{}{}]  50% 5 / 10 rows", "=".repeat(15), ".".repeat(15)));
        assert_eq!(progress_bar(7, None), format!("[{}] 7 rows", "?".repeat(30)));
        assert_eq!(parse_filter("channel=pix"), Ok(("channel".into(), "pix".into())));
    }
}
