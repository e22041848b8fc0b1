//! The state every route shares: built once per process (per Lambda container) and cloned into
//! each request. Routes send nothing to a queue: what a change implies in the background is a
//! task written with it (`jobs::tasks`), which the outbox hands on (`crate::outbox`).

use crate::http::rate_limit::{RateLimiter, RateLimits};
use crate::store::Store;

#[derive(Clone, Debug)]
pub struct AppState {
    pub store: Store,
    /// §8 request-rate limits applied to every route (the spec's by default).
    pub rate_limits: RateLimits,
}

impl AppState {
    pub fn new(store: Store) -> Self {
        AppState { store, rate_limits: RateLimits::SPEC }
    }

    pub fn with_rate_limits(self, rate_limits: RateLimits) -> Self {
        AppState { rate_limits, ..self }
    }

    /// The counters of the rate limits, on this state's table.
    pub fn rate_limiter(&self) -> RateLimiter {
        RateLimiter::new(self.store.clone(), self.rate_limits)
    }
}
