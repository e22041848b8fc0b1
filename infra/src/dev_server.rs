//! The dev server: every router of the API on one address, with the authorizer as middleware (a
//! 15-minute cache, flushed by `DELETE /_local/authorizer-cache`), exactly the code the Lambdas run;
//! the queue workers in-process, fed the way the SQS event source mappings feed them on AWS; and
//! the outbox sweep that hands events to the webhook dispatcher (the table's stream on AWS).

use anyhow::Context as _;
use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::delete;
use axum::Router;
use billing_api::app::{all_routes, AppState};
use billing_api::auth::middleware::{local_authorizer, LocalAuthorizer};
use billing_api::auth::AuthCache;
use billing_api::http::{response, routing::finish};
use billing_api::idempotency::idempotency;
use billing_api::jobs::Queues;
use billing_api::rate_limit::rate_limit;
use billing_api::store::Store;
use billing_api::values::Timestamp;
use billing_api::webhooks::{dispatcher, Sender};
use billing_api::{billets, billings};

use crate::cache_flush::LOCAL_FLUSH_PATH;
use crate::listener::{JsonListener, Peer};

/// Every route behind the local authorizer, the rate limits and the idempotency keys, in the order
/// API Gateway and the functions apply them on AWS.
pub fn router(state: AppState, cache: AuthCache) -> Router {
    let authorizer = LocalAuthorizer { store: state.store.clone(), cache: cache.clone() };
    let api = all_routes()
        .route_layer(axum::middleware::from_fn_with_state(state.store.clone(), idempotency))
        .route_layer(axum::middleware::from_fn_with_state(state.rate_limiter(), rate_limit))
        .route_layer(axum::middleware::from_fn_with_state(authorizer, local_authorizer))
        .with_state(state);
    let local = Router::new().route(LOCAL_FLUSH_PATH, delete(flush_cache)).with_state(cache);
    finish(api.merge(local))
}

async fn flush_cache(State(cache): State<AuthCache>) -> Response {
    cache.flush();
    tracing::info!("authorizer cache flushed");
    response::no_content()
}

/// Serves until `shutdown` resolves. hyper's own refusals (a malformed request line, a URI or
/// head too large) are answered in JSON like every other 4xx (`crate::listener`).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = router.layer(axum::middleware::from_fn(peer_address)).into_make_service_with_connect_info::<Peer>();
    axum::serve(JsonListener(listener), service).with_graceful_shutdown(shutdown).await
}

/// The peer address is the origin IP the per-IP rate limit counts (`ConnectInfo<SocketAddr>`).
async fn peer_address(mut request: Request, next: Next) -> Response {
    if let Some(ConnectInfo(Peer(address))) = request.extensions().get::<ConnectInfo<Peer>>().copied() {
        request.extensions_mut().insert(ConnectInfo(address));
    }
    next.run(request).await
}

/// A queue consumer, as its Lambda runs it.
#[derive(Clone, Debug)]
pub enum Worker {
    /// `billets::registrar`, on the billet-registration queue.
    BilletRegistrar { store: Store },
    /// `billings::bulk`, on the bulk-expansion queue; it enqueues registrations and next chunks.
    BulkExpander { store: Store, queues: Queues },
    /// `webhooks::sender`, on the webhook-deliveries queue.
    WebhookSender(Box<Sender>),
    /// `pos::settlements`, on the settlements queue; it enqueues each next chunk and the billing's
    /// registration.
    Settler { store: Store, queues: Queues },
    /// `contacts::cascade`, on the cascades queue: clears a deleted tag or group from its holders,
    /// a chunk per message, and enqueues the next chunk.
    Cascader { store: Store, queues: Queues },
}

impl Worker {
    fn name(&self) -> &'static str {
        match self {
            Worker::BilletRegistrar { .. } => "billet-registration",
            Worker::BulkExpander { .. } => "bulk-expansion",
            Worker::WebhookSender(_) => "webhook-deliveries",
            Worker::Settler { .. } => "settlements",
            Worker::Cascader { .. } => "cascades",
        }
    }

    async fn handle(&self, event: SqsEvent) -> SqsBatchResponse {
        // Boxed: the workers' futures are deep enough to overflow the compiler's layout limit.
        match self {
            Worker::BilletRegistrar { store } => Box::pin(billets::registrar::handle_batch(store, event)).await,
            Worker::BulkExpander { store, queues } => {
                Box::pin(billings::bulk::handle_batch(store, queues, event)).await
            }
            Worker::WebhookSender(sender) => Box::pin(sender.handle_batch(event)).await,
            Worker::Settler { store, queues } => {
                Box::pin(billing_api::pos::settlements::handle_batch(store, queues, event)).await
            }
            Worker::Cascader { store, queues } => {
                Box::pin(billing_api::contacts::cascade::handle_batch(store, queues, event)).await
            }
        }
    }
}

/// How often the dev server sweeps the outbox (the stream's part on AWS).
pub const OUTBOX_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Dispatches the outbox's pending events for ever, as the stream and the sweeper do on AWS.
pub async fn run_outbox(store: Store, queues: Queues) {
    loop {
        if let Err(error) = dispatcher::sweep(&store, &queues, Timestamp::now(), 100).await {
            tracing::warn!(error = ?error, "could not sweep the outbox");
        }
        tokio::time::sleep(OUTBOX_SWEEP_EVERY).await;
    }
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

/// One receive (up to 10 messages, waiting up to `wait_seconds` for the first) and its batch, as
/// the event source mapping delivers it. Returns how many messages were received.
pub async fn worker_round(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    worker: &Worker,
    wait_seconds: i32,
) -> anyhow::Result<usize> {
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
        return Ok(0);
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
    Ok(messages.len())
}
