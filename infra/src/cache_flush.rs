//! Invalidating the authorizer cache after a revocation or an account change, so the change takes
//! effect at once (§5 item 4): `FlushStageAuthorizersCache` on AWS, the dev server's flush route
//! locally.
//!
//! A flush alone races with an authorizer invocation in flight: one that read the token (or the
//! account) before the change and returns after the flush leaves its stale "valid" answer in API
//! Gateway's cache for its 15 minutes. [`CacheFlusher::flush_settled`] closes that on AWS: it
//! flushes, waits out the longest an invocation can last (the authorizer function's timeout,
//! [`authorizer_timeout`], plus [`SETTLE_MARGIN`]), and flushes again; whatever an invocation that
//! began before the change cached is gone by the second flush, and every later invocation reads
//! the change. The dev server needs one flush: it keeps a lookup only if no flush happened while it
//! ran (`billing_api::auth::cache`).

use std::future::Future;
use std::time::Duration;

use anyhow::Context as _;
use aws_config::SdkConfig;
use serde::Serialize;
use serde_json::Value;

/// Route of the dev server that empties its authorizer cache.
pub const LOCAL_FLUSH_PATH: &str = "/_local/authorizer-cache";

/// Route of the dev server that sweeps its outbox at once ([`CacheFlusher::nudge_outbox`]).
pub const LOCAL_OUTBOX_PATH: &str = "/_local/outbox";

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
    /// Flushed, waited out the authorizer's timeout, flushed again ([`CacheFlusher::flush_settled`]).
    FlushedTwice,
    /// The dev server is not running, so nothing is cached.
    DevServerNotRunning,
    /// No API is configured: set REST_API_ID and API_STAGE (AWS) or LOCAL_API_URL (local).
    NotConfigured,
}

/// The authorizer function's timeout unless `AUTHORIZER_TIMEOUT_SECONDS` says otherwise: the
/// template's `Globals.Function.Timeout`.
pub const DEFAULT_AUTHORIZER_TIMEOUT: Duration = Duration::from_secs(10);

/// Added to the authorizer's timeout between the two flushes: API Gateway stores an answer a moment
/// after the function returns it.
pub const SETTLE_MARGIN: Duration = Duration::from_secs(1);

/// The longest an authorizer invocation can last: `AUTHORIZER_TIMEOUT_SECONDS` (whole seconds), else
/// [`DEFAULT_AUTHORIZER_TIMEOUT`].
pub fn authorizer_timeout() -> Duration {
    authorizer_timeout_from(std::env::var("AUTHORIZER_TIMEOUT_SECONDS").ok().as_deref())
}

fn authorizer_timeout_from(value: Option<&str>) -> Duration {
    value.and_then(|v| v.trim().parse::<u64>().ok()).map(Duration::from_secs).unwrap_or(DEFAULT_AUTHORIZER_TIMEOUT)
}

/// What [`CacheFlusher::flush_settled`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettledFlush {
    pub outcome: FlushOutcome,
    /// The wait between the two flushes, when there were two.
    pub waited: Option<Duration>,
}

impl SettledFlush {
    /// Adds `authorizer_cache` (the outcome) and, after two flushes,
    /// `authorizer_cache_waited_seconds` to an operation's JSON.
    pub fn add_to(&self, output: &mut Value) {
        output["authorizer_cache"] = serde_json::to_value(&self.outcome).expect("an outcome is JSON");
        if let Some(waited) = self.waited {
            output["authorizer_cache_waited_seconds"] = Value::from(waited.as_secs_f64());
        }
    }
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

    /// Tells the dev server that this process wrote to the table, so that it hands on the events
    /// and tasks written at once (its sweep runs every minute unasked, as on AWS, where the table's
    /// stream sees every writer). Nothing elsewhere; a dev server that is not running misses
    /// nothing: it sweeps at its start.
    pub async fn nudge_outbox(&self) {
        if let CacheFlusher::DevServer { base_url } = self {
            let url = format!("{}{LOCAL_OUTBOX_PATH}", base_url.trim_end_matches('/'));
            if let Err(error) = billing_api::config::http_client().post(&url).send().await {
                tracing::debug!(error = %error, "the dev server was not told to sweep its outbox");
            }
        }
    }

    /// A flush that no authorizer invocation in flight can undo ([the module's rule](self)): on
    /// AWS, flush, wait out [`authorizer_timeout`] plus [`SETTLE_MARGIN`], flush again; elsewhere
    /// one flush. Revocations and account changes use it.
    pub async fn flush_settled(&self) -> anyhow::Result<SettledFlush> {
        let wait = authorizer_timeout() + SETTLE_MARGIN;
        self.flush_settled_with(wait, |wait| async move {
            use std::io::IsTerminal as _;
            if std::io::stderr().is_terminal() {
                use std::io::Write as _;
                let seconds = wait.as_secs_f64();
                let note =
                    format!("flushed the authorizer cache; flushing again in {seconds} s (authorizer calls in flight)");
                let _ = writeln!(std::io::stderr(), "{note}");
            }
            tokio::time::sleep(wait).await
        })
        .await
    }

    /// [`CacheFlusher::flush_settled`] with the wait and the way to wait given (tests pass a sleep
    /// that returns at once).
    pub async fn flush_settled_with<S, F>(&self, wait: Duration, sleep: S) -> anyhow::Result<SettledFlush>
    where
        S: FnOnce(Duration) -> F,
        F: Future<Output = ()>,
    {
        match self {
            CacheFlusher::ApiGateway { .. } => {
                self.flush().await?;
                sleep(wait).await;
                self.flush().await.context("the second flush, after waiting out the authorizer")?;
                Ok(SettledFlush { outcome: FlushOutcome::FlushedTwice, waited: Some(wait) })
            }
            CacheFlusher::DevServer { .. } | CacheFlusher::None => {
                Ok(SettledFlush { outcome: self.flush().await?, waited: None })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What the fake API Gateway and the injected sleep saw, in order.
    type Log = Arc<Mutex<Vec<String>>>;

    /// An API Gateway endpoint on 127.0.0.1 that answers every flush `202` and logs its path.
    async fn fake_api_gateway(log: Log) -> String {
        use axum::routing::delete;
        let route = "/restapis/{api}/stages/{stage}/cache/authorizers";
        let app = axum::Router::new().route(
            route,
            delete(move |axum::extract::Path((api, stage)): axum::extract::Path<(String, String)>| {
                let log = log.clone();
                async move {
                    log.lock().unwrap().push(format!("flush {api}/{stage}"));
                    axum::http::StatusCode::ACCEPTED
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{address}")
    }

    fn api_gateway(endpoint: &str) -> CacheFlusher {
        let config = aws_sdk_apigateway::Config::builder()
            .behavior_version(aws_sdk_apigateway::config::BehaviorVersion::latest())
            .region(aws_sdk_apigateway::config::Region::new("us-east-1"))
            .credentials_provider(aws_sdk_apigateway::config::Credentials::new("test", "test", None, None, "test"))
            .endpoint_url(endpoint)
            .build();
        CacheFlusher::ApiGateway {
            client: aws_sdk_apigateway::Client::from_conf(config),
            rest_api_id: "abc123".into(),
            stage: "live".into(),
        }
    }

    #[tokio::test]
    async fn on_api_gateway_a_settled_flush_flushes_waits_out_the_authorizer_and_flushes_again() {
        let log = Log::default();
        let flusher = api_gateway(&fake_api_gateway(log.clone()).await);
        let sleep_log = log.clone();
        let settled = flusher
            .flush_settled_with(Duration::from_secs(11), |wait| async move {
                sleep_log.lock().unwrap().push(format!("wait {}s", wait.as_secs()));
            })
            .await
            .unwrap();
        assert_eq!(*log.lock().unwrap(), ["flush abc123/live", "wait 11s", "flush abc123/live"]);
        assert_eq!(
            settled,
            SettledFlush { outcome: FlushOutcome::FlushedTwice, waited: Some(Duration::from_secs(11)) }
        );
        let mut output = serde_json::json!({ "token": 1 });
        settled.add_to(&mut output);
        assert_eq!(output["authorizer_cache"], "flushed_twice");
        assert_eq!(output["authorizer_cache_waited_seconds"], 11.0);
    }

    #[tokio::test]
    async fn the_dev_server_and_no_api_get_one_flush_and_no_wait() {
        let waited = Arc::new(Mutex::new(false));
        let sleep = |waited: Arc<Mutex<bool>>| move |_| async move { *waited.lock().unwrap() = true };
        // Nothing listens on the port: the dev server is not running, so nothing is cached.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dev = CacheFlusher::DevServer { base_url: format!("http://127.0.0.1:{port}") };
        let settled = dev.flush_settled_with(Duration::from_secs(11), sleep(waited.clone())).await.unwrap();
        assert_eq!(settled, SettledFlush { outcome: FlushOutcome::DevServerNotRunning, waited: None });
        let settled =
            CacheFlusher::None.flush_settled_with(Duration::from_secs(11), sleep(waited.clone())).await.unwrap();
        let mut output = serde_json::json!({});
        settled.add_to(&mut output);
        assert_eq!(output, serde_json::json!({ "authorizer_cache": "not_configured" }));
        assert!(!*waited.lock().unwrap());
    }

    #[test]
    fn the_authorizer_timeout_defaults_to_the_templates() {
        assert_eq!(authorizer_timeout_from(None), Duration::from_secs(10));
        assert_eq!(authorizer_timeout_from(Some("29")), Duration::from_secs(29));
        assert_eq!(authorizer_timeout_from(Some("ten")), DEFAULT_AUTHORIZER_TIMEOUT);
    }
}
