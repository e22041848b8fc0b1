//! Lambda entry points. Each binary in `src/bin` is a few lines around one of these functions, so
//! the events in `events/` can be run through exactly what Lambda runs.

use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use aws_lambda_events::dynamodb::Event as StreamEvent;
use aws_lambda_events::sqs::SqsEvent;
use axum::Router;
use billing_api::app::AppState;
use billing_api::http::authentication::api_gateway_context;
use billing_api::http::authorizer::AuthorizerError;
use billing_api::http::idempotency::idempotency;
use billing_api::http::rate_limit::{rate_limit, RateLimits};
use billing_api::http::routing::finish;
use billing_api::store::Store;
use billing_api::webhooks::secrets::MasterKey;
use billing_api::webhooks::{Policy, Schedule, SecretBox, Sender};
use lambda_runtime::{service_fn, Diagnostic, LambdaEvent};
use std::sync::Arc;

/// An endpoint group as its Lambda serves it: the account context comes from the API Gateway
/// authorizer, then the request is counted against the rate limits, then a keyed `POST` claims its
/// idempotency key; unknown routes are JSON 404s.
pub fn http_app(routes: Router<AppState>, state: AppState) -> Router {
    let routes = routes
        .route_layer(axum::middleware::from_fn_with_state(state.store.clone(), idempotency))
        .route_layer(axum::middleware::from_fn_with_state(state.rate_limiter(), rate_limit))
        .route_layer(axum::middleware::from_fn(api_gateway_context));
    finish(routes.with_state(state))
}

/// Runs an HTTP function: the SDK client is built once per container, outside the handler.
pub async fn run_http(routes: fn() -> Router<AppState>) -> Result<(), lambda_http::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    // The webhook master key is read only by a request that needs it (the webhooks routes).
    let webhooks = billing_api::state::Webhooks { key: MasterKey::lazy(&config), policy: Policy::from_env() };
    let state = AppState::new(store).with_rate_limits(RateLimits::from_env()?).with_webhooks(webhooks);
    lambda_http::run(http_app(routes(), state)).await
}

/// The payer's pages as their Lambda serves them: public (no authorizer context, no idempotency),
/// with their own per-IP limit (`billing_api::payer_page`); unknown routes are 404s.
pub fn payer_app(state: AppState) -> Router {
    finish(billing_api::payer_page::app(state))
}

/// Runs the payer's pages.
pub async fn run_payer_page() -> Result<(), lambda_http::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let state = AppState::new(Store::from_config(&config)).with_rate_limits(RateLimits::from_env()?);
    lambda_http::run(payer_app(state)).await
}

/// Runs the billet-registration worker on its SQS event source; failed messages are reported
/// one by one (`ReportBatchItemFailures`), the others are deleted by Lambda.
pub async fn run_billet_registrar() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        // Boxed: the worker's future is deep enough to overflow the compiler's layout limit inline.
        let batch = Box::pin(billing_api::billings::billets::registrar::handle_batch(store, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// Runs the bulk-expansion worker on its SQS event source: each message expands a chunk of
/// contacts, with their billets' registrations and the next chunk recorded as tasks.
pub async fn run_bulk_expander() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::billings::bulk::handle_batch).await
}

/// Runs the settlements worker on its SQS event source: each message settles a chunk of open
/// sales and records the next, and the last makes the payer's billing.
pub async fn run_settlement_worker() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::pos::settlements::handle_batch).await
}

/// Runs the cascades worker on its SQS event source: each message clears a deleted tag or group
/// from up to a hundred contacts and records the next while any remain.
pub async fn run_cascade_worker() -> Result<(), lambda_runtime::Error> {
    run_worker(billing_api::contacts::cascade::handle_batch).await
}

/// Runs an SQS worker that needs only the table (what it implies next, it records as tasks).
async fn run_worker<F>(handle: F) -> Result<(), lambda_runtime::Error>
where
    F: for<'a> AsyncBatch<'a>,
{
    billing_api::telemetry::init();
    let store = Store::from_env().await;
    let (store, handle) = (&store, &handle);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        // Boxed: the workers' futures are deep enough to overflow the compiler's layout limit inline.
        let batch = Box::pin(handle.call(store, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// A worker's batch handler: `async fn(&Store, SqsEvent) -> SqsBatchResponse`.
pub trait AsyncBatch<'a> {
    type Future: std::future::Future<Output = aws_lambda_events::sqs::SqsBatchResponse> + 'a;
    fn call(&self, store: &'a Store, event: SqsEvent) -> Self::Future;
}

impl<'a, F, Fut> AsyncBatch<'a> for F
where
    F: Fn(&'a Store, SqsEvent) -> Fut,
    Fut: std::future::Future<Output = aws_lambda_events::sqs::SqsBatchResponse> + 'a,
{
    type Future = Fut;
    fn call(&self, store: &'a Store, event: SqsEvent) -> Fut {
        self(store, event)
    }
}

/// Every queue the outbox hands tasks and deliveries to (`*_QUEUE_URL`).
fn outbox_queues(config: &aws_config::SdkConfig) -> Result<billing_api::jobs::Queues, lambda_runtime::Error> {
    Ok(billing_api::jobs::Queues::from_env(config).ok_or("the *_QUEUE_URL variables must be set")?)
}

/// The deliveries queue of the webhook sender (`WEBHOOK_DELIVERIES_QUEUE_URL`).
fn webhook_queues(config: &aws_config::SdkConfig) -> Result<billing_api::jobs::Queues, lambda_runtime::Error> {
    let missing = "WEBHOOK_DELIVERIES_QUEUE_URL must be set";
    std::env::var("WEBHOOK_DELIVERIES_QUEUE_URL").ok().filter(|url| !url.is_empty()).ok_or(missing)?;
    Ok(billing_api::jobs::Queues::from_env(config).ok_or(missing)?)
}

/// What the outbox dispatcher and the sweeper start with: logging, the table and every queue.
async fn dispatching() -> Result<(Store, billing_api::jobs::Queues), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    Ok((store, outbox_queues(&config)?))
}

/// Runs the outbox dispatcher on the table's stream (filtered to new events and tasks): one
/// delivery per receiver of an event, queued; a task's messages, sent. A failure stops the batch
/// at that record (`ReportBatchItemFailures`).
pub async fn run_outbox_dispatcher() -> Result<(), lambda_runtime::Error> {
    let (store, queues) = dispatching().await?;
    let (store, queues) = (&store, &queues);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<StreamEvent>| async move {
        let batch = Box::pin(billing_api::outbox::handle_stream(store, queues, event.payload));
        Ok::<_, std::convert::Infallible>(batch.await)
    }))
    .await
}

/// Runs the outbox sweeper on its schedule: hands on the events and tasks the stream left pending
/// for over a minute (a batch the stream gave up on, a dispatcher outage).
pub async fn run_outbox_sweeper() -> Result<(), lambda_runtime::Error> {
    let (store, queues) = dispatching().await?;
    let (store, queues) = (&store, &queues);
    lambda_runtime::run(service_fn(move |_: LambdaEvent<serde_json::Value>| async move {
        let before =
            billing_api::values::Timestamp(billing_api::values::Timestamp::now().0 - chrono::Duration::minutes(1));
        let done: usize = billing_api::outbox::sweep(store, queues, before, SWEEP_LIMIT).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::json!({ "dispatched": done }))
    }))
    .await
}

/// Events and tasks one sweep hands on at most (a minute's run keeps well inside its timeout).
pub const SWEEP_LIMIT: usize = 500;

/// Runs the webhook sender on the deliveries queue: signed POSTs, retries held on the queue. The
/// master key is read by the first batch, not at start: a network round trip that the start
/// would otherwise wait for just the same (docs/cold-start.md).
pub async fn run_webhook_sender() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let key = MasterKey::lazy(&config);
    let sender = webhook_sender(&config)?;
    let (key, sender) = (&key, &sender);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        let sender = sender(key.get().await?);
        Ok::<_, lambda_runtime::Error>(Box::pin(sender.handle_batch(event.payload)).await)
    }))
    .await
}

/// The sender as its function builds it, given the master key: strict delivery policy (the local
/// switch is ignored on Lambda), the default retry schedule unless overridden.
fn webhook_sender(config: &aws_config::SdkConfig) -> Result<impl Fn(Arc<SecretBox>) -> Sender, lambda_runtime::Error> {
    let store = Store::from_config(config);
    let queues = webhook_queues(config)?;
    let client = billing_api::webhooks::client::Client::new(Policy::from_env())?;
    let schedule = Schedule::from_env();
    Ok(move |vault| Sender {
        store: store.clone(),
        queues: queues.clone(),
        vault,
        client: client.clone(),
        schedule: schedule.clone(),
    })
}

/// Runs the REQUEST authorizer.
pub async fn run_authorizer() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let store = Store::from_env().await;
    let limiter = billing_api::http::rate_limit::RateLimiter::new(
        store.clone(),
        billing_api::http::rate_limit::RateLimits::from_env()?,
    );
    let (store, limiter) = (&store, &limiter);
    lambda_runtime::run(service_fn(
        move |event: LambdaEvent<ApiGatewayCustomAuthorizerRequestTypeRequest>| async move {
            billing_api::http::authorizer::authorize(store, limiter, event.payload).await.map_err(diagnostic)
        },
    ))
    .await
}

/// API Gateway answers 401 only when the authorizer fails with the message "Unauthorized".
pub fn diagnostic(error: AuthorizerError) -> Diagnostic {
    let error_type = match error {
        AuthorizerError::Unauthorized => "Unauthorized",
        AuthorizerError::Failure(_) => "AuthorizerFailure",
    };
    Diagnostic { error_type: error_type.to_owned(), error_message: error.to_string() }
}

/// Runs the remittance job on its schedule: every agreement with billets waiting gets its files
/// (`billings::billets::remittance`), for at most [`REMITTANCE_BUDGET`]; then one Embedded Metric
/// Format line with the age of the oldest instruction still waiting (the template's backlog alarm).
pub async fn run_remittance_job() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
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
    let report = billing_api::billings::billets::remittance::run_due(store, files, deadline).await?;
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

/// Runs the return-file trigger (S3 `ObjectCreated` under `returns/`).
pub async fn run_return_files() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let (store, files) = (Store::from_config(&config), billing_api::files::Files::from_config(&config));
    let (store, files) = (&store, &files);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::s3::S3Event>| async move {
        let received = billing_api::billings::billets::returns::on_uploads(store, files, event.payload).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::to_value(&received)?)
    }))
    .await
}

/// The PSP's Pix webhook as its Lambda serves it, behind its own custom domain with mutual TLS
/// (`PixWebhookDomain`): no authorizer (the domain's truststore admits only the PSP's
/// certificates, and each Pix is read back from the PSP before it is applied); unknown routes are
/// JSON 404s.
pub fn pix_webhook_app(state: AppState) -> Router {
    finish(billing_api::payments::pix::routes::routes().with_state(state))
}

/// Runs the Pix webhook.
pub async fn run_pix_webhook() -> Result<(), lambda_http::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    lambda_http::run(pix_webhook_app(AppState::new(Store::from_config(&config)))).await
}

/// Runs the Pix charges worker on its SQS event source: each message removes a billing's charge
/// at its PSP.
pub async fn run_pix_charges_worker() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| async move {
        Ok::<_, std::convert::Infallible>(Box::pin(billing_api::payments::pix::handle_batch(event.payload)).await)
    }))
    .await
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
    billing_api::telemetry::init();
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

/// The routes of the webhooks function: the account's receivers, deliveries and events, and its
/// reminder schedule (`/v1/reminder_schedule`): what the account tells its payers and systems.
pub fn notification_routes() -> Router<AppState> {
    billing_api::webhooks::router().merge(billing_api::reminders::router())
}

/// The reminders' worker (SQS event source on the reminders queue): scans a page of the due-day
/// index and queues its reminders, or sends one reminder, paced to its share of the sending rate.
pub async fn run_reminder_worker() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let store = Store::from_config(&config);
    let queues = billing_api::jobs::Queues::from_env(&config).ok_or("REMINDERS_QUEUE_URL is not set")?;
    let providers = billing_api::reminders::providers::Providers::from_env(&config);
    let (store, queues, providers) = (&store, &queues, &providers);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| async move {
        let handled = billing_api::reminders::run::handle_batch(store, queues, providers, event.payload);
        Ok::<_, std::convert::Infallible>(Box::pin(handled).await)
    }))
    .await
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
    billing_api::telemetry::init();
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

/// The providers' events about reminders (SNS: SES's configuration set, End User Messaging
/// Social's WhatsApp statuses): each moves its delivery's status. A notification that fails
/// (storage) fails the invocation, and SNS delivers it again.
pub async fn run_reminder_events() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::sns::SnsEvent>| async move {
        // Boxed: its future is deep enough to overflow the compiler's layout limit inline.
        Box::pin(reminder_events(store, event.payload)).await
    }))
    .await
}

/// One SNS invocation of the reminder events: what its notifications came to.
pub async fn reminder_events(
    store: &Store,
    event: aws_lambda_events::sns::SnsEvent,
) -> Result<serde_json::Value, lambda_runtime::Error> {
    let (mut recorded, mut ignored) = (0, 0);
    for record in event.records {
        let applied = Box::pin(billing_api::reminders::events::apply(store, &record.sns.message)).await?;
        recorded += applied.recorded;
        ignored += applied.ignored;
    }
    Ok(serde_json::json!({ "recorded": recorded, "ignored": ignored }))
}

/// What writes of the card channel, on the payer API: the gateways' webhooks (public, outside
/// `/v1`; each request proves itself by its signature) and the card checkout's posts of the payer
/// pages (the day's intent, the payer's confirmation), which the payer page's routes serve with
/// their per-IP limit; API Gateway sends this function those routes alone, the payer page's
/// function (which only reads) the others. Unknown routes are 404s.
pub fn gateway_app(state: AppState) -> Router {
    let webhooks = billing_api::payments::gateway::routes::webhooks(state.clone());
    finish(billing_api::payer_page::app(state).merge(webhooks))
}

/// Runs the card channel's writes.
pub async fn run_gateway() -> Result<(), lambda_http::Error> {
    billing_api::telemetry::init();
    let config = billing_api::config::aws().await;
    let state = AppState::new(Store::from_config(&config)).with_rate_limits(RateLimits::from_env()?);
    lambda_http::run(gateway_app(state)).await
}

/// The daily step that makes card payments `available` once their escrow ends (EventBridge
/// Scheduler; `{"date": "YYYY-MM-DD"}` runs another day).
pub async fn run_gateway_availability() -> Result<(), lambda_runtime::Error> {
    billing_api::telemetry::init();
    let store = Store::from_env().await;
    let store = &store;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| async move {
        let day = reminder_day(&event.payload)?;
        let report = Box::pin(billing_api::payments::gateway::available::run(store, day)).await?;
        Ok::<_, lambda_runtime::Error>(serde_json::json!({ "day": day, "report": report }))
    }))
    .await
}
