//! Groups (§2.5, §4.6): the legacy classification of contacts, unique by description ignoring case.

pub mod input;
pub mod model;
mod record;
mod routes;
pub mod service;
pub mod view;

pub use input::{MSG_DESCRIPTION_BLANK, MSG_DESCRIPTION_TOO_LONG, MSG_TYPE_INVALID};
pub use model::{Group, MSG_DESCRIPTION_TAKEN, MSG_IN_USE};
pub use routes::router;
pub use view::GroupView;
