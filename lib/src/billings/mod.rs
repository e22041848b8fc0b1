//! Billings (§2.1, §3.1, §4.2). The computed fields live in [`compute`] as pure functions.

mod actions;
pub mod compute;
pub mod input;
mod list;
pub mod model;
mod routes;
pub mod view;

pub use routes::router;
