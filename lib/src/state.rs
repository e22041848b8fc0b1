//! The state every route shares: built once per process (per Lambda container) and cloned into
//! each request.

use crate::http::ApiResult;
use crate::jobs::Queues;
use crate::rate_limit::{RateLimiter, RateLimits};
use crate::store::Store;

#[derive(Clone, Debug)]
pub struct AppState {
    pub store: Store,
    /// Queues for background work; routes that enqueue refuse to run without them.
    pub queues: Option<Queues>,
    /// §8 request-rate limits applied to every route (the spec's by default).
    pub rate_limits: RateLimits,
}

impl AppState {
    pub fn new(store: Store) -> Self {
        AppState { store, queues: None, rate_limits: RateLimits::SPEC }
    }

    pub fn with_queues(self, queues: Option<Queues>) -> Self {
        AppState { queues, ..self }
    }

    pub fn with_rate_limits(self, rate_limits: RateLimits) -> Self {
        AppState { rate_limits, ..self }
    }

    /// The queues, which routes that enqueue need (a deployment without them is misconfigured: 500).
    pub fn queues(&self) -> ApiResult<&Queues> {
        self.queues.as_ref().ok_or_else(|| anyhow::anyhow!("the billet registration queue is not configured").into())
    }

    /// The counters of the rate limits, on this state's table.
    pub fn rate_limiter(&self) -> RateLimiter {
        RateLimiter::new(self.store.clone(), self.rate_limits)
    }
}
