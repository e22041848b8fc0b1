//! Creates what `template.yaml` declares, when missing: the table (with `gsi1` and TTL), the
//! queues with their dead-letter queues, and the webhook master-key secret. Safe to run again.

use std::collections::BTreeMap;

use anyhow::Context as _;
use aws_config::SdkConfig;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection, ProjectionType,
    ScalarAttributeType, TimeToLiveSpecification,
};
use aws_sdk_sqs::types::QueueAttributeName;
use base64::Engine as _;
use serde::Serialize;

pub const BILLET_REGISTRATION_QUEUE: &str = "billing-billet-registration";
pub const BULK_EXPANSION_QUEUE: &str = "billing-bulk-expansion";
pub const WEBHOOK_DELIVERIES_QUEUE: &str = "billing-webhook-deliveries";
pub const SETTLEMENTS_QUEUE: &str = "billing-settlements";
pub const CASCADES_QUEUE: &str = "billing-cascades";
pub const PIX_CHARGES_QUEUE: &str = "billing-pix-charges";
pub const CARD_RELEASES_QUEUE: &str = "billing-card-releases";
pub const REMINDERS_QUEUE: &str = "billing-reminders";
pub const REMINDER_SCANS_QUEUE: &str = "billing-reminder-scans";
pub const SCHEDULE_CYCLES_QUEUE: &str = "billing-schedule-cycles";
pub const EXPORTS_QUEUE: &str = "billing-exports";

/// Work queues; each gets a `-dlq` after five failed receives (the webhook deliveries' after
/// thirty, see [`queue_settings`]).
pub const QUEUES: [&str; 11] = [
    BILLET_REGISTRATION_QUEUE,
    BULK_EXPANSION_QUEUE,
    SETTLEMENTS_QUEUE,
    WEBHOOK_DELIVERIES_QUEUE,
    CASCADES_QUEUE,
    PIX_CHARGES_QUEUE,
    CARD_RELEASES_QUEUE,
    REMINDERS_QUEUE,
    REMINDER_SCANS_QUEUE,
    SCHEDULE_CYCLES_QUEUE,
    EXPORTS_QUEUE,
];
pub const WEBHOOK_KEY_SECRET: &str = billing_api::config::DEFAULT_WEBHOOK_KEY_SECRET;

/// Receives before the DLQ, visibility timeout (seconds) and retention (seconds) of a queue, as
/// `template.yaml` sets them. A webhook delivery's message is received once per attempt and once
/// per 12 hours of a longer wait (13 receives for the whole schedule), and lives through the
/// three days of retries.
pub fn queue_settings(name: &str) -> (&'static str, &'static str, &'static str) {
    match name {
        WEBHOOK_DELIVERIES_QUEUE => ("30", "180", "1209600"),
        SETTLEMENTS_QUEUE => ("5", "360", "345600"),
        CASCADES_QUEUE | PIX_CHARGES_QUEUE | CARD_RELEASES_QUEUE | SCHEDULE_CYCLES_QUEUE => ("5", "180", "345600"),
        REMINDERS_QUEUE | REMINDER_SCANS_QUEUE => ("5", "360", "345600"),
        EXPORTS_QUEUE => ("5", "720", "345600"),
        _ => ("5", "60", "345600"),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct LocalResources {
    pub table: String,
    pub queues: BTreeMap<String, String>,
    pub webhook_key_secret: String,
    pub files_bucket: String,
}

pub async fn ensure(config: &SdkConfig, table: &str) -> anyhow::Result<LocalResources> {
    ensure_table(&aws_sdk_dynamodb::Client::new(config), table).await?;
    let queues = ensure_queues(&aws_sdk_sqs::Client::new(config)).await?;
    let webhook_key_secret = ensure_secret(&aws_sdk_secretsmanager::Client::new(config)).await?;
    let files_bucket = ensure_bucket(&billing_api::files::Files::from_config(config)).await?;
    ensure_sender(config).await?;
    Ok(LocalResources { table: table.to_owned(), queues, webhook_key_secret, files_bucket })
}

/// The service's reminder sender as an SES identity (moto's SES sends only from verified ones):
/// `REMINDER_EMAIL_SENDER`, else the local stack's.
pub async fn ensure_sender(config: &SdkConfig) -> anyhow::Result<()> {
    let ses = aws_sdk_sesv2::Client::new(config);
    let sender = billing_api::reminders::providers::default_sender();
    if ses.get_email_identity().email_identity(&sender).send().await.is_err() {
        let created = ses.create_email_identity().email_identity(&sender).send().await;
        if let Err(error) = created {
            if !error.as_service_error().is_some_and(|e| e.is_already_exists_exception()) {
                return Err(anyhow::Error::new(error).context("create the reminder sender's SES identity"));
            }
        }
    }
    Ok(())
}

/// The bucket of bank files (`FILES_BUCKET`, else `billing-files`).
pub async fn ensure_bucket(files: &billing_api::files::Files) -> anyhow::Result<String> {
    let client = files.client();
    if client.head_bucket().bucket(files.bucket()).send().await.is_err() {
        let created = client.create_bucket().bucket(files.bucket()).send().await;
        if let Err(error) = created {
            // Another process made it meanwhile.
            let service = error.as_service_error();
            if !service.is_some_and(|e| e.is_bucket_already_owned_by_you() || e.is_bucket_already_exists()) {
                return Err(anyhow::Error::new(error).context("create the files bucket"));
            }
        }
    }
    Ok(files.bucket().to_owned())
}

pub async fn ensure_table(db: &aws_sdk_dynamodb::Client, table: &str) -> anyhow::Result<()> {
    if db.describe_table().table_name(table).send().await.is_ok() {
        return Ok(());
    }
    let string =
        |name: &str| AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build();
    let key = |name: &str, kind: KeyType| KeySchemaElement::builder().attribute_name(name).key_type(kind).build();
    let created = db
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("pk")?)
        .attribute_definitions(string("sk")?)
        .attribute_definitions(string("gsi1pk")?)
        .attribute_definitions(string("gsi1sk")?)
        .key_schema(key("pk", KeyType::Hash)?)
        .key_schema(key("sk", KeyType::Range)?)
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("gsi1")
                .key_schema(key("gsi1pk", KeyType::Hash)?)
                .key_schema(key("gsi1sk", KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::Include)
                        .non_key_attributes("list_fields")
                        .build(),
                )
                .build()?,
        )
        .send()
        .await;
    match created {
        Ok(_) => {}
        // Another process created it at the same moment.
        Err(e) if e.as_service_error().is_some_and(|e| e.is_resource_in_use_exception()) => return Ok(()),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("create table {table}"))),
    }
    db.update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder().attribute_name("expires_at").enabled(true).build()?,
        )
        .send()
        .await
        .context("enable TTL")?;
    Ok(())
}

/// The queue's name on the local stack: `QUEUE_NAME_PREFIX` (empty by default; tests that run a
/// dev server of their own give it one) and the name.
pub fn queue_name(base: &str) -> String {
    format!("{}{base}", std::env::var("QUEUE_NAME_PREFIX").unwrap_or_default())
}

/// The queues and their DLQs, created when missing; URLs by base name (`QUEUES`, `<name>-dlq`).
pub async fn ensure_queues(sqs: &aws_sdk_sqs::Client) -> anyhow::Result<BTreeMap<String, String>> {
    let mut urls = BTreeMap::new();
    for base in QUEUES {
        let name = queue_name(base);
        let name = name.as_str();
        let dlq_name = format!("{name}-dlq");
        let dlq_url =
            sqs.create_queue().queue_name(&dlq_name).send().await.context("create DLQ")?.queue_url.unwrap_or_default();
        let dlq_arn = sqs
            .get_queue_attributes()
            .queue_url(&dlq_url)
            .attribute_names(QueueAttributeName::QueueArn)
            .send()
            .await
            .context("DLQ attributes")?
            .attributes
            .and_then(|a| a.get(&QueueAttributeName::QueueArn).cloned())
            .context("DLQ has no ARN")?;
        let (receives, visibility, retention) = queue_settings(base);
        // A local stack may shorten every queue's visibility timeout, so that a message whose
        // worker was killed comes back in seconds (the kill test).
        let visibility = std::env::var("LOCAL_QUEUE_VISIBILITY_SECONDS").unwrap_or_else(|_| visibility.to_owned());
        let redrive = serde_json::json!({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": receives}).to_string();
        let attributes = std::collections::HashMap::from([
            (QueueAttributeName::RedrivePolicy, redrive),
            (QueueAttributeName::VisibilityTimeout, visibility),
            (QueueAttributeName::MessageRetentionPeriod, retention.to_owned()),
        ]);
        let created = sqs.create_queue().queue_name(name).set_attributes(Some(attributes.clone())).send().await;
        let url = match created {
            Ok(out) => out.queue_url.unwrap_or_default(),
            // Made by an earlier version with other settings: bring them up to date.
            Err(e) if e.as_service_error().is_some_and(|e| e.is_queue_name_exists()) => {
                let url = sqs.get_queue_url().queue_name(name).send().await.context("queue URL")?.queue_url;
                let url = url.unwrap_or_default();
                sqs.set_queue_attributes()
                    .queue_url(&url)
                    .set_attributes(Some(attributes))
                    .send()
                    .await
                    .context("queue settings")?;
                url
            }
            Err(e) => return Err(anyhow::Error::new(e).context("create queue")),
        };
        urls.insert(format!("{base}-dlq"), dlq_url);
        urls.insert(base.to_owned(), url);
    }
    Ok(urls)
}

pub async fn ensure_secret(secrets: &aws_sdk_secretsmanager::Client) -> anyhow::Result<String> {
    if let Ok(found) = secrets.describe_secret().secret_id(WEBHOOK_KEY_SECRET).send().await {
        return Ok(found.arn.unwrap_or_else(|| WEBHOOK_KEY_SECRET.to_owned()));
    }
    let key: [u8; 32] = rand::random();
    let created = secrets
        .create_secret()
        .name(WEBHOOK_KEY_SECRET)
        .description("AES-256-GCM key that encrypts webhook signing secrets at rest")
        .secret_string(base64::engine::general_purpose::STANDARD.encode(key))
        .send()
        .await;
    match created {
        Ok(out) => Ok(out.arn.unwrap_or_else(|| WEBHOOK_KEY_SECRET.to_owned())),
        Err(e) if e.as_service_error().is_some_and(|e| e.is_resource_exists_exception()) => {
            Ok(WEBHOOK_KEY_SECRET.to_owned())
        }
        Err(e) => Err(anyhow::Error::new(e).context("create webhook key secret")),
    }
}
