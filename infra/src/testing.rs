//! Support for the integration and black-box tests: the local stack (from the `AWS_ENDPOINT_URL`
//! that `infra/test` exports), a fresh account with a token per test so tests run in parallel,
//! and the dev server on a free port of 127.0.0.1.

use aws_config::SdkConfig;
use billing_api::accounts::{self, AccountChanges, AccountId, AccountStatus};
use billing_api::app::AppState;
use billing_api::auth::{tokens, AuthCache};
use billing_api::rate_limit::RateLimits;
use billing_api::store::Store;
use tokio::sync::OnceCell;

static TABLE_READY: OnceCell<()> = OnceCell::const_new();
static QUEUE_URL: OnceCell<String> = OnceCell::const_new();
/// The shared billet-registration queue of the local stack (created once per process); nothing
/// consumes it in tests (the Lambda event tests build their SQS events themselves).
pub async fn billet_queue(config: &SdkConfig) -> billing_api::jobs::Queues {
    let sqs = aws_sdk_sqs::Client::new(config);
    let url = QUEUE_URL
        .get_or_init(|| async {
            let urls = crate::local_stack::ensure_queues(&sqs).await.expect("create the queues");
            urls[crate::local_stack::BILLET_REGISTRATION_QUEUE].clone()
        })
        .await;
    billing_api::jobs::Queues::new(sqs, url.clone())
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
    };
    let account = accounts::create(store, "Conta de teste", changes).await.expect("create account");
    let (_, token) = tokens::create(store, account.id, "teste").await.expect("create token");
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
}

impl DevServer {
    /// A server without rate limits: tests run in parallel from one IP, and only the tests of the
    /// limits themselves ([`DevServer::start_limited`]) count requests.
    pub async fn start() -> Self {
        let (config, store) = local_stack().await;
        Self::serve(config, store, RateLimits::OFF).await
    }

    /// A server with these rate limits, on a table of its own, so that no other test's requests
    /// from 127.0.0.1 reach its counters.
    pub async fn start_limited(limits: RateLimits) -> Self {
        let (config, _) = local_stack().await;
        let db = aws_sdk_dynamodb::Client::new(&config);
        let table = format!("billing-limits-{:016x}", rand::random::<u64>());
        crate::local_stack::ensure_table(&db, &table).await.expect("create the test's table");
        Self::serve(config, Store::new(db, table), limits).await
    }

    async fn serve(config: SdkConfig, store: Store, limits: RateLimits) -> Self {
        let cache = AuthCache::default();
        let sqs = aws_sdk_sqs::Client::new(&config);
        let name = format!("test-billet-registration-{:016x}", rand::random::<u64>());
        let created = sqs.create_queue().queue_name(name).send().await.expect("create the test's queue");
        let billet_queue_url = created.queue_url.expect("queue URL");
        let queues = billing_api::jobs::Queues::new(sqs, billet_queue_url.clone());
        let state = AppState::new(store.clone()).with_queues(Some(queues)).with_rate_limits(limits);
        let router = crate::dev_server::router(state, cache.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a free port");
        let base_url = format!("http://{}", listener.local_addr().expect("local address"));
        tokio::spawn(crate::dev_server::serve(listener, router, std::future::pending()));
        DevServer { base_url, store, config, cache, billet_queue_url }
    }

    /// Runs the registration worker over this server's queue until it is empty; returns how many
    /// messages it handled.
    pub async fn register_billets(&self) -> usize {
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        let mut handled = 0;
        loop {
            let round = crate::dev_server::billet_registrar_round(&sqs, &self.billet_queue_url, &self.store, 0)
                .await
                .expect("a worker round");
            if round == 0 {
                return handled;
            }
            handled += round;
        }
    }

    /// The worker polling this server's queue in the background, as the dev server runs it.
    pub fn start_worker(&self) {
        let sqs = aws_sdk_sqs::Client::new(&self.config);
        tokio::spawn(crate::dev_server::run_billet_registrar(sqs, self.billet_queue_url.clone(), self.store.clone()));
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// The cache flusher the ops CLI would use against this server.
    pub fn flusher(&self) -> crate::cache_flush::CacheFlusher {
        crate::cache_flush::CacheFlusher::DevServer { base_url: self.base_url.clone() }
    }
}
