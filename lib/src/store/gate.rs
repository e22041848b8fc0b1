//! The gate a request's writes wait at while its rate limit is counted beside it: the count and
//! the route start together (a request costs no round trip for its count), and every write the
//! route makes through the store ([`super::Store::write`], counters and sequences, batch writes)
//! waits until the count has admitted the request. A refused request has written nothing: its
//! writes stop at the gate and the route is dropped there (`http::rate_limit`).
//!
//! The gate is a task-local of the route's future: writes outside it (the rate-limit count
//! itself, the workers) pass freely.

use std::future::Future;

use tokio::sync::watch;

use super::{StoreError, StoreResult};

tokio::task_local! {
    static GATE: watch::Receiver<Option<bool>>;
}

/// Decides the gate of the writes run behind it ([`Keeper::behind`]).
#[derive(Debug)]
pub struct Keeper(watch::Sender<Option<bool>>);

impl Keeper {
    pub fn new() -> Self {
        Keeper(watch::channel(None).0)
    }

    /// Runs `route` with its writes waiting for this keeper's decision.
    pub async fn behind<F: Future>(&self, route: F) -> F::Output {
        GATE.scope(self.0.subscribe(), route).await
    }

    /// Lets the writes through (`true`) or refuses them.
    pub fn decide(&self, admitted: bool) {
        self.0.send_replace(Some(admitted));
    }
}

impl Default for Keeper {
    fn default() -> Self {
        Keeper::new()
    }
}

/// Waits for the gate of the current route, if it runs behind one: `Ok` once admitted,
/// [`StoreError::Refused`] when refused (or when its keeper is gone without deciding).
pub(super) async fn passed() -> StoreResult<()> {
    let Ok(mut gate) = GATE.try_with(watch::Receiver::clone) else { return Ok(()) };
    let decision = match gate.wait_for(Option::is_some).await {
        Ok(decided) => *decided,
        Err(_) => None,
    };
    match decision {
        Some(true) => Ok(()),
        _ => Err(StoreError::Refused),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writes_behind_a_gate_wait_for_its_decision() {
        assert!(passed().await.is_ok(), "no gate: free");
        let keeper = Keeper::new();
        let route = keeper.behind(async { passed().await.is_ok() });
        tokio::pin!(route);
        assert!(tokio::time::timeout(std::time::Duration::from_millis(20), &mut route).await.is_err(), "waits");
        keeper.decide(true);
        assert!(route.await);
        let refused = Keeper::new();
        refused.decide(false);
        assert!(matches!(refused.behind(passed()).await, Err(StoreError::Refused)));
        let gone = Keeper::new();
        let receiver = gone.0.subscribe();
        drop(gone);
        assert!(matches!(GATE.scope(receiver, passed()).await, Err(StoreError::Refused)));
    }
}
