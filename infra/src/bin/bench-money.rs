//! The money benchmark (`infra/bench money`): what `GET /v1/payments` costs at each size of
//! BENCH_PAYMENTS (default 100,000 and 1,000,000: the read units of its first page and of a deep
//! page, with and without a channel filter), what a day's statement costs, and an export of every
//! payment (time, parts, the worker's peak memory), written to `.local/bench-money-export.csv` for
//! `infra/bench` to read back with Python's CSV reader.
//!
//! The account's payments are written as the ledger's rows are (`payments::rows`: the unfiltered
//! partition and their channel's, ordered by the day paid, spread over a year) with the day counts
//! the statement and the export's total read; nothing else of a payment's life is written (its
//! billing, its other six row partitions): what the lists read is all there.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Context as _;
use billing_api::exports::{self, step, Kind};
use billing_api::jobs::ExportStep;
use billing_api::payments::rows::{self, Order, Partition, Query, Row};
use billing_api::payments::{entry, Channel, Entry, Outcome, Payment};
use billing_api::store::{keys, shards, stored, Store};
use billing_api::values::{AccountId, BillingId, Money, Timestamp};
use chrono::{Duration, NaiveDate};
use infra::bench_stats::{ms, setting};
use infra::meter::{Cost, Meter};

const CHANNELS: [Channel; 4] = [Channel::Pix, Channel::BankBillet, Channel::CreditCard, Channel::Manual];
const DAYS: i64 = 365;
const PAGE: usize = 100;

fn last_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 28).expect("a day")
}

/// Payment `i` of the account: its channel in turn, an amount between 10.00 and 19.99, a day of
/// the year before `last_day` (the newest first), recorded a millisecond after the one before.
fn payment(account: AccountId, i: i64, size: i64) -> Entry {
    let channel = CHANNELS[usize::try_from(i % 4).unwrap_or(0)];
    let paid_on = last_day() - Duration::days(i * DAYS / size);
    let amount = Money::from_cents(1_000 + i % 1_000);
    let fee = if channel == Channel::Pix { Money::ZERO } else { Money::from_cents(150) };
    let paid = Payment {
        channel,
        provider_id: format!("BENCH{i:09}"),
        billet_id: None,
        amount,
        paid_on,
        fee,
        credit_on: paid_on + Duration::days(1),
        net_amount: amount - fee,
        paid_off: None,
    };
    let mut made = entry(account, BillingId::new(i + 1), &paid, Outcome::Settled, "");
    made.recorded_at = Timestamp(made.recorded_at.0 - chrono::Duration::milliseconds(i));
    made
}

/// Writes payments `from..to` of a book of `size`: their rows (unfiltered and their channel's),
/// and adds their counts to `days`.
async fn fill(
    store: &Store,
    account: AccountId,
    from: i64,
    to: i64,
    size: i64,
    days: &mut BTreeMap<(NaiveDate, String), i64>,
) -> anyhow::Result<()> {
    const CHUNK: i64 = 5_000;
    let mut at = from;
    while at < to {
        let mut items = Vec::new();
        for i in at..(at + CHUNK).min(to) {
            let paid = payment(account, i, size);
            for channel in [None, Some(paid.channel)] {
                let partition = Partition { order: Order::Paid, channel, status: None };
                items.push(stored::item_of(&Row(paid.clone()), partition)?);
            }
            *days.entry((paid.paid_on, keys::payment::statement_count("n", paid.channel.as_str()))).or_default() += 1;
            *days.entry((paid.paid_on, keys::payment::statement_count("gross", paid.channel.as_str()))).or_default() +=
                paid.amount.in_cents();
        }
        store.put_all(items).await?;
        at += CHUNK;
    }
    Ok(())
}

/// The day counts, one write per day and count.
async fn count_days(
    store: &Store,
    account: AccountId,
    days: &mut BTreeMap<(NaiveDate, String), i64>,
) -> anyhow::Result<()> {
    let counter = keys::payment::statement_counter(account);
    for ((day, name), n) in std::mem::take(days) {
        store.write(vec![shards::add_on_day(&counter, day, 0, &[(name, n)])]).await?;
    }
    Ok(())
}

/// A page of the list and what it cost.
async fn page(
    store: &Store,
    meter: &Meter,
    account: AccountId,
    channel: Option<Channel>,
    after: Option<String>,
) -> anyhow::Result<(usize, Cost)> {
    meter.take();
    let partition = Partition { order: Order::Paid, channel, status: None };
    let listed = rows::list(store, account, &Query { partition, from: None, to: None, after, limit: PAGE }).await?;
    Ok((listed.payments.len(), meter.take()))
}

/// The sort key of payment `i`: a cursor that far into the list.
fn cursor_at(account: AccountId, i: i64, size: i64) -> String {
    let paid = payment(account, i, size);
    keys::payment::payment_row(
        paid.paid_on,
        paid.recorded_at.0.timestamp_millis(),
        paid.channel.as_str(),
        &paid.provider_id,
    )
}

/// The process's peak resident memory since the last reset, in MB (Linux).
fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1024.0
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let sizes: Vec<i64> = std::env::var("BENCH_PAYMENTS")
        .unwrap_or_else(|_| "100000,1000000".to_owned())
        .split(',')
        .map(|s| s.trim().parse().with_context(|| format!("BENCH_PAYMENTS: {s:?}")))
        .collect::<anyhow::Result<_>>()?;
    let (config, plain) = infra::testing::local_stack().await;
    let meter = Meter::default();
    let patient = aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
        .operation_attempt_timeout(std::time::Duration::from_secs(120))
        .operation_timeout(std::time::Duration::from_secs(120))
        .build();
    let store = Store::with_timeouts(meter.client(&config), plain.table().to_owned(), patient);
    let files = infra::testing::local_files(&config).await;
    let export_at = setting::<i64>("BENCH_EXPORT_AT").unwrap_or(*sizes.iter().max().unwrap_or(&0));
    let mut table = Vec::new();
    let account = AccountId::new(900_000 + i64::from(std::process::id() % 1000));
    let (mut written, mut days) = (0_i64, BTreeMap::new());
    for size in sizes {
        let started = Instant::now();
        // Each size is a book of its own (its days spread over the year), in its own account.
        let account = AccountId::new(account.get() * 10 + i64::try_from(table.len()).unwrap_or(0));
        fill(&store, account, 0, size, size, &mut days).await?;
        count_days(&store, account, &mut days).await?;
        written += size;
        meter.take();
        let filled = started.elapsed();
        let first = page(&store, &meter, account, None, None).await?;
        let deep = page(&store, &meter, account, None, Some(cursor_at(account, size - PAGE as i64 - 1, size))).await?;
        let pix_first = page(&store, &meter, account, Some(Channel::Pix), None).await?;
        let pix_deep = page(
            &store,
            &meter,
            account,
            Some(Channel::Pix),
            Some(cursor_at(account, size - 4 * PAGE as i64 - 4, size)),
        )
        .await?;
        meter.take();
        let statement = billing_api::payments::statement::of_day(&store, account, last_day()).await?;
        let statement_cost = meter.take();
        let mut row = vec![
            format!("| {size} payments (filled in {}) | first page: {} rows, {:.1} read units, {} calls | deep page: {} rows, {:.1} read units | pix first: {:.1} | pix deep: {:.1} | statement: {:.1} read units, {} calls ({} payments that day) |",
                ms(filled), first.0, first.1.read_units, first.1.calls, deep.0, deep.1.read_units, pix_first.1.read_units, pix_deep.1.read_units, statement_cost.read_units, statement_cost.calls, statement.totals.count),
        ];
        if size == export_at {
            let expected: Money = (0..size).map(|i| Money::from_cents(1_000 + i % 1_000)).sum();
            row.push(export(&store, &files, account).await?);
            row.push(format!("| the export's valor_pago should sum to | {expected} |"));
        }
        table.extend(row);
    }
    println!(
        "Money benchmark (moto or dynalite on 127.0.0.1; the store's calls metered in this process; pages of {PAGE})"
    );
    println!();
    for line in table {
        println!("{line}");
    }
    println!();
    println!("payments written: {written}");
    Ok(())
}

/// Exports every payment of the account, the steps run one after another in this process as the
/// worker runs them: time, parts, peak memory; the file downloaded to `.local/`.
async fn export(store: &Store, files: &billing_api::files::Files, account: AccountId) -> anyhow::Result<String> {
    let made =
        exports::create(store, account, Kind::Payments, BTreeMap::new()).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    reset_peak();
    let before = peak_mb();
    let started = Instant::now();
    let mut part = 1;
    let rows = loop {
        match step::run(store, files, &ExportStep::new(account, &made.id, part)).await? {
            step::Stepped::Part { .. } => part += 1,
            step::Stepped::Done { rows } => break rows,
            step::Stepped::Stale => anyhow::bail!("step {part} found stale"),
        }
    };
    let took = started.elapsed();
    let peak = peak_mb();
    let export = exports::find(store, account, &made.id).await?.context("the export")?;
    let (url, _) = exports::link(files, &export).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    let bytes = billing_api::config::http_client().get(&url).send().await?.bytes().await?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.local/bench-money-export.csv");
    std::fs::write(&path, &bytes)?;
    Ok(format!(
        "| export of {rows} payments (rows_total {:?}) | {} in {part} parts ({:.1} MB file), {:.0} rows a second | resident memory peaked at {:.0} MB while exporting ({:.0} MB when the export began) |",
        export.rows_total,
        ms(took),
        bytes.len() as f64 / 1_048_576.0,
        rows as f64 / took.as_secs_f64(),
        peak,
        before
    ))
}
