//! The dev server in the test's process ([`DevServer`]): its router served on a free port of
//! 127.0.0.1 with queues of its own (and, when asked, a table of its own, rate limits, a meter,
//! lanes per tenant), its Pix webhook listener, and the handles the tests reach it by. Its workers
//! and drains are in `workers`.

use std::sync::Arc;

use aws_config::SdkConfig;
use billing_api::app::AppState;
use billing_api::auth::AuthCache;
use billing_api::http::rate_limit::RateLimits;
use billing_api::outbox::LocalStream;
use billing_api::store::Store;
use billing_api::webhooks::{Policy, SecretBox};

use super::stack::local_stack;

/// The dev server's router, served on a free port until the test's runtime ends. Each server has a
/// billet-registration queue of its own, so a test decides when its billets are registered
/// ([`DevServer::register_billets`], or [`DevServer::start_worker`] as the dev server runs it)
/// and never registers another test's.
#[derive(Clone)]
pub struct DevServer {
    pub base_url: String,
    pub store: Store,
    pub config: SdkConfig,
    pub cache: AuthCache,
    pub billet_queue_url: String,
    pub bulk_queue_url: String,
    pub webhook_queue_url: String,
    pub settlements_queue_url: String,
    pub cascades_queue_url: String,
    pub pix_charges_queue_url: String,
    pub card_releases_queue_url: String,
    pub schedule_cycles_queue_url: String,
    pub exports_queue_url: String,
    pub reminders_queue_url: String,
    pub reminder_scans_queue_url: String,
    /// The base URL of its Pix webhook listener (mutual TLS), when the local PSP's certificates are
    /// there (`LOCAL_PIX_CERTS`: infra/test starts the local PSP).
    pub pix_webhook_url: Option<String>,
    pub queues: billing_api::jobs::Queues,
    /// The webhook master key, read from the local stack's Secrets Manager.
    pub vault: Arc<SecretBox>,
    /// What this server's store writes, for the outbox to hand on to this server's queues (its
    /// requests' and workers' events and tasks only: other tests' servers share the table).
    pub stream: LocalStream,
    /// Whether the outbox is handed on in the background already.
    pub(super) handing_on: Arc<std::sync::atomic::AtomicBool>,
    /// Whether its queues keep a lane per tenant ([`DevServer::start_fair`]).
    pub(super) fair: bool,
    /// Messages a drain's worker failed (each would go back to its queue, and after its receive
    /// limit to the queue's DLQ).
    pub(super) failed: Arc<std::sync::atomic::AtomicUsize>,
    /// Every message the drains handled so far, by queue URL: its identity (`workers::identity`)
    /// and its body. SQS may deliver a message again seconds later (the fault proxy does), into a
    /// later drain: a message seen before is that copy, never a new one.
    pub(super) seen:
        Arc<std::sync::Mutex<std::collections::HashMap<String, std::collections::HashMap<String, String>>>>,
}

/// The server's Pix webhook listener over mutual TLS, when the local PSP's certificates are there:
/// its base URL.
async fn pix_listener(state: &AppState) -> Option<String> {
    let tls = crate::pix_listener::PixTls::from_env()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a free port");
    let url = format!("https://{}", listener.local_addr().expect("local address"));
    let config = tls.server_config().expect("the Pix webhook listener's certificates");
    tokio::spawn(crate::pix_listener::serve(listener, crate::pix_listener::router(state.clone()), config));
    Some(url)
}

/// An SQS client; with a `meter`, its calls are reported to it.
fn sqs_client(config: &SdkConfig, meter: Option<crate::meter::Meter>) -> aws_sdk_sqs::Client {
    match meter {
        Some(meter) => {
            aws_sdk_sqs::Client::from_conf(aws_sdk_sqs::config::Builder::from(config).interceptor(meter).build())
        }
        None => aws_sdk_sqs::Client::new(config),
    }
}

/// A table of one test server's own.
async fn own_table() -> (SdkConfig, Store) {
    billing_api::app::wire();
    let (config, _) = local_stack().await;
    let db = aws_sdk_dynamodb::Client::new(&config);
    let table = format!("billing-test-{:016x}", rand::random::<u64>());
    crate::local_stack::ensure_table(&db, &table).await.expect("create the test's table");
    (config, Store::new(db, table))
}

/// A queue of one test server.
async fn test_queue(sqs: &aws_sdk_sqs::Client, purpose: &str) -> String {
    let name = format!("test-{purpose}-{:016x}", rand::random::<u64>());
    let created = sqs.create_queue().queue_name(name).send().await.expect("create the test's queue");
    created.queue_url.expect("queue URL")
}

impl DevServer {
    /// A server without rate limits: tests run in parallel from one IP, and only the tests of the
    /// limits themselves ([`DevServer::start_limited`]) count requests.
    pub async fn start() -> Self {
        let (config, store) = local_stack().await;
        Self::serve(config, store, RateLimits::OFF).await
    }

    /// A server whose store counts every storage request it makes on `meter` (the tests of what
    /// one request may cost).
    pub async fn start_metered(meter: Arc<billing_api::store::meter::ReadMeter>) -> Self {
        let (config, store) = local_stack().await;
        Self::serve(config, store.with_meter(meter), RateLimits::OFF).await
    }

    /// A server with these rate limits on a table of its own, counting its storage requests on
    /// `meter`.
    pub async fn start_limited_metered(limits: RateLimits, meter: Arc<billing_api::store::meter::ReadMeter>) -> Self {
        let (config, store) = own_table().await;
        Self::serve(config, store.with_meter(meter), limits).await
    }

    /// A server with these rate limits, on a table of its own, so that no other test's requests
    /// from 127.0.0.1 reach its counters.
    pub async fn start_limited(limits: RateLimits) -> Self {
        Self::start_alone(limits).await
    }

    /// A server on a table of its own: its outbox sweep ([`DevServer::start_webhooks`]) sees only
    /// its own events.
    pub async fn start_alone(limits: RateLimits) -> Self {
        let (config, store) = own_table().await;
        Self::serve(config, store, limits).await
    }

    /// A server with these rate limits on a table of its own, whose DynamoDB and SQS clients
    /// report every call to `meter` (the tests of the calls a request makes one after another).
    pub async fn start_measured(limits: RateLimits, meter: crate::meter::Meter) -> Self {
        let (config, store) = own_table().await;
        let store = Store::new(meter.client(&config), store.table().to_owned());
        Self::serve_with(config, store, limits, Some(meter), false).await
    }

    /// A server whose queues keep a lane per tenant, as the dev server's do (the local stand-in for
    /// SQS fair queues: `jobs::Queues::with_tenant_lanes`); its drains take the lanes in turn.
    pub async fn start_fair() -> Self {
        let (config, store) = local_stack().await;
        Self::serve_with(config, store, RateLimits::OFF, None, true).await
    }

    /// [`DevServer::start_fair`] on a table of its own: what reads a global index (the reminders'
    /// due-day index, which moto answers by walking the whole table) reads only its own items.
    pub async fn start_fair_alone() -> Self {
        let (config, store) = own_table().await;
        Self::serve_with(config, store, RateLimits::OFF, None, true).await
    }

    async fn serve(config: SdkConfig, store: Store, limits: RateLimits) -> Self {
        Self::serve_with(config, store, limits, None, false).await
    }

    /// The server; with a `meter`, its queue client's calls are reported to it too; with `lanes`,
    /// its queues keep a lane per tenant.
    async fn serve_with(
        config: SdkConfig,
        store: Store,
        limits: RateLimits,
        meter: Option<crate::meter::Meter>,
        lanes: bool,
    ) -> Self {
        let (store, stream) = crate::dev_server::streamed_store(store);
        let cache = AuthCache::default();
        let sqs = sqs_client(&config, meter);
        let billet_queue_url = test_queue(&sqs, "billet-registration").await;
        let bulk_queue_url = test_queue(&sqs, "bulk-expansion").await;
        let webhook_queue_url = test_queue(&sqs, "webhook-deliveries").await;
        let settlements_queue_url = test_queue(&sqs, "settlements").await;
        let cascades_queue_url = test_queue(&sqs, "cascades").await;
        let pix_charges_queue_url = test_queue(&sqs, "pix-charges").await;
        let card_releases_queue_url = test_queue(&sqs, "card-releases").await;
        let reminders_queue_url = test_queue(&sqs, "reminders").await;
        let reminder_scans_queue_url = test_queue(&sqs, "reminder-scans").await;
        let schedule_cycles_queue_url = test_queue(&sqs, "schedule-cycles").await;
        let exports_queue_url = test_queue(&sqs, "exports").await;
        let queues = billing_api::jobs::Queues::new(sqs, billet_queue_url.clone())
            .with_bulk_expansion(bulk_queue_url.clone())
            .with_webhook_deliveries(webhook_queue_url.clone())
            .with_settlements(settlements_queue_url.clone())
            .with_cascades(cascades_queue_url.clone())
            .with_pix_charges(pix_charges_queue_url.clone())
            .with_card_releases(card_releases_queue_url.clone())
            .with_reminders(reminders_queue_url.clone())
            .with_reminder_scans(reminder_scans_queue_url.clone())
            .with_schedule_cycles(schedule_cycles_queue_url.clone())
            .with_exports(exports_queue_url.clone());
        let queues = if lanes { queues.with_tenant_lanes() } else { queues };
        let vault = Arc::new(webhook_vault(&config).await);
        // Receivers on http://127.0.0.1 (the local switch), as the tests' senders deliver to them.
        let webhooks = billing_api::state::Webhooks {
            key: billing_api::webhooks::secrets::MasterKey::ready(vault.clone()),
            policy: Policy::LOCAL,
        };
        // The payer pages count per IP only on servers that count the API's requests (the tests of
        // limits): the others share 127.0.0.1 with every test of the run.
        let pages = limits.per_ip.map(|_| RateLimits::PAYER_PAGES_PER_IP);
        let state =
            AppState::new(store.clone()).with_rate_limits(limits).with_webhooks(webhooks).with_payer_page_limit(pages);
        let pix_webhook_url = pix_listener(&state).await;
        let router = crate::dev_server::router(state, cache.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a free port");
        let base_url = format!("http://{}", listener.local_addr().expect("local address"));
        // Links name the first server of the process (tests open a link's path on their own).
        billing_api::billets::link::set_base(&base_url);
        tokio::spawn(crate::dev_server::serve(listener, router, std::future::pending()));
        DevServer {
            base_url,
            store,
            config,
            cache,
            billet_queue_url,
            bulk_queue_url,
            webhook_queue_url,
            settlements_queue_url,
            cascades_queue_url,
            pix_charges_queue_url,
            card_releases_queue_url,
            reminders_queue_url,
            reminder_scans_queue_url,
            schedule_cycles_queue_url,
            exports_queue_url,
            pix_webhook_url,
            queues,
            vault,
            stream,
            handing_on: Arc::default(),
            fair: lanes,
            failed: Arc::default(),
            seen: Arc::default(),
        }
    }

    /// The ops CLI's webhook operations against this server (local receivers allowed).
    pub fn webhook_ops(&self) -> crate::ops::webhook::WebhookOps {
        crate::ops::webhook::WebhookOps { store: self.store.clone(), vault: self.vault.clone(), policy: Policy::LOCAL }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// The cache flusher the ops CLI would use against this server.
    pub fn flusher(&self) -> crate::cache_flush::CacheFlusher {
        crate::cache_flush::CacheFlusher::DevServer { base_url: self.base_url.clone() }
    }
}

/// The webhook master key of the local stack (the secret is created when missing).
async fn webhook_vault(config: &SdkConfig) -> SecretBox {
    crate::local_stack::ensure_secret(&aws_sdk_secretsmanager::Client::new(config))
        .await
        .expect("the webhook key secret");
    SecretBox::from_env(config).await.expect("read the webhook key secret")
}
