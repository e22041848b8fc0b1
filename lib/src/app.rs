//! The state every route shares, and the composition of endpoint groups.

use axum::Router;

use crate::jobs::Queues;
use crate::store::Store;

/// Built once per process (per Lambda container) and cloned into each request.
#[derive(Clone, Debug)]
pub struct AppState {
    pub store: Store,
    /// Queues for background work; routes that enqueue refuse to run without them.
    pub queues: Option<Queues>,
}

impl AppState {
    pub fn new(store: Store) -> Self {
        AppState { store, queues: None }
    }

    pub fn with_queues(self, queues: Option<Queues>) -> Self {
        AppState { queues, ..self }
    }
}

/// Every endpoint group of the API, as the dev server serves them (each Lambda serves one).
pub fn all_routes() -> Router<AppState> {
    Router::new()
        .merge(crate::tags::router())
        .merge(crate::groups::router())
        .merge(crate::contacts::router())
        .merge(crate::bill_categories::router())
        .merge(crate::billings::router())
        .merge(crate::billets::router())
}
