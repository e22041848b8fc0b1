//! The local stack as the tests share it (from the `AWS_ENDPOINT_URL` that `infra/test` exports):
//! its table, queues and bucket of bank files, each created once per process.

use aws_config::SdkConfig;
use billing_api::store::Store;
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
    billing_api::app::wire();
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
