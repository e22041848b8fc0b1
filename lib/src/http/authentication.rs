//! How the account context reaches a route: locally, by running the authorizer as middleware;
//! on Lambda, by reading what the API Gateway authorizer put in the request context.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header::AUTHORIZATION;
use lambda_http::request::RequestContext;

use crate::auth::{authenticate, ApiToken, AuthCache};
use crate::http::rate_limit::RateLimiter;
use crate::http::ApiError;
use crate::refusal::Refusal;
use crate::store::Store;

/// State of the local authorizer middleware.
#[derive(Clone, Debug)]
pub struct LocalAuthorizer {
    pub store: Store,
    pub cache: AuthCache,
    /// Counts the requests it refuses on their IP's window, as the Lambda authorizer does.
    pub limiter: RateLimiter,
}

/// Dev-server middleware: the same lookup as the Lambda authorizer, cached for 15 minutes, and the
/// same count of what it refuses (a 429 once the IP is over its limit, else 401).
pub async fn local_authorizer(State(auth): State<LocalAuthorizer>, mut request: Request, next: Next) -> Response {
    let header = request.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let digest = header.as_deref().and_then(ApiToken::from_authorization_header).map(|t| t.digest());
    let generation = auth.cache.generation();
    let cached = digest.as_deref().and_then(|d| auth.cache.get(d));
    let context = match cached {
        Some(context) => context,
        None => match authenticate(&auth.store, header.as_deref()).await {
            Ok(context) => {
                // Noted before the lookup's read: a flush during the read drops its answer.
                if let Some(digest) = digest {
                    auth.cache.put(digest, context.clone(), generation);
                }
                context
            }
            Err(Refusal::Unauthenticated) => {
                let ip = crate::http::rate_limit::client_ip(&request);
                return match auth
                    .limiter
                    .refuse_unauthenticated(ip.as_deref(), crate::http::rate_limit::unix_now())
                    .await
                {
                    Some(refusal) => refusal.into_response(),
                    None => ApiError::Unauthorized.into_response(),
                };
            }
            Err(error) => return ApiError::from(error).into_response(),
        },
    };
    tracing::Span::current().record("account_id", context.account_id.get());
    request.extensions_mut().insert(context);
    next.run(request).await
}

/// Lambda middleware: the API Gateway authorizer already validated the token; its context is in
/// `requestContext.authorizer`. A request without it never passed the authorizer: 401.
pub async fn api_gateway_context(mut request: Request, next: Next) -> Response {
    let context = match request.extensions().get::<RequestContext>() {
        Some(RequestContext::ApiGatewayV1(gateway)) => {
            let fields = &gateway.authorizer.fields;
            super::gateway_context::read(|key| fields.get(key))
        }
        _ => None,
    };
    let Some(context) = context else {
        return ApiError::Unauthorized.into_response();
    };
    tracing::Span::current().record("account_id", context.account_id.get());
    request.extensions_mut().insert(context);
    next.run(request).await
}
