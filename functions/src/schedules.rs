//! The scheduled functions (EventBridge Scheduler): the remittance job, the Pix reconciliation,
//! the reminders' and the schedules' daily starts and the card payments' availability; each
//! answers what its run did.

use billing_api::store::Store;
use lambda_runtime::{service_fn, LambdaEvent};

/// Runs the remittance job on its schedule: every agreement with billets waiting gets its files
/// (`payments::boleto::remittance`), for at most [`REMITTANCE_BUDGET`]; then one Embedded Metric
/// Format line with the age of the oldest instruction still waiting (the template's backlog alarm).
pub async fn run_remittance_job() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let (store, files) = (Store::from_config(&config), billing_api::files::Files::from_config(&config));
    let (store, files) = (&store, &files);
    lambda_runtime::run(service_fn(move |_: LambdaEvent<serde_json::Value>| async move {
        remittance_run(store, files).await
    }))
    .await
}

/// How long one run of the remittance job takes new work (its timeout is 300 s).
pub const REMITTANCE_BUDGET: std::time::Duration = std::time::Duration::from_secs(240);

/// One run of the remittance job, as its Lambda answers it.
pub async fn remittance_run(
    store: &Store,
    files: &billing_api::files::Files,
) -> Result<serde_json::Value, lambda_runtime::Error> {
    let deadline = std::time::Instant::now() + REMITTANCE_BUDGET;
    let report = billing_api::payments::boleto::remittance::run_due(store, files, deadline).await?;
    println!(
        "{}",
        billing_api::telemetry::metric(
            "BillingService/Remittance",
            "OldestPendingMinutes",
            report.oldest_pending_minutes
        )
    );
    Ok(serde_json::to_value(&report)?)
}

/// How many hours back each run of the Pix reconciliation reads (`PIX_RECONCILE_HOURS`, default 2:
/// with the default half-hourly schedule, each Pix is read by four runs).
pub fn pix_reconcile_hours() -> i64 {
    std::env::var("PIX_RECONCILE_HOURS")
        .ok()
        .and_then(|h| h.parse().ok())
        .filter(|h| (1..=120).contains(h))
        .unwrap_or(2)
}

/// Runs the Pix reconciliation on its schedule.
pub async fn run_pix_reconciler() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |_: LambdaEvent<serde_json::Value>| async move {
        // Boxed: its future is deep enough to overflow the compiler's layout limit inline.
        Box::pin(pix_reconcile_run(store)).await
    }))
    .await
}

/// One run of the Pix reconciliation, as its Lambda answers it: what each PSP link's reading did,
/// and Embedded Metric Format lines (`telemetry::metric`) of what no webhook brought
/// (`BillingService/Pix ReconciledPayments`, watched by `PixReconciledAlarm`) and of its `GET /pix`
/// calls (`ListCalls`).
pub async fn pix_reconcile_run(store: &Store) -> Result<serde_json::Value, lambda_runtime::Error> {
    let done = Box::pin(billing_api::payments::pix::reconcile_all(store, pix_reconcile_hours())).await?;
    let settled: usize = done.iter().map(|(_, r)| r.settled + r.to_refund).sum();
    let calls: u32 = done.iter().map(|(_, r)| r.pages).sum();
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    println!("{}", billing_api::telemetry::metric("BillingService/Pix", "ReconciledPayments", count(settled)));
    println!("{}", billing_api::telemetry::metric("BillingService/Pix", "ListCalls", i64::from(calls)));
    let links: Vec<_> = done
        .iter()
        .map(|(link, r)| serde_json::json!({"account_id": link.account_id, "bank_rule_id": link.bank_rule_id, "reconciled": r}))
        .collect();
    Ok(serde_json::json!({ "links": links, "applied": settled, "list_calls": calls }))
}

/// The day a scheduled run is for: the event's `date` (`YYYY-MM-DD`: a run again by hand), else
/// today in São Paulo.
pub fn reminder_day(event: &serde_json::Value) -> Result<chrono::NaiveDate, lambda_runtime::Error> {
    match event.get("date").and_then(|d| d.as_str()) {
        Some(text) => Ok(text.parse().map_err(|_| format!("not a date: {text:?}"))?),
        None => Ok(billing_api::values::today()),
    }
}

/// The daily run's start (EventBridge Scheduler): a scan per step in use and shard on the
/// reminders queue.
pub async fn run_reminder_planner() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    let queues = billing_api::jobs::Queues::from_env(&config).ok_or("REMINDERS_QUEUE_URL is not set")?;
    let (store, queues) = (&store, &queues);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| async move {
        let day = reminder_day(&event.payload)?;
        let scans = Box::pin(billing_api::reminders::run::start(store, queues, day)).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::json!({ "day": day, "scans": scans }))
    }))
    .await
}

/// The daily start of the schedules' issuing run (EventBridge Scheduler; `{"date": "YYYY-MM-DD"}`
/// runs another day): one message per due schedule on the schedule cycles queue.
pub async fn run_schedule_planner() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    let queues = billing_api::jobs::Queues::from_env(&config).ok_or("SCHEDULE_CYCLES_QUEUE_URL is not set")?;
    let (store, queues) = (&store, &queues);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| async move {
        let day = reminder_day(&event.payload)?;
        let due = Box::pin(billing_api::schedules::run::start(store, queues, day)).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::json!({ "day": day, "schedules": due }))
    }))
    .await
}

/// The daily step that makes card payments `available` once their escrow ends (EventBridge
/// Scheduler; `{"date": "YYYY-MM-DD"}` runs another day).
pub async fn run_gateway_availability() -> Result<(), lambda_runtime::Error> {
    crate::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| async move {
        let day = reminder_day(&event.payload)?;
        let report = Box::pin(billing_api::payments::card::available::run(store, day)).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::json!({ "day": day, "report": report }))
    }))
    .await
}
