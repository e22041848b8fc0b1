//! Where a run of the ops CLI works: the table, API (for the authorizer cache's flush), webhook key
//! and bucket of bank files, read from the stack's outputs with `--stack`, else from the
//! environment's variables.

use billing_api::files::Files;

use crate::cache_flush::CacheFlusher;
use crate::target::StackOutputs;

/// The table, API and webhook names of this run: the stack's outputs with `--stack`, else the
/// environment's variables.
pub struct Names {
    pub table: String,
    pub flusher: CacheFlusher,
    pub webhook_key_secret: Option<String>,
    /// The bucket of bank files (`FILES_BUCKET`, or the stack's `FilesBucket`).
    pub files_bucket: String,
    /// Where the run works, for the confirmation question.
    pub place: String,
}

impl Names {
    pub async fn resolve(config: &aws_config::SdkConfig, stack: Option<&str>) -> anyhow::Result<Self> {
        let Some(stack) = stack else {
            // The payer links of what it shows and records: PAYER_BASE_URL, else the local API's.
            if let Ok(local) = std::env::var("LOCAL_API_URL") {
                billing_api::billets::link::set_base(&local);
            }
            let table = billing_api::config::table_name();
            return Ok(Names {
                place: format!("table {table}"),
                table,
                flusher: CacheFlusher::from_env(config),
                webhook_key_secret: None,
                files_bucket: billing_api::files::bucket_name(),
            });
        };
        let outputs = StackOutputs::describe(config, stack).await?;
        if let Some(base) = &outputs.payer_base_url {
            billing_api::billets::link::set_base(base);
        }
        let flusher = CacheFlusher::ApiGateway {
            client: aws_sdk_apigateway::Client::new(config),
            rest_api_id: outputs.rest_api_id,
            stage: outputs.stage_name,
        };
        Ok(Names {
            place: format!("stack {stack}, table {}", outputs.table_name),
            table: outputs.table_name,
            flusher,
            webhook_key_secret: outputs.webhook_key_secret_arn,
            files_bucket: outputs.files_bucket.unwrap_or_else(billing_api::files::bucket_name),
        })
    }

    /// The bucket of bank files of this run.
    pub fn files(&self, config: &aws_config::SdkConfig) -> Files {
        Files::from_config(config).with_bucket(self.files_bucket.clone())
    }
}
