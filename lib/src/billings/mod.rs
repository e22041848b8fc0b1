//! Billings (§2.1, §3.1, §4.2). The computed fields live in [`compute`] as pure functions.

mod actions;
pub mod bulk;
pub mod compute;
pub mod input;
pub mod legacy;
pub mod links;
mod list;
pub mod model;
mod routes;
mod update;
pub mod view;

pub use routes::{router, single, single_with};
