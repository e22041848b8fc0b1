//! The API Gateway REQUEST authorizer. A valid token gets an Allow policy for the whole stage
//! (the result is cached 15 minutes per token and must fit every route) with the account context;
//! anything else is counted on its IP's rate window (§8: every `/v1` request counts) and gets
//! "Unauthorized", which API Gateway answers with 401 — or, once the IP is over its limit, a Deny
//! policy, which the stage's `ACCESS_DENIED` gateway response answers with the spec's 429. (A Deny
//! is cached for that token like any result; the token is not valid anyway, so it only keeps
//! getting 429 instead of 401 for the cache's 15 minutes, and costs nothing more.)

use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use http::header::AUTHORIZATION;
use serde_json::{json, Value};

use crate::auth::authenticate;
use crate::http::rate_limit::RateLimiter;
use crate::refusal::Refusal;
use crate::store::Store;

#[derive(Debug, thiserror::Error)]
pub enum AuthorizerError {
    /// The exact message API Gateway turns into a 401.
    #[error("Unauthorized")]
    Unauthorized,
    #[error("authorizer failure: {0}")]
    Failure(String),
}

pub async fn authorize(
    store: &Store,
    limiter: &RateLimiter,
    event: ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> Result<Value, AuthorizerError> {
    let header = event.headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
    let resource = stage_wildcard(event.method_arn.as_deref().unwrap_or_default());
    let context = match authenticate(store, header).await {
        Ok(context) => context,
        Err(Refusal::Unauthenticated) => {
            let ip = event.request_context.identity.as_ref().and_then(|i| i.source_ip.as_deref());
            return match limiter.refuse_unauthenticated(ip, crate::http::rate_limit::unix_now()).await {
                Some(refusal) => Ok(over_the_limit(&resource, refusal.retry_after)),
                None => Err(AuthorizerError::Unauthorized),
            };
        }
        Err(other) => {
            tracing::error!(error = ?other, "authorizer lookup failed");
            return Err(AuthorizerError::Failure("lookup failed".into()));
        }
    };
    Ok(json!({
        "principalId": format!("account:{}", context.account_id),
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": resource}]
        },
        "context": super::gateway_context::of(&context),
    }))
}

/// The Deny of a refused request from an IP over its limit (the stage answers it with 429).
fn over_the_limit(resource: &str, retry_after: u64) -> Value {
    json!({
        "principalId": "rate-limited",
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": "Deny", "Resource": resource}]
        },
        "context": {"rate_limited": "ip", "retry_after": retry_after},
    })
}

/// `arn:aws:execute-api:region:acct:api/stage/GET/v1/tags` → `arn:aws:execute-api:region:acct:api/stage/*`,
/// so the cached policy also allows the token's other routes.
fn stage_wildcard(method_arn: &str) -> String {
    let mut parts = method_arn.splitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some(api), Some(stage)) => format!("{api}/{stage}/*"),
        _ => method_arn.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_covers_the_whole_stage() {
        assert_eq!(
            stage_wildcard("arn:aws:execute-api:us-east-1:123456789012:abcdef1234/live/GET/v1/tags"),
            "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/live/*"
        );
    }
}
