//! The dev server: every router of the API on one address, with the authorizer as middleware (a
//! 15-minute cache, flushed by `DELETE /_local/authorizer-cache`), exactly the code the Lambdas run;
//! the queue workers in-process, fed the way the SQS event source mappings feed them on AWS; and
//! the outbox: every event and task its store writes handed on at once (the table's stream and the
//! outbox dispatcher on AWS), and a sweep of the pending index for what others wrote (the ops
//! CLI, a process killed before it handed on what it wrote).

use anyhow::Context as _;
use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::response::Response;
use axum::routing::delete;
use axum::Router;
use billing_api::app::{all_routes, AppState};
use billing_api::auth::AuthCache;
use billing_api::billings;
use billing_api::http::authentication::{local_authorizer, LocalAuthorizer};
use billing_api::http::idempotency::idempotency;
use billing_api::http::rate_limit::rate_limit;
use billing_api::http::{response, routing::finish};
use billing_api::jobs::Queues;
use billing_api::outbox::{self, LocalStream};
use billing_api::payer_page;
use billing_api::store::Store;
use billing_api::values::Timestamp;
use billing_api::webhooks::Sender;

use crate::cache_flush::LOCAL_FLUSH_PATH;
use crate::listener::JsonRefusals;

/// Every route behind the local authorizer, the rate limits and the idempotency keys, in the order
/// API Gateway and the functions apply them on AWS; and the payer's pages, public.
pub fn router(state: AppState, cache: AuthCache) -> Router {
    let limiter = state.rate_limiter();
    let authorizer = LocalAuthorizer { store: state.store.clone(), cache: cache.clone(), limiter: limiter.clone() };
    let api = all_routes()
        .route_layer(axum::middleware::from_fn_with_state(state.store.clone(), idempotency))
        .route_layer(axum::middleware::from_fn_with_state(limiter, rate_limit))
        .route_layer(axum::middleware::from_fn_with_state(authorizer, local_authorizer))
        .with_state(state.clone());
    let local = Router::new().route(LOCAL_FLUSH_PATH, delete(flush_cache)).with_state(cache);
    // The payer's pages: public, outside /v1 (their own API on AWS).
    let gateways = billing_api::payments::gateway::routes::webhooks(state.clone());
    finish(api.merge(local).merge(payer_page::app(state)).merge(gateways))
}

async fn flush_cache(State(cache): State<AuthCache>) -> Response {
    cache.flush();
    tracing::info!("authorizer cache flushed");
    response::no_content()
}

/// How long a client may take to send a request's head (line and headers) before its connection
/// is closed; the body has its own limit ([`billing_api::http::body::BODY_READ_TIMEOUT`]).
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Connections served at once (`DEV_SERVER_MAX_CONNECTIONS`, 512 by default); one more is
/// answered `503` in JSON and closed.
pub fn max_connections() -> usize {
    std::env::var("DEV_SERVER_MAX_CONNECTIONS").ok().and_then(|n| n.parse().ok()).filter(|n| *n > 0).unwrap_or(512)
}

/// Connections the kernel holds for the server before it accepts them (the system's
/// `somaxconn` caps it; tokio's default is 1,024): a burst of connects beyond the backlog waits
/// out SYN retries (1 s, then 3 s) before even the 503 of [`max_connections`] can answer.
pub const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `host:port` (the first address it resolves to) with [`LISTEN_BACKLOG`].
pub async fn listen(host: &str, port: u16) -> std::io::Result<tokio::net::TcpListener> {
    let address = tokio::net::lookup_host((host, port))
        .await?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "the host resolves to no address"))?;
    let socket = if address.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Serves until `shutdown` resolves, HTTP/1 on each accepted connection, as API Gateway fronts
/// the functions on AWS: a head must arrive within [`HEADER_READ_TIMEOUT`] (a slow client cannot
/// hold a connection open for ever), at most [`max_connections`] are served at once, and hyper's
/// own refusals (a malformed request line, a URI or head too large) are answered in JSON like
/// every other 4xx (`crate::listener`). The peer address is the origin IP the per-IP rate limit
/// counts (`ConnectInfo<SocketAddr>`).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_bounded(listener, router, shutdown, max_connections()).await
}

/// [`serve`], with at most `connections` at once.
pub async fn serve_bounded(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    connections: usize,
) -> std::io::Result<()> {
    let slots = Arc::new(tokio::sync::Semaphore::new(connections));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, a connection reset before it was accepted: go on.
                Err(error) => {
                    tracing::warn!(error = %error, "could not accept a connection");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => return Ok(()),
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tokio::spawn(crate::listener::refuse_busy(stream));
            continue;
        };
        let connection = serve_connection(JsonRefusals::new(stream), router.clone(), peer);
        tokio::spawn(async move {
            connection.await;
            drop(slot);
        });
    }
}

/// Serves one connection's HTTP/1 requests with `router` (a head within [`HEADER_READ_TIMEOUT`]),
/// each request carrying its `peer` (`ConnectInfo`), until the connection ends.
pub async fn serve_connection<IO>(io: IO, router: Router, peer: std::net::SocketAddr)
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |request: axum::http::Request<hyper::body::Incoming>| {
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(peer));
        tower::ServiceExt::oneshot(router.clone(), request)
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(hyper_util::rt::TokioIo::new(io), service);
    if let Err(error) = connection.await {
        tracing::debug!(error = %error, "connection ended");
    }
}

/// A queue consumer, as its Lambda runs it.
#[derive(Clone, Debug)]
pub enum Worker {
    /// `billings::billets::registrar`, on the billet-registration queue.
    BilletRegistrar { store: Store },
    /// `billings::bulk`, on the bulk-expansion queue; it records registrations and next chunks as
    /// tasks.
    BulkExpander { store: Store },
    /// `webhooks::sender`, on the webhook-deliveries queue.
    WebhookSender(Box<Sender>),
    /// `pos::settlements`, on the settlements queue; it records each next chunk and the billing's
    /// registration as tasks.
    Settler { store: Store },
    /// `contacts::cascade`, on the cascades queue: clears a deleted tag or group from its holders,
    /// a chunk per message, and records the next chunk as a task.
    Cascader { store: Store },
    /// `payments::pix`, on the Pix charges queue: removes a billing's charge at its PSP.
    PixCharges,
    /// `reminders::run`, on the reminders queue: scans the due-day index and sends reminders.
    Reminders(Box<Reminders>),
}

/// What the reminders' worker works with.
#[derive(Clone, Debug)]
pub struct Reminders {
    pub store: Store,
    pub queues: billing_api::jobs::Queues,
    pub providers: billing_api::reminders::providers::Providers,
}

impl Worker {
    fn name(&self) -> &'static str {
        match self {
            Worker::BilletRegistrar { .. } => "billet-registration",
            Worker::BulkExpander { .. } => "bulk-expansion",
            Worker::WebhookSender(_) => "webhook-deliveries",
            Worker::Settler { .. } => "settlements",
            Worker::Cascader { .. } => "cascades",
            Worker::PixCharges => "pix-charges",
            Worker::Reminders(_) => "reminders",
        }
    }

    async fn handle(&self, event: SqsEvent) -> SqsBatchResponse {
        // Boxed: the workers' futures are deep enough to overflow the compiler's layout limit.
        match self {
            Worker::BilletRegistrar { store } => {
                Box::pin(billings::billets::registrar::handle_batch(store, event)).await
            }
            Worker::BulkExpander { store } => Box::pin(billings::bulk::handle_batch(store, event)).await,
            Worker::WebhookSender(sender) => Box::pin(sender.handle_batch(event)).await,
            Worker::Settler { store } => Box::pin(billing_api::pos::settlements::handle_batch(store, event)).await,
            Worker::Cascader { store } => Box::pin(billing_api::contacts::cascade::handle_batch(store, event)).await,
            Worker::PixCharges => Box::pin(billing_api::payments::pix::handle_batch(event)).await,
            Worker::Reminders(r) => {
                Box::pin(billing_api::reminders::run::handle_batch(&r.store, &r.queues, &r.providers, event)).await
            }
        }
    }
}

/// How often the dev server hands on what its store wrote (the stream's part on AWS).
pub const OUTBOX_STREAM_EVERY: std::time::Duration = std::time::Duration::from_millis(20);
/// How often it sweeps the pending index, for what was written by others or before a crash (the
/// sweeper's part on AWS, every minute there), and how old an item must be to be swept: the stream
/// hands on the rest.
pub const OUTBOX_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// A store that tells `stream` what it writes, as the table's stream tells the outbox dispatcher
/// on AWS.
pub fn streamed_store(store: Store) -> (Store, LocalStream) {
    let (stream, sender) = LocalStream::new();
    (store.with_stream(sender), stream)
}

/// Hands on the outbox for ever, as the stream and the sweeper do on AWS: what `stream` reports at
/// once, and every [`OUTBOX_SWEEP_EVERY`] whatever is still pending.
pub async fn run_outbox(stream: LocalStream, store: Store, queues: Queues) {
    tokio::spawn(stream.run(store.clone(), queues.clone(), OUTBOX_STREAM_EVERY));
    loop {
        tokio::time::sleep(OUTBOX_SWEEP_EVERY).await;
        let before = Timestamp(Timestamp::now().0 - chrono::Duration::from_std(OUTBOX_SWEEP_EVERY).unwrap_or_default());
        if let Err(error) = outbox::sweep(&store, &queues, before, 500).await {
            tracing::warn!(error = ?error, "could not sweep the outbox");
        }
    }
}

/// Runs the remittance job every `every`, as the template's schedule does hourly on AWS: the
/// remittance files of every agreement with billets waiting, into the local bucket.
pub async fn run_remittances(store: Store, files: billing_api::files::Files, every: std::time::Duration) {
    loop {
        tokio::time::sleep(every).await;
        let deadline = std::time::Instant::now() + every;
        match billing_api::billings::billets::remittance::run_due(&store, &files, deadline).await {
            Ok(report) if !report.made.is_empty() => {
                tracing::info!(files = report.made.len(), "remittance files written")
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(error = ?error, "the remittance job failed; the next run carries on"),
        }
    }
}

/// How often the dev server runs the remittance job (`REMITTANCE_EVERY_SECONDS`; 0: never, run it
/// with `infra/ops --local remittance create`).
pub fn remittance_every() -> Option<std::time::Duration> {
    let seconds =
        std::env::var("REMITTANCE_EVERY_SECONDS").ok().and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(60);
    (seconds > 0).then(|| std::time::Duration::from_secs(seconds))
}

/// Polls a queue for ever and runs each batch through its worker: handled messages are deleted,
/// failed ones come back after the queue's visibility timeout, and after five receives land in
/// the DLQ.
pub async fn run_worker(sqs: aws_sdk_sqs::Client, queue_url: String, worker: Worker) {
    loop {
        if let Err(error) = worker_round(&sqs, &queue_url, &worker, 1).await {
            tracing::warn!(error = ?error, queue = worker.name(), "could not receive from the queue");
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    }
}

/// [`run_worker`] over a queue and its tenants' lanes (`jobs::Queues::with_tenant_lanes`), the
/// local stack's stand-in for SQS fair queues: one receive (up to 10 messages) from each lane in
/// turn, the lanes listed again every quarter of a second, so that a tenant's message waits for
/// one turn of the others' at most, whatever backlog one of them has. Idle, it pauses a tenth of
/// a second between turns.
pub async fn run_fair_worker(sqs: aws_sdk_sqs::Client, queue_url: String, worker: Worker) {
    let mut lanes = Vec::new();
    let mut listed: Option<std::time::Instant> = None;
    loop {
        if listed.is_none_or(|at| at.elapsed() >= std::time::Duration::from_millis(250)) {
            match lanes_of(&sqs, &queue_url).await {
                Ok(found) => lanes = found,
                Err(error) => tracing::warn!(error = ?error, queue = worker.name(), "could not list the lanes"),
            }
            listed = Some(std::time::Instant::now());
        }
        match fair_turn(&sqs, &lanes, &worker).await {
            Ok(round) if !round.bodies.is_empty() => {}
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            Err(error) => {
                tracing::warn!(error = ?error, queue = worker.name(), "could not receive from a lane");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        }
    }
}

/// The queue at `queue_url` and its tenants' lanes (`<name>-t<account>`), the queue first.
pub async fn lanes_of(sqs: &aws_sdk_sqs::Client, queue_url: &str) -> anyhow::Result<Vec<String>> {
    let prefix = format!("{}{}", billing_api::jobs::queue_name_of(queue_url), billing_api::jobs::LANE_INFIX);
    let mut lanes = vec![queue_url.to_owned()];
    let mut next: Option<String> = None;
    loop {
        let listed = sqs
            .list_queues()
            .queue_name_prefix(&prefix)
            .max_results(1000)
            .set_next_token(next.take())
            .send()
            .await
            .context("ListQueues")?;
        lanes.extend(listed.queue_urls.unwrap_or_default());
        match listed.next_token {
            Some(token) if !token.is_empty() => next = Some(token),
            _ => break,
        }
    }
    Ok(lanes)
}

/// One turn of the lanes: a receive and its batch from each, in order; what they came to together.
pub async fn fair_turn(sqs: &aws_sdk_sqs::Client, lanes: &[String], worker: &Worker) -> anyhow::Result<Round> {
    let mut turn = Round::default();
    for lane in lanes {
        let round = worker_round(sqs, lane, worker, 0).await?;
        turn.bodies.extend(round.bodies);
        turn.failed += round.failed;
    }
    Ok(turn)
}

/// What one receive and its batch came to.
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// The bodies of the messages received (a message SQS delivered twice counts twice).
    pub bodies: Vec<String>,
    /// How many of them the worker failed (given back to the queue, on their way to its DLQ).
    pub failed: usize,
}

/// One receive (up to 10 messages, waiting up to `wait_seconds` for the first) and its batch, as
/// the event source mapping delivers it.
pub async fn worker_round(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    worker: &Worker,
    wait_seconds: i32,
) -> anyhow::Result<Round> {
    let received = sqs
        .receive_message()
        .queue_url(queue_url)
        .max_number_of_messages(10)
        .wait_time_seconds(wait_seconds)
        .send()
        .await
        .context("ReceiveMessage")?;
    let messages = received.messages.unwrap_or_default();
    if messages.is_empty() {
        return Ok(Round::default());
    }
    let mut event = SqsEvent::default();
    for message in &messages {
        let mut record = SqsMessage::default();
        record.message_id = message.message_id.clone();
        record.receipt_handle = message.receipt_handle.clone();
        record.body = message.body.clone();
        event.records.push(record);
    }
    let response = worker.handle(event).await;
    let failed: Vec<&str> = response.batch_item_failures.iter().map(|f| f.item_identifier.as_str()).collect();
    for message in &messages {
        if failed.contains(&message.message_id.as_deref().unwrap_or_default()) {
            continue;
        }
        if let Some(handle) = &message.receipt_handle {
            sqs.delete_message().queue_url(queue_url).receipt_handle(handle).send().await.context("DeleteMessage")?;
        }
    }
    Ok(Round { bodies: messages.into_iter().map(|m| m.body.unwrap_or_default()).collect(), failed: failed.len() })
}
