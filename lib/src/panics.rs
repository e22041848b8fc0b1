//! Panics caught at the unit of work: a request or a queue message. The release profile unwinds
//! (not `panic = "abort"`), so a bug that panics on one input answers that request with a 500, or
//! fails that one message of its batch, and the process goes on serving the others. Without this,
//! `lambda_runtime` would catch the panic for the whole invocation: API Gateway would answer 502,
//! and every message of the batch would return to its queue.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt as _;

/// Runs `work`, turning a panic into an error that carries the panic's message. The work is
/// asserted unwind-safe: what it shares with other work (the store, the queues) is SDK clients and
/// immutable configuration, which a panic leaves as they were.
pub async fn caught<F: Future>(work: F) -> anyhow::Result<F::Output> {
    AssertUnwindSafe(work).catch_unwind().await.map_err(|payload| anyhow::anyhow!("panicked: {}", message(&*payload)))
}

/// The text a panic was raised with (`panic!("…")`, `unwrap` and `expect` give one), for the log.
pub fn message(payload: &(dyn Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "a panic without a message"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_an_error_with_its_message() {
        let fine = caught(async { 7 }).await.unwrap();
        assert_eq!(fine, 7);
        let failed = caught(async { panic!("boom {}", 42) }).await.unwrap_err();
        assert_eq!(failed.to_string(), "panicked: boom 42");
        let failed = caught(async { panic!("a value") }).await.unwrap_err();
        assert_eq!(failed.to_string(), "panicked: a value");
    }
}
