//! Invalidating the authorizer cache after a revocation or an account change, so the change takes
//! effect at once (§5 item 4): `FlushStageAuthorizersCache` on AWS, the dev server's flush route
//! locally.

use anyhow::Context as _;
use aws_config::SdkConfig;
use serde::Serialize;

/// Route of the dev server that empties its authorizer cache.
pub const LOCAL_FLUSH_PATH: &str = "/_local/authorizer-cache";

#[derive(Clone, Debug)]
pub enum CacheFlusher {
    /// `REST_API_ID` and `API_STAGE` (outputs of the stack).
    ApiGateway {
        client: aws_sdk_apigateway::Client,
        rest_api_id: String,
        stage: String,
    },
    /// `LOCAL_API_URL`, e.g. `http://127.0.0.1:3000`.
    DevServer {
        base_url: String,
    },
    None,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FlushOutcome {
    Flushed,
    /// The dev server is not running, so nothing is cached.
    DevServerNotRunning,
    /// No API is configured: set REST_API_ID and API_STAGE (AWS) or LOCAL_API_URL (local).
    NotConfigured,
}

impl CacheFlusher {
    pub fn from_env(config: &SdkConfig) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        if let Some(base_url) = var("LOCAL_API_URL") {
            return CacheFlusher::DevServer { base_url };
        }
        match (var("REST_API_ID"), var("API_STAGE")) {
            (Some(rest_api_id), Some(stage)) => {
                CacheFlusher::ApiGateway { client: aws_sdk_apigateway::Client::new(config), rest_api_id, stage }
            }
            _ => CacheFlusher::None,
        }
    }

    pub async fn flush(&self) -> anyhow::Result<FlushOutcome> {
        match self {
            CacheFlusher::ApiGateway { client, rest_api_id, stage } => {
                client
                    .flush_stage_authorizers_cache()
                    .rest_api_id(rest_api_id)
                    .stage_name(stage)
                    .send()
                    .await
                    .context("FlushStageAuthorizersCache")?;
                Ok(FlushOutcome::Flushed)
            }
            CacheFlusher::DevServer { base_url } => {
                let url = format!("{}{LOCAL_FLUSH_PATH}", base_url.trim_end_matches('/'));
                match billing_api::config::http_client().delete(&url).send().await {
                    Ok(response) if response.status().is_success() => Ok(FlushOutcome::Flushed),
                    Ok(response) => anyhow::bail!("dev server answered {} to the cache flush", response.status()),
                    Err(e) if e.is_connect() => Ok(FlushOutcome::DevServerNotRunning),
                    Err(e) => Err(anyhow::Error::new(e).context("flush the dev server's authorizer cache")),
                }
            }
            CacheFlusher::None => Ok(FlushOutcome::NotConfigured),
        }
    }
}
