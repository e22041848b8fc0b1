//! The dev server: every router of the API on one address, with the authorizer as middleware (a
//! 15-minute cache, flushed by `DELETE /_local/authorizer-cache`), exactly the code the Lambdas run.

use axum::extract::State;
use axum::response::Response;
use axum::routing::delete;
use axum::Router;
use billing_api::app::{all_routes, AppState};
use billing_api::auth::middleware::{local_authorizer, LocalAuthorizer};
use billing_api::auth::AuthCache;
use billing_api::http::{response, routing::finish};

use crate::cache_flush::LOCAL_FLUSH_PATH;

pub fn router(state: AppState, cache: AuthCache) -> Router {
    let authorizer = LocalAuthorizer { store: state.store.clone(), cache: cache.clone() };
    let api =
        all_routes().route_layer(axum::middleware::from_fn_with_state(authorizer, local_authorizer)).with_state(state);
    let local = Router::new().route(LOCAL_FLUSH_PATH, delete(flush_cache)).with_state(cache);
    finish(api.merge(local))
}

async fn flush_cache(State(cache): State<AuthCache>) -> Response {
    cache.flush();
    tracing::info!("authorizer cache flushed");
    response::no_content()
}

/// Serves until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}
