//! The dev server: every router of the API on one address, with the authorizer as middleware (a
//! 15-minute cache, flushed by `DELETE /_local/authorizer-cache`), exactly the code the Lambdas run;
//! the queue workers in-process (`crate::workers`), fed the way the SQS event source mappings feed
//! them on AWS; and the outbox: every event and task its store writes handed on at once (the
//! table's stream and the outbox dispatcher on AWS), and a sweep of the pending index for what
//! others wrote: at its start (a process killed before it handed on what it wrote), when the ops
//! CLI says it wrote (`POST /_local/outbox`), and every minute, as the sweeper runs on AWS.

use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::response::Response;
use axum::routing::{delete, post};
use axum::Router;
use billing_api::app::{all_routes, AppState};
use billing_api::auth::AuthCache;
use billing_api::http::authentication::{local_authorizer, LocalAuthorizer};
use billing_api::http::idempotency::idempotency;
use billing_api::http::rate_limit::rate_limit;
use billing_api::http::{response, routing::finish};
use billing_api::jobs::Queues;
use billing_api::outbox::{self, LocalStream};
use billing_api::payer_page;
use billing_api::store::Store;
use billing_api::values::Timestamp;

use crate::cache_flush::{LOCAL_FLUSH_PATH, LOCAL_OUTBOX_PATH};
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
    let local = local.route(LOCAL_OUTBOX_PATH, post(nudge_outbox));
    // The payer's pages: public, outside /v1 (their own API on AWS).
    let gateways = billing_api::payments::card::routes::webhooks(state.clone());
    finish(api.merge(local).merge(payer_page::app(state)).merge(gateways))
}

/// What the outbox's sweep waits on besides its minute: a count of the ops CLI's nudges.
fn outbox_nudges() -> &'static tokio::sync::watch::Sender<u64> {
    static NUDGES: std::sync::OnceLock<tokio::sync::watch::Sender<u64>> = std::sync::OnceLock::new();
    NUDGES.get_or_init(|| tokio::sync::watch::channel(0).0)
}

async fn nudge_outbox() -> Response {
    outbox_nudges().send_modify(|count| *count += 1);
    response::no_content()
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

/// How often the dev server's in-process tests hand on what their store wrote.
pub const OUTBOX_STREAM_EVERY: std::time::Duration = std::time::Duration::from_millis(20);
/// How often the dev server sweeps the pending index unasked, as the sweeper does on AWS, and how
/// old an item must be to be swept then: the stream hands on the rest.
pub const OUTBOX_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// A store that tells `stream` what it writes, as the table's stream tells the outbox dispatcher
/// on AWS.
pub fn streamed_store(store: Store) -> (Store, LocalStream) {
    let (stream, sender) = LocalStream::new();
    (store.with_stream(sender), stream)
}

/// Hands on the outbox for ever, as the stream and the sweeper do on AWS: what `stream` reports as
/// it is written; whatever is pending at the start (written by a process that stopped before it
/// handed it on) and when the ops CLI says it wrote; and every [`OUTBOX_SWEEP_EVERY`] what is
/// older than that. An idle server asks nothing of the table but that minute's sweep.
pub async fn run_outbox(stream: LocalStream, store: Store, queues: Queues) {
    tokio::spawn(stream.run_as_written(store.clone(), queues.clone()));
    let mut nudges = outbox_nudges().subscribe();
    let mut before = Timestamp::now();
    loop {
        if let Err(error) = outbox::sweep(&store, &queues, before, 500).await {
            tracing::warn!(error = ?error, "could not sweep the outbox");
        }
        before = tokio::select! {
            _ = tokio::time::sleep(OUTBOX_SWEEP_EVERY) => {
                Timestamp(Timestamp::now().0 - chrono::Duration::from_std(OUTBOX_SWEEP_EVERY).unwrap_or_default())
            }
            _ = nudges.changed() => Timestamp::now(),
        };
    }
}

/// Runs the remittance job every `every`, as the template's schedule does hourly on AWS: the
/// remittance files of every agreement with billets waiting, into the local bucket.
pub async fn run_remittances(store: Store, files: billing_api::files::Files, every: std::time::Duration) {
    loop {
        tokio::time::sleep(every).await;
        let deadline = std::time::Instant::now() + every;
        match billing_api::payments::boleto::remittance::run_due(&store, &files, deadline).await {
            Ok(report) if !report.made.is_empty() => {
                tracing::info!(files = report.made.len(), "remittance files written")
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(error = ?error, "the remittance job failed; the next run carries on"),
        }
    }
}

/// Starts today's issuing run of the schedules every `every` (at once first), as the template's
/// schedule does daily on AWS: each schedule due by today goes to the schedule cycles queue, whose
/// worker issues its cycle once (a run again finds nothing new; nothing due costs the index's
/// sixteen queries).
pub async fn run_schedules(store: Store, queues: billing_api::jobs::Queues, every: std::time::Duration) {
    loop {
        match billing_api::schedules::run::start(&store, &queues, billing_api::values::today()).await {
            Ok(0) => {}
            Ok(due) => tracing::info!(due, "schedules due today queued"),
            Err(error) => tracing::warn!(error = ?error, "the schedules' run failed; the next run carries on"),
        }
        tokio::time::sleep(every).await;
    }
}

/// How often the dev server starts the schedules' run of today (`SCHEDULES_EVERY_SECONDS`,
/// default 60; 0: never, run a day with `infra/ops --local schedules run`).
pub fn schedules_every() -> Option<std::time::Duration> {
    let seconds =
        std::env::var("SCHEDULES_EVERY_SECONDS").ok().and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(60);
    (seconds > 0).then(|| std::time::Duration::from_secs(seconds))
}

/// How often the dev server runs the remittance job (`REMITTANCE_EVERY_SECONDS`; 0: never, run it
/// with `infra/ops --local remittance create`).
pub fn remittance_every() -> Option<std::time::Duration> {
    let seconds =
        std::env::var("REMITTANCE_EVERY_SECONDS").ok().and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(60);
    (seconds > 0).then(|| std::time::Duration::from_secs(seconds))
}
