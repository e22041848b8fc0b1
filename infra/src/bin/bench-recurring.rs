//! The recurring benchmark (`infra/bench recurring`): on the local stack (moto's DynamoDB and SQS),
//! BENCH_SCHEDULES schedules (default 10,000) over BENCH_SCHEDULE_ACCOUNTS accounts (default
//! 1,000), half of them in one big account and the rest spread over the others, every one due the
//! same day.
//!
//! 1. The day's selection: the issuing index read up to the day (sixteen shards): storage calls
//!    and time.
//! 2. The day at once in this process (`infra/ops schedules run`'s path, 8 at once): cycles issued
//!    a second and the storage calls each costs (reads / writes).
//! 3. The next cycle's day through the queue as on AWS (one message per due schedule under its
//!    account, the issuer taking the tenants' lanes in turn): when the small accounts' last cycle
//!    and the big account's last were issued after the run's start.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::billings::model::Billing;
use billing_api::store::meter::ReadMeter;
use billing_api::store::{records, Store};
use billing_api::values::{AccountId, BillingId, Timestamp};
use chrono::NaiveDate;
use futures::StreamExt as _;
use infra::bench_stats::setting;
use infra::testing::{active_account, DevServer};
use serde_json::json;

/// The first cycle's issue day (its start) and the second's (ten days before 10 October).
const FIRST_DAY: &str = "2031-09-01";
const SECOND_DAY: &str = "2031-09-30";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let total = setting::<usize>("BENCH_SCHEDULES").unwrap_or(10_000);
    let accounts = setting::<usize>("BENCH_SCHEDULE_ACCOUNTS").unwrap_or(1_000).max(2);
    let server = DevServer::start_fair_alone().await;
    let seeding = Instant::now();
    let (big, small) = seed(&server, total, accounts).await?;
    let big_count = big.schedules.len();
    eprintln!(
        "bench-recurring: {total} schedules over {} accounts made in {:.0} s",
        small.len() + 1,
        seeding.elapsed().as_secs_f64()
    );

    // 1 and 2: the first day, in this process. moto answers an index query by walking the whole
    // table, which takes longer than the service's 8 s on a table this size: the bench's reads of
    // the index wait as long as it takes.
    let meter = std::sync::Arc::new(ReadMeter::default());
    let store = patient(&server).with_meter(meter.clone());
    let first: NaiveDate = FIRST_DAY.parse()?;
    let selecting = Instant::now();
    let selected = select(&store, first).await?;
    let selecting = selecting.elapsed();
    let selection = meter.take();
    let issuing = Instant::now();
    let report = billing_api::schedules::run::run_day(&store, first, 8).await?;
    let issuing = issuing.elapsed();
    let issued_reading = meter.take();
    anyhow::ensure!(report.issued == total, "issued {} of {total}: {report:?}", report.issued);

    let per = |n: u64| n as f64 / total.max(1) as f64;
    eprintln!(
        "bench-recurring: selected {selected} in {:.2} s ({} calls); issued {} in {:.1} s, {:.2} calls a cycle",
        selecting.as_secs_f64(),
        selection.calls(),
        report.issued,
        issuing.as_secs_f64(),
        per(issued_reading.calls())
    );

    // 3: the second cycle through the queue, tenants in turn.
    let second: NaiveDate = SECOND_DAY.parse()?;
    let queueing = Instant::now();
    let queued = billing_api::schedules::run::start(&patient(&server), &server.queues, second).await?;
    let queueing = queueing.elapsed();
    anyhow::ensure!(queued == total, "queued {queued} of {total}");
    let started = Timestamp::now();
    server.issue_queued_schedules().await;
    let reader = patient(&server);
    let small_latest = latest(&reader, &small, started).await?;
    let big_latest = big.last_issued(&reader, started).await?;

    println!(
        "Recurring benchmark (local stack: moto's DynamoDB and SQS on 127.0.0.1; {total} schedules over {} accounts, {big_count} in the biggest, all due the same day)",
        small.len() + 1
    );
    println!();
    println!("| measure | result |");
    println!("|---|---|");
    println!(
        "| schedules selected (the issuing index up to the day, 16 shards) | {selected} in {:.2} s: {} storage calls ({:.0} read units) |",
        selecting.as_secs_f64(),
        selection.calls(),
        selection.read_units
    );
    println!(
        "| cycles issued in this process (8 at once) | {} in {:.1} s: {:.0} a second |",
        report.issued,
        issuing.as_secs_f64(),
        report.issued as f64 / issuing.as_secs_f64()
    );
    println!(
        "| storage calls per cycle issued (reads / writes), selection included | {:.2} ({:.2} / {:.2}) |",
        per(issued_reading.calls()),
        per(issued_reading.round_trips),
        per(issued_reading.writes)
    );
    println!(
        "| the next cycle through the queue, a lane per tenant (queued in {:.1} s): the small accounts' last cycle / the biggest account's last, after the issuer began | {:.1} s / {:.1} s |",
        queueing.as_secs_f64(),
        small_latest.as_secs_f64(),
        big_latest.as_secs_f64()
    );
    Ok(())
}

/// The big account with half the schedules, and the others with the rest spread over them (the
/// first ones taking one more when it does not divide evenly).
async fn seed(server: &DevServer, total: usize, accounts: usize) -> anyhow::Result<(Accounted, Vec<Accounted>)> {
    let big_count = total / 2;
    let (each, extra) = ((total - big_count) / (accounts - 1), (total - big_count) % (accounts - 1));
    let big = account_with(server, big_count).await?;
    let mut small = Vec::new();
    for n in 0..accounts - 1 {
        let count = each + usize::from(n < extra);
        if count > 0 {
            small.push(account_with(server, count).await?);
        }
    }
    Ok((big, small))
}

/// How many schedules the issuing index holds up to `day` (every shard, page by page).
async fn select(store: &Store, day: NaiveDate) -> anyhow::Result<usize> {
    let mut selected = 0;
    for shard in 0..billing_api::store::keys::schedule::ISSUE_INDEX_SHARDS {
        let mut after = None;
        loop {
            let (found, next) = billing_api::schedules::run::page(store, day, shard, after).await?;
            selected += found.len();
            match next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
    }
    Ok(selected)
}

/// The server's table through a client that waits as long as moto takes (see `main`).
fn patient(server: &DevServer) -> Store {
    let timeouts = aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(60))
        .operation_timeout(Duration::from_secs(600))
        .operation_attempt_timeout(Duration::from_secs(600))
        .build();
    Store::with_timeouts(aws_sdk_dynamodb::Client::new(&server.config), server.store.table().to_owned(), timeouts)
}

/// How long after `started` the last of `accounts` issued its latest cycle, read back sixteen
/// accounts at a time (a thousand at once overrun moto's one-call-at-a-time server).
async fn latest(store: &Store, accounts: &[Accounted], started: Timestamp) -> anyhow::Result<Duration> {
    let each = accounts.iter().map(|a| a.last_issued(store, started));
    let each: Vec<_> = futures::stream::iter(each).buffer_unordered(16).collect().await;
    let mut latest = Duration::ZERO;
    for last in each {
        latest = latest.max(last?);
    }
    Ok(latest)
}

/// An account and its schedules.
struct Accounted {
    account: AccountId,
    schedules: Vec<BillingId>,
}

impl Accounted {
    /// How long after `started` the account's last schedule issued its latest cycle.
    async fn last_issued(&self, store: &Store, started: Timestamp) -> anyhow::Result<Duration> {
        let mut last = Duration::ZERO;
        for id in &self.schedules {
            let schedule = records::find::<Billing>(store, self.account, *id).await?.context("the schedule")?;
            let billing = schedule.recurrence.and_then(|r| r.last_billing_id).context("a cycle issued")?;
            let billing = records::find::<Billing>(store, self.account, billing).await?.context("its billing")?;
            last = last.max((billing.created_at.0 - started.0).to_std().unwrap_or_default());
        }
        Ok(last)
    }
}

/// An active account with `count` monthly schedules of one payer, due on the 10th from September
/// 2031.
async fn account_with(server: &DevServer, count: usize) -> anyhow::Result<Accounted> {
    let (account, auth) = active_account(&server.store).await;
    let rule = infra::ops::create_bank_rule(&server.store, account, "Banco simulado", "simulated", None).await?;
    let rule = rule["bank_rule"]["id"].clone();
    let http = billing_api::config::http_client();
    let contact = infra::bench_stats::create(&http, server, &auth, "/v1/contacts", infra::bench_stats::payer()).await?;
    let body = json!({"schedule": {"bank_rule_id": rule, "contact_id": contact, "due_day": 10,
        "start_date": FIRST_DAY, "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
    let made: Vec<anyhow::Result<serde_json::Value>> = futures::stream::iter(0..count)
        .map(|_| infra::bench_stats::create(&http, server, &auth, "/v1/schedules", body.clone()))
        .buffer_unordered(8)
        .collect()
        .await;
    let mut schedules = Vec::with_capacity(count);
    for id in made {
        schedules.push(BillingId::new(id?.as_i64().context("a schedule id")?));
    }
    Ok(Accounted { account, schedules })
}
