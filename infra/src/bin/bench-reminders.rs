//! The reminders benchmark (`infra/bench reminders`): on the local stack (moto's DynamoDB, SQS and
//! SES), a big account with BENCH_REMINDERS billings (default 1,000) and a small one with 10, all
//! due three days after the run's day.
//!
//! 1. The day at once in this process (`infra/ops reminders run`'s path), the sending rate not
//!    limited: reminders selected per second (the due-day index and the accounts' schedules, no
//!    sending), reminders sent per second, and the storage and SES calls each reminder costs.
//! 2. The daily run through the queue as on AWS (a scan per step and shard, each page's reminders
//!    queued under their accounts), paced to BENCH_REMINDER_RATE a second (default 100): when the
//!    small account's last reminder went out after the first reminder of the run, beside the big
//!    account's last, with a lane per tenant (the local stand-in for SQS fair queues) and with one
//!    shared queue.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::reminders::deliveries::{self, Status};
use billing_api::reminders::providers::{self, Providers};
use billing_api::reminders::run;
use billing_api::reminders::schedule::Channel;
use billing_api::store::meter::ReadMeter;
use billing_api::store::Store;
use billing_api::values::{AccountId, BillingId};
use chrono::NaiveDate;
use futures::StreamExt as _;
use infra::bench_stats::setting;
use infra::testing::{active_account, DevServer};
use serde_json::json;

/// The run's day (a Monday: the billings' due date, three days on, is a business day).
const DAY: &str = "2031-09-01";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let many = setting::<usize>("BENCH_REMINDERS").unwrap_or(1_000);
    let rate = setting::<f64>("BENCH_REMINDER_RATE").unwrap_or(100.0);
    let fair = DevServer::start_fair().await;
    let shared = DevServer::start().await;
    let day: NaiveDate = DAY.parse()?;
    let due = day + chrono::Duration::days(3);
    let big = account_with(&fair, many, due).await?;
    let small = account_with(&fair, 10, due).await?;
    fair.register_billets().await;

    // 1. The day at once, in this process.
    let unpaced = Providers::new(&fair.config, providers::default_sender(), None, 1_000_000.0);
    let meter = std::sync::Arc::new(ReadMeter::default());
    let store = fair.store.clone().with_meter(meter.clone());
    let selecting = Instant::now();
    let mut selected = 0;
    for days in billing_api::reminders::schedule::days_in_use(&store).await? {
        for shard in 0..billing_api::store::keys::reminder::REMINDER_INDEX_SHARDS {
            let mut after = None;
            loop {
                let (found, next) = run::page(&store, day, days, shard, after).await?;
                selected += found.len();
                match next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
        }
    }
    let selecting = selecting.elapsed();
    let selection = meter.take();
    let sending = Instant::now();
    let report = run::run_day(&store, &unpaced, day, 8).await?;
    let sending = sending.elapsed();
    let sent_reading = meter.take();
    let sent = report.statuses.get(Status::Sent.as_str()).copied().unwrap_or_default();
    anyhow::ensure!(sent == many + 10, "sent {sent} of {}: {report:?}", many + 10);

    // 2. Through the queue, paced: the due date's step (0) with lanes, the step three days after
    //    (+3) on one shared queue.
    let paced = Providers::new(&fair.config, providers::default_sender(), None, rate);
    let lanes = through_queue(&fair, &paced, due, &big, &small).await?;
    let one_queue = through_queue(&shared, &paced, due + chrono::Duration::days(3), &big, &small).await?;

    let per = |n: u64, of: usize| n as f64 / of.max(1) as f64;
    println!(
        "Reminders benchmark (local stack: moto's DynamoDB, SQS and SES on 127.0.0.1; one account of {many} billings and one of 10, due in three days)"
    );
    println!();
    println!("| measure | result |");
    println!("|---|---|");
    println!(
        "| reminders selected (due-day index pages, the accounts' schedules) | {selected} in {:.2} s: {:.0} a second, {} storage calls |",
        selecting.as_secs_f64(),
        selected as f64 / selecting.as_secs_f64(),
        selection.calls()
    );
    println!(
        "| reminders sent in this process (8 at once, rate not limited) | {sent} in {:.2} s: {:.0} a second |",
        sending.as_secs_f64(),
        sent as f64 / sending.as_secs_f64()
    );
    println!(
        "| storage calls per reminder sent (reads / writes) | {:.2} ({:.2} / {:.2}) |",
        per(sent_reading.calls(), sent),
        per(sent_reading.round_trips, sent),
        per(sent_reading.writes, sent)
    );
    println!("| SES calls per reminder sent | 1 (one SendEmail; a throttle or 5xx adds one per retry) |");
    for (how, timing) in [("a lane per tenant", &lanes), ("one shared queue", &one_queue)] {
        println!(
            "| through the queue at {rate:.0} a second, {how}: the small account's last reminder / the big account's last, after the first went out (the scans before it: {:.1} s) | {:.1} s / {:.1} s |",
            timing.scans.as_secs_f64(),
            timing.small_last.as_secs_f64(),
            timing.big_last.as_secs_f64()
        );
    }
    Ok(())
}

/// An active account with `count` billings due on `due` to one payer with an e-mail.
async fn account_with(server: &DevServer, count: usize, due: NaiveDate) -> anyhow::Result<Accounted> {
    let (account, auth) = active_account(&server.store).await;
    let rule = infra::ops::create_bank_rule(&server.store, account, "Banco simulado", "simulated", None).await?;
    let rule = rule["bank_rule"]["id"].clone();
    let http = billing_api::config::http_client();
    let mut payer = infra::bench_stats::payer();
    payer["contact"]["email"] = json!(format!("pagador-{account}@example.com"));
    let contact = infra::bench_stats::create(&http, server, &auth, "/v1/contacts", payer).await?;
    let body = json!({"billing": {"bank_rule_id": rule, "contact_id": contact, "due_date": due.to_string(),
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
    let made: Vec<anyhow::Result<serde_json::Value>> = futures::stream::iter(0..count)
        .map(|_| infra::bench_stats::create(&http, server, &auth, "/v1/billings", body.clone()))
        .buffer_unordered(8)
        .collect()
        .await;
    let mut ids = Vec::with_capacity(count);
    for id in made {
        ids.push(BillingId::new(id?.as_i64().context("a billing id")?));
    }
    Ok(Accounted { account, ids })
}

struct Accounted {
    account: AccountId,
    ids: Vec<BillingId>,
}

struct Timing {
    /// From the run's start to its first reminder out (the scans).
    scans: Duration,
    /// From the first reminder out to each account's last.
    small_last: Duration,
    big_last: Duration,
}

/// `day`'s run through `server`'s queue (scans, then reminders under their accounts), paced; when
/// each account's last reminder went out after the start.
async fn through_queue(
    server: &DevServer,
    providers: &Providers,
    day: NaiveDate,
    big: &Accounted,
    small: &Accounted,
) -> anyhow::Result<Timing> {
    let started = billing_api::values::Timestamp::now();
    server.send_reminders(day, providers).await;
    let (small_first, small_last) = sent_between(&server.store, small, day, started).await?;
    let (big_first, big_last) = sent_between(&server.store, big, day, started).await?;
    // From the first reminder out: the scans before it are the index's reads (moto's, slow here).
    let first = small_first.min(big_first);
    let (scans, small_last, big_last) = (first, small_last - first, big_last - first);
    Ok(Timing { scans, small_last, big_last })
}

/// When the first and the last of the account's reminders of `day` went out after `started` (each
/// must be sent).
async fn sent_between(
    store: &Store,
    accounted: &Accounted,
    day: NaiveDate,
    started: billing_api::values::Timestamp,
) -> anyhow::Result<(Duration, Duration)> {
    let (mut first, mut last) = (Duration::MAX, Duration::ZERO);
    for id in &accounted.ids {
        let found = deliveries::find(store, accounted.account, *id, day, Channel::Email).await?;
        let found = found.with_context(|| format!("billing {id} got no reminder on {day}"))?;
        anyhow::ensure!(found.status == Status::Sent, "billing {id}: {found:?}");
        let at = (found.created_at.0 - started.0).to_std().unwrap_or_default();
        (first, last) = (first.min(at), last.max(at));
    }
    Ok((first, last))
}
