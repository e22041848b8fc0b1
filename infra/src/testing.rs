//! Support for the integration and black-box tests: the local stack (from the `AWS_ENDPOINT_URL`
//! that `infra/test` exports), a fresh account with a token per test so tests run in parallel,
//! and the dev server on a free port of 127.0.0.1.

use aws_config::SdkConfig;
use billing_api::accounts::{self, AccountChanges, AccountId, AccountStatus};
use billing_api::app::AppState;
use billing_api::auth::{token_record, AuthCache};
use billing_api::http::rate_limit::RateLimits;
use billing_api::outbox::LocalStream;

use crate::workers::Worker;
use billing_api::store::Store;
use billing_api::webhooks::{Policy, Schedule, SecretBox, Sender};
use std::sync::Arc;
use tokio::sync::OnceCell;

static TABLE_READY: OnceCell<()> = OnceCell::const_new();
static QUEUE_URLS: OnceCell<(String, String, String)> = OnceCell::const_new();
/// The shared billet-registration, bulk-expansion and cascades queues of the local stack (created
/// once per process); nothing consumes them in tests (the Lambda event tests build their SQS events
/// themselves).
pub async fn billet_queue(config: &SdkConfig) -> billing_api::jobs::Queues {
    let sqs = aws_sdk_sqs::Client::new(config);
    let (billets, bulk, cascades) = QUEUE_URLS
        .get_or_init(|| async {
            let urls = crate::local_stack::ensure_queues(&sqs).await.expect("create the queues");
            let url = |name: &str| urls[name].clone();
            (
                url(crate::local_stack::BILLET_REGISTRATION_QUEUE),
                url(crate::local_stack::BULK_EXPANSION_QUEUE),
                url(crate::local_stack::CASCADES_QUEUE),
            )
        })
        .await;
    billing_api::jobs::Queues::new(sqs, billets.clone())
        .with_bulk_expansion(bulk.clone())
        .with_cascades(cascades.clone())
}

static BUCKET_READY: OnceCell<()> = OnceCell::const_new();

/// The local stack's bucket of bank files (`FILES_BUCKET`, else `billing-files`), created once per
/// process.
pub async fn local_files(config: &SdkConfig) -> billing_api::files::Files {
    let files = billing_api::files::Files::from_config(config);
    BUCKET_READY
        .get_or_init(|| async {
            crate::local_stack::ensure_bucket(&files).await.expect("create the files bucket");
        })
        .await;
    files
}

/// The SDK configuration and table of the local stack. The table is created once per process.
pub async fn local_stack() -> (SdkConfig, Store) {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "integration tests run against the local stack: use infra/test (it starts the moto server and sets AWS_ENDPOINT_URL)"
    );
    let config = billing_api::config::aws().await;
    let table = billing_api::config::table_name();
    let db = aws_sdk_dynamodb::Client::new(&config);
    TABLE_READY
        .get_or_init(|| async {
            crate::local_stack::ensure_table(&db, &table).await.expect("create the test table");
            // The reminders' sender, which moto's SES sends from once it is an identity.
            crate::local_stack::ensure_sender(&config).await.expect("the reminder sender's SES identity");
        })
        .await;
    (config, Store::new(db, table))
}

/// A new account in the given state and a token for it (`Bearer ...` header value).
pub async fn account(
    store: &Store,
    status: AccountStatus,
    kyc_approved: bool,
    pos_enabled: bool,
) -> (AccountId, String) {
    let changes = AccountChanges {
        name: None,
        status: Some(status),
        kyc_approved: Some(kyc_approved),
        pos_enabled: Some(pos_enabled),
        health_module: None,
        document: Some("11222333000181".into()),
        address: Some("Avenida Paulista, 1000, Bela Vista".into()),
        city: Some("São Paulo".into()),
        settlement_contact_id: None,
    };
    let account = accounts::create(store, "Conta de teste", changes).await.expect("create account");
    let (_, token) = token_record::create(store, account.id, "teste").await.expect("create token");
    (account.id, format!("Bearer {}", token.expose()))
}

/// An active, verified account and its authorization header.
pub async fn active_account(store: &Store) -> (AccountId, String) {
    account(store, AccountStatus::Active, true, false).await
}

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
    handing_on: Arc<std::sync::atomic::AtomicBool>,
    /// Whether its queues keep a lane per tenant ([`DevServer::start_fair`]).
    fair: bool,
    /// Messages a drain's worker failed (each would go back to its queue, and after its receive
    /// limit to the queue's DLQ).
    failed: Arc<std::sync::atomic::AtomicUsize>,
    /// Every message the drains handled so far, by queue URL: its [`identity`] and its body. SQS
    /// may deliver a message again seconds later (the fault proxy does), into a later drain: a
    /// message seen before is that copy, never a new one.
    seen: Arc<std::sync::Mutex<std::collections::HashMap<String, std::collections::HashMap<String, String>>>>,
}

/// What makes two messages one piece of work for the drains: the body without `requested_at`, the
/// time its task was written (a registration is its billing and generation, a chunk its
/// expansion and place), so that two tasks asking for the same work count once. Anything else is
/// its own body.
fn identity(body: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(mut fields)) => {
            fields.remove("requested_at");
            serde_json::Value::Object(fields).to_string()
        }
        _ => body.to_owned(),
    }
}

/// A table of one test server's own.
async fn own_table() -> (SdkConfig, Store) {
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
        let sqs = match meter {
            Some(meter) => {
                aws_sdk_sqs::Client::from_conf(aws_sdk_sqs::config::Builder::from(&config).interceptor(meter).build())
            }
            None => aws_sdk_sqs::Client::new(&config),
        };
        let billet_queue_url = test_queue(&sqs, "billet-registration").await;
        let bulk_queue_url = test_queue(&sqs, "bulk-expansion").await;
        let webhook_queue_url = test_queue(&sqs, "webhook-deliveries").await;
        let settlements_queue_url = test_queue(&sqs, "settlements").await;
        let cascades_queue_url = test_queue(&sqs, "cascades").await;
        let pix_charges_queue_url = test_queue(&sqs, "pix-charges").await;
        let reminders_queue_url = test_queue(&sqs, "reminders").await;
        let reminder_scans_queue_url = test_queue(&sqs, "reminder-scans").await;
        let queues = billing_api::jobs::Queues::new(sqs, billet_queue_url.clone())
            .with_bulk_expansion(bulk_queue_url.clone())
            .with_webhook_deliveries(webhook_queue_url.clone())
            .with_settlements(settlements_queue_url.clone())
            .with_cascades(cascades_queue_url.clone())
            .with_pix_charges(pix_charges_queue_url.clone())
            .with_reminders(reminders_queue_url.clone())
            .with_reminder_scans(reminder_scans_queue_url.clone());
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
        let pix_webhook_url = match crate::pix_listener::PixTls::from_env() {
            Some(tls) => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a free port");
                let url = format!("https://{}", listener.local_addr().expect("local address"));
                let config = tls.server_config().expect("the Pix webhook listener's certificates");
                tokio::spawn(crate::pix_listener::serve(listener, crate::pix_listener::router(state.clone()), config));
                Some(url)
            }
            None => None,
        };
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
            reminders_queue_url,
            reminder_scans_queue_url,
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

    /// One receive and its batch from the queue at `queue_url`, or, on a server with lanes, one
    /// from each of its lanes in turn (`workers::fair_turn`).
    async fn turn(&self, sqs: &aws_sdk_sqs::Client, queue_url: &str, worker: &Worker) -> crate::workers::Round {
        let lanes = match self.fair {
            true => crate::workers::lanes_of(sqs, queue_url).await.expect("the queue's lanes"),
            false => vec![queue_url.to_owned()],
        };
        crate::workers::fair_turn(sqs, &lanes, worker).await.expect("a worker round")
    }

    /// One turn of the billet registrar over this server's lanes (a receive from each, as the dev
    /// server's worker takes them), what the server wrote handed on first.
    pub async fn registration_turn(&self) -> crate::workers::Round {
        self.hand_on().await;
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let worker = Worker::BilletRegistrar { store: self.store.clone() };
        self.turn(&sqs, &self.billet_queue_url, &worker).await
    }

    /// How many messages the drains' workers failed so far.
    pub fn failed_messages(&self) -> usize {
        self.failed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Hands on what this server wrote to the outbox (events to the webhook dispatcher, tasks to
    /// this server's queues), as the stream does on AWS; returns how many.
    pub async fn hand_on(&self) -> usize {
        self.stream.dispatch(&self.store, &self.queues).await
    }

    /// Hands on the outbox in the background from now on, as the dev server does.
    fn hand_on_in_background(&self) {
        if !self.handing_on.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let every = crate::dev_server::OUTBOX_STREAM_EVERY;
            tokio::spawn(self.stream.clone().run(self.store.clone(), self.queues.clone(), every));
        }
    }

    /// Runs the registration worker over this server's queue until it is empty (what the server
    /// wrote to the outbox handed on first); returns how many messages it handled.
    pub async fn register_billets(&self) -> usize {
        let worker = Worker::BilletRegistrar { store: self.store.clone() };
        self.drain(&self.billet_queue_url, &worker).await
    }

    /// Runs the bulk-expansion worker over this server's queue until it is empty (chunks enqueue
    /// their successors, which it runs too); returns how many messages it handled. The billets of
    /// the billings it made wait on the registration queue.
    pub async fn expand_bulk(&self) -> usize {
        let worker = Worker::BulkExpander { store: self.store.clone() };
        self.drain(&self.bulk_queue_url, &worker).await
    }

    /// Runs the settlements worker over this server's queue until it is empty (each chunk sends the
    /// next); returns how many messages it handled. The billing it makes waits on the registration
    /// queue.
    pub async fn settle(&self) -> usize {
        let worker = Worker::Settler { store: self.store.clone() };
        self.drain(&self.settlements_queue_url, &worker).await
    }

    /// Runs the cascades worker over this server's queue until it is empty: what deleted tags and
    /// groups left in their contacts is cleared. Returns how many messages it handled.
    pub async fn cascade(&self) -> usize {
        let worker = Worker::Cascader { store: self.store.clone() };
        self.drain(&self.cascades_queue_url, &worker).await
    }

    /// Runs the Pix charges worker over this server's queue until it is empty: the charges of
    /// billings that stopped being payable are removed at their PSP. Returns how many messages it
    /// handled.
    pub async fn remove_pix_charges(&self) -> usize {
        self.drain(&self.pix_charges_queue_url, &Worker::PixCharges).await
    }

    /// Starts `day`'s reminders on this server's scans queue (`reminders::run::start`) and runs
    /// the reminders' worker over it until it is empty, then over the reminders queue, as the
    /// schedule and the worker do on AWS (where the scans, quick, run beside the sends); returns
    /// how many different messages it handled (scans and reminders).
    pub async fn send_reminders(
        &self,
        day: chrono::NaiveDate,
        providers: &billing_api::reminders::providers::Providers,
    ) -> usize {
        billing_api::reminders::run::start(&self.store, &self.queues, day).await.expect("the run's scans");
        let worker = Worker::Reminders(Box::new(crate::workers::Reminders {
            store: self.store.clone(),
            queues: self.queues.clone(),
            providers: providers.clone(),
        }));
        let scans = self.drain(&self.reminder_scans_queue_url, &worker).await;
        scans + self.drain(&self.reminders_queue_url, &worker).await
    }

    /// Runs `worker` over the queue until it is empty; returns how many different messages it
    /// handled that no drain before handled (SQS may deliver one twice, even into a later drain:
    /// a copy is the same message).
    async fn drain(&self, queue_url: &str, worker: &Worker) -> usize {
        let mut handled = std::collections::HashSet::new();
        self.drain_into(queue_url, worker, &mut handled).await;
        handled.len()
    }

    /// The bulk-expansion and the billet-registration workers at once, as their functions run on
    /// AWS, until no expansion of `account` is left and both queues are empty; returns how many
    /// different registration messages were handled. A big expansion registers as it goes
    /// (registering after it would first fill the queue with every billing's message).
    pub async fn expand_and_register(&self, account: AccountId) -> usize {
        let expander = Worker::BulkExpander { store: self.store.clone() };
        let registrar = Worker::BilletRegistrar { store: self.store.clone() };
        let mut registered = std::collections::HashSet::new();
        let expanding = async {
            let mut handled = std::collections::HashSet::new();
            self.drain_into(&self.bulk_queue_url, &expander, &mut handled).await;
        };
        let registering = async {
            loop {
                let running = self.store.items_with_prefix(
                    billing_api::store::keys::account(account),
                    billing_api::store::keys::billing::BULK_EXPANSION_PREFIX.into(),
                    true,
                );
                let over = running.await.expect("the account's expansions").is_empty();
                self.drain_into(&self.billet_queue_url, &registrar, &mut registered).await;
                if over {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        };
        tokio::join!(expanding, registering);
        self.drain_into(&self.billet_queue_url, &registrar, &mut registered).await;
        registered.len()
    }

    /// Runs `worker` over the queue until it is empty, adding to `handled` the [`identity`] of the
    /// messages it handled that no drain of this server handled before.
    async fn drain_into(&self, queue_url: &str, worker: &Worker, handled: &mut std::collections::HashSet<String>) {
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        loop {
            // What the requests and the last round wrote (their messages, the next chunks).
            self.hand_on().await;
            let round = self.turn(&sqs, queue_url, worker).await;
            if round.bodies.is_empty() {
                return;
            }
            self.failed.fetch_add(round.failed, std::sync::atomic::Ordering::SeqCst);
            let mut seen = self.seen.lock().expect("the drains' bodies");
            let seen = seen.entry(queue_url.to_owned()).or_default();
            for body in round.bodies {
                let id = identity(&body);
                match seen.get(&id) {
                    None => {
                        seen.insert(id.clone(), body);
                        handled.insert(id);
                    }
                    // The same work asked for by two messages of different times: one piece of work
                    // for the tests (its worker does it once); said, so that a run's log shows it.
                    Some(first) if *first != body => eprintln!("drain: {body} asks again for what {first} asked"),
                    Some(_) => {}
                }
            }
        }
    }

    /// Sends every message the drains of this server handled from the queue at `queue_url` to it
    /// again, as SQS delivers a message a second time after it was handled (on a server without
    /// lanes); returns how many.
    pub async fn deliver_again(&self, queue_url: &str) -> usize {
        let bodies: Vec<String> = {
            let seen = self.seen.lock().expect("the drains' bodies");
            seen.get(queue_url).map(|bodies| bodies.values().cloned().collect()).unwrap_or_default()
        };
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        for body in &bodies {
            sqs.send_message().queue_url(queue_url).message_body(body).send().await.expect("send a message again");
        }
        bodies.len()
    }

    /// Both workers polling this server's queues in the background, as the dev server runs them,
    /// and the outbox handed on as it is written.
    pub fn start_worker(&self) {
        self.hand_on_in_background();
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let registrar = Worker::BilletRegistrar { store: self.store.clone() };
        tokio::spawn(self.run_worker(sqs.clone(), self.billet_queue_url.clone(), registrar));
        let expander = Worker::BulkExpander { store: self.store.clone() };
        tokio::spawn(self.run_worker(sqs, self.bulk_queue_url.clone(), expander));
    }

    /// A worker polling one of this server's queues for ever (its lanes in turn on a server with
    /// lanes), as the dev server runs it.
    fn run_worker(
        &self,
        sqs: aws_sdk_sqs::Client,
        queue_url: String,
        worker: Worker,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        match self.queues.bell(&queue_url) {
            Some(bell) => Box::pin(crate::workers::run_fair_worker(sqs, queue_url, worker, bell)),
            None => Box::pin(crate::workers::run_worker(sqs, queue_url, worker)),
        }
    }

    /// The webhook path as the dev server runs it: the outbox handed on as it is written and the
    /// sender polling this server's deliveries queue, delivering to `http://127.0.0.1` receivers
    /// (the local switch) with this retry schedule.
    pub fn start_webhooks(&self, schedule: Schedule) {
        let sender = self.webhook_sender(Policy::LOCAL, schedule);
        self.hand_on_in_background();
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let worker = Worker::WebhookSender(Box::new(sender));
        tokio::spawn(self.run_worker(sqs, self.webhook_queue_url.clone(), worker));
    }

    /// A sender of this server's deliveries.
    pub fn webhook_sender(&self, policy: Policy, schedule: Schedule) -> Sender {
        Sender {
            store: self.store.clone(),
            queues: self.queues.clone(),
            vault: self.vault.clone(),
            client: billing_api::webhooks::client::Client::new(policy).expect("the delivery client"),
            schedule,
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

/// Runs one of the third-party checks in `tests/validators` (node scripts over npm packages,
/// installed by `infra/test`) on `input` (its stdin, JSON); returns what it prints (JSON).
pub fn independent_check(script: &str, input: &serde_json::Value) -> serde_json::Value {
    use std::io::Write as _;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/validators");
    assert!(
        dir.join("node_modules").is_dir(),
        "the validators are not installed: run infra/test (npm ci in {})",
        dir.display()
    );
    let mut child = std::process::Command::new("node")
        .arg(dir.join(script))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    child.stdin.take().expect("stdin").write_all(input.to_string().as_bytes()).expect("write the input");
    let output = child.wait_with_output().expect("the check ends");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{script} prints JSON: {e}"))
}

/// The `dev-server` binary in a child process, as `infra/run` starts it, once it printed its
/// banner (killed when dropped).
pub struct DevServerProcess {
    pub child: tokio::process::Child,
    /// `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    pub token: String,
    pub account: i64,
}

impl DevServerProcess {
    /// Starts `binary` (the test's `CARGO_BIN_EXE_dev-server`) on a free port with these variables,
    /// keeping its demo account in `demo_file`, and reads its banner.
    pub async fn start(binary: &std::path::Path, demo_file: &std::path::Path, env: &[(&str, &str)]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(binary)
            .args(["--port", "0", "--pix-port", "0"])
            .env("DEMO_FILE", demo_file)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start dev-server");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let (mut base_url, mut token, mut account) = (None, None, None);
        let banner = async {
            while let Some(line) = lines.next_line().await.expect("the banner") {
                let value = line.split_once(':').map(|(_, v)| v.trim().to_owned());
                if line.contains("Base URL:") {
                    base_url = value;
                } else if line.contains("Demo token:") {
                    token = value;
                } else if line.contains("Demo account:") {
                    account = value.and_then(|v| v.parse().ok());
                } else if line.contains("Ctrl-C") {
                    break;
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(60), banner)
            .await
            .expect("the dev server printed its banner");
        DevServerProcess {
            child,
            base_url: base_url.expect("base URL printed"),
            token: token.expect("token printed"),
            account: account.expect("account printed"),
        }
    }
}

/// `count` active customers of `account` holding `tag` (each with a CPF and an address, so that the
/// bank registers their billets), written straight to the table in batches: the records and the
/// tag's links, which is what a bulk expansion reads, and the tag's reach counter, which its 202
/// reads (not their postings: lists do not show them).
/// Their ids, ascending.
pub async fn tagged_customers(
    store: &Store,
    account: AccountId,
    tag: billing_api::values::TagId,
    count: usize,
) -> Vec<billing_api::values::ContactId> {
    customers(store, account, tag, count, false).await
}

/// [`tagged_customers`] with their postings and counts too, so that contact lists and searches
/// find them.
pub async fn listed_customers(
    store: &Store,
    account: AccountId,
    tag: billing_api::values::TagId,
    count: usize,
) -> Vec<billing_api::values::ContactId> {
    customers(store, account, tag, count, true).await
}

async fn customers(
    store: &Store,
    account: AccountId,
    tag: billing_api::values::TagId,
    count: usize,
    listed: bool,
) -> Vec<billing_api::values::ContactId> {
    use billing_api::contacts::Contact;
    use billing_api::store::{item, keys, records, KeyItem};
    use billing_api::values::{ContactId, Cpf};
    let first = store.reserve_ids(keys::account(account), keys::sequence("CONTACT"), count as i64).await.expect("ids");
    let mut items = Vec::new();
    let mut ids = Vec::new();
    let mut counts: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
    for n in 0..count as i64 {
        let id = ContactId::new(first + n);
        let contact = Contact {
            full_name: Some(format!("Cliente Lote {n}")),
            cpf: Cpf::parse(&cpf(400_000_000 + (first + n) as u64 % 500_000_000)),
            address_postal_code: Some("01310-100".into()),
            address_street: Some("Avenida Paulista".into()),
            address_number: Some("1000".into()),
            address_district: Some("Bela Vista".into()),
            address_city: Some("São Paulo".into()),
            address_state: Some("SP".into()),
            tag_ids: vec![tag],
            version: 1,
            ..Contact::blank(id)
        };
        items.push(records::item_of(account, &contact).expect("a contact item"));
        if listed {
            let postings = billing_api::contacts::postings::of(account, &contact);
            items.extend(postings.iter().map(billing_api::store::postings::Posting::item));
            for (count, delta) in billing_api::store::counting::counts_of(&contact, 1) {
                *counts.entry(count).or_default() += delta;
            }
        }
        let link = KeyItem { pk: keys::contact::tag_links(account, tag), sk: keys::record("CONTACT", id) };
        items.push(item::to_item(&link).expect("a link item"));
        ids.push(id);
    }
    store.put_all(items).await.expect("write the contacts");
    // The tag's reach counter, which a bulk billing's 202 reads.
    let reach = billing_api::contacts::counts::reach_added(account, tag, ids[0], count as i64);
    store.write(vec![reach]).await.expect("count the tag's reach");
    if listed {
        let customers = billing_api::values::ContactType::Customer;
        let counter = keys::contact::contact_count_shards(account, customers);
        let counts: Vec<(String, i64)> = counts.into_iter().collect();
        let holders = billing_api::contacts::counts::holders_added(account, tag, customers, ids[0], count as i64);
        store
            .write(vec![billing_api::store::shards::add_each(counter, ids[0].get(), &counts), holders])
            .await
            .expect("count the contacts");
    }
    ids
}

/// A valid CPF from 9 base digits (the two check digits computed).
pub fn cpf(base: u64) -> String {
    let mut digits: Vec<u64> = format!("{base:09}").bytes().map(|b| u64::from(b - b'0')).collect();
    for len in [9, 10] {
        let sum: u64 = digits.iter().take(len).enumerate().map(|(i, d)| d * (len as u64 + 1 - i as u64)).sum();
        digits.push(match sum % 11 {
            0 | 1 => 0,
            r => 11 - r,
        });
    }
    digits.iter().map(u64::to_string).collect()
}

/// The e-mails moto's SES sent to exactly `to`, subject and body each, read from the local stack's
/// `/moto-api/data.json` (`AWS_ENDPOINT_URL`, through the fault proxy too).
pub async fn sent_emails(to: &str) -> Vec<(String, String)> {
    use serde_json::Value;
    let endpoint = std::env::var("AWS_ENDPOINT_URL").expect("the local stack (AWS_ENDPOINT_URL)");
    let data: Value = reqwest::get(format!("{endpoint}/moto-api/data.json")).await.unwrap().json().await.unwrap();
    let quoted = Value::String(to.to_owned()).to_string();
    let mut found = Vec::new();
    let mut stack = vec![data["ses"].clone(), data["sesv2"].clone()];
    while let Some(value) = stack.pop() {
        match value {
            // A sent message: to `to`, or another test's.
            Value::Object(map) if map.contains_key("destinations") && map.contains_key("body") => {
                let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
                let ours = map["destinations"].to_string().contains(&quoted);
                found.extend(ours.then(|| (text("subject"), text("body"))));
            }
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

/// A payer pays the billing of the billet page `token` on the server at `root` by card, as the
/// card page's script does: the page's day's intent, the gateway's confirmation through the local
/// Stripe.js stand-in (`LOCAL_STRIPE_JS_URL`, as `confirmCardPayment` does it) with the card
/// `number`, then the page's confirmation. The page's last answer (`{"stage", "message"}`), or
/// `None` when a step got no answer (a server killed) or the page made no intent.
pub async fn pay_by_card(http: &reqwest::Client, root: &str, token: &str, number: &str) -> Option<serde_json::Value> {
    use serde_json::{json, Value};
    let page = format!("{root}/pay/{token}/cartao");
    let attempt = async {
        let opened: Value = http.post(&page).send().await.ok()?.json().await.ok()?;
        let intent = opened["intent"].as_str()?;
        let js = std::env::var("LOCAL_STRIPE_JS_URL").ok()?;
        let confirm = format!("{}/v1/payment_intents/{intent}/confirm", js.trim_end_matches("/v3/"));
        let card = json!({"number": number, "exp_month": "12", "exp_year": "2030", "cvc": "123"});
        let sent = json!({"key": opened["publishable_key"], "client_secret": opened["client_secret"], "card": card});
        http.post(&confirm).json(&sent).send().await.ok()?;
        http.post(format!("{page}/{intent}")).send().await.ok()?.json::<Value>().await.ok()
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), attempt).await.ok().flatten()
}
