//! Signed webhooks (§6): receivers, the path from a change to a delivery, and the delivery log.
//!
//! ```text
//! change ─(same transaction)─▶ event in the outbox ─(stream / sweep)─▶ dispatcher
//!   ─▶ one delivery per receiver + a message on webhook-deliveries ─▶ sender ─(signed POST)─▶ receiver
//! ```
//!
//! Nothing is lost: the event is written with the change or not at all ([`crate::events`]); it
//! stays in the pending index until every delivery of it is stored and queued
//! ([`dispatcher`]); a delivery stays `pending` until its receiver answers `2xx` or the retries
//! run out, and its message is deleted only then ([`sender`]). Each step can die and run again
//! without loss or a second delivery id.

pub mod client;
pub mod deliveries;
pub mod dispatcher;
pub mod guard;
pub mod input;
pub mod receivers;
pub mod routes;
pub mod secrets;
pub mod sender;
pub mod signature;
pub mod view;

pub use client::Policy;
pub use deliveries::{Delivery, Schedule};
pub use receivers::Receiver;
pub use routes::router;
pub use secrets::{SecretBox, SigningSecret};
pub use sender::Sender;
