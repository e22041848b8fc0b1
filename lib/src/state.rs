//! The state every route shares: built once per process (per Lambda container) and cloned into
//! each request. Routes send nothing to a queue: what a change implies in the background is a
//! task written with it (`jobs::tasks`), which the outbox hands on (`crate::outbox`).

use crate::http::rate_limit::{RateLimiter, RateLimits};
use crate::store::Store;
use crate::webhooks::secrets::MasterKey;
use crate::webhooks::Policy;

#[derive(Clone, Debug)]
pub struct AppState {
    pub store: Store,
    /// §8 request-rate limits applied to every route (the spec's by default).
    pub rate_limits: RateLimits,
    /// What the webhooks routes need besides the table.
    pub webhooks: Webhooks,
    /// Payer pages a minute per origin IP (`payer_page`); `None` counts nothing.
    pub payer_pages_per_ip: Option<u32>,
}

/// What the webhooks routes need besides the table (`webhooks::routes::Settings`).
pub use crate::webhooks::routes::Settings as Webhooks;

impl axum::extract::FromRef<AppState> for crate::webhooks::routes::Shared {
    fn from_ref(state: &AppState) -> Self {
        crate::webhooks::routes::Shared { store: state.store.clone(), webhooks: state.webhooks.clone() }
    }
}

impl AppState {
    /// A state without a webhook master key: the webhooks routes answer 500 until one is given
    /// ([`AppState::with_webhooks`]).
    pub fn new(store: Store) -> Self {
        let webhooks = Webhooks { key: MasterKey::missing(), policy: Policy::STRICT };
        AppState {
            store,
            rate_limits: RateLimits::SPEC,
            webhooks,
            payer_pages_per_ip: RateLimits::payer_pages_from_env(),
        }
    }

    /// The payer pages' own per-IP limit (`None`: off), whatever the API's limits are.
    pub fn with_payer_page_limit(self, payer_pages_per_ip: Option<u32>) -> Self {
        AppState { payer_pages_per_ip, ..self }
    }

    pub fn with_webhooks(self, webhooks: Webhooks) -> Self {
        AppState { webhooks, ..self }
    }

    pub fn with_rate_limits(self, rate_limits: RateLimits) -> Self {
        AppState { rate_limits, ..self }
    }

    /// The counters of the rate limits, on this state's table.
    pub fn rate_limiter(&self) -> RateLimiter {
        RateLimiter::new(self.store.clone(), self.rate_limits)
    }
}
