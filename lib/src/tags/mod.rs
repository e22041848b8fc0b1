//! Tags (§2.4, §4.5): free labels of the account, unique by name ignoring case.

pub mod model;
mod routes;
pub mod service;

pub use model::{Tag, MSG_COLOR_INVALID, MSG_IN_USE, MSG_NAME_BLANK, MSG_NAME_TAKEN, MSG_NAME_TOO_LONG};
pub use routes::{router, TagView};
