//! Groups (§2.5, §4.6): the legacy classification of contacts, unique by description ignoring case.

pub mod model;
mod routes;
pub mod service;

pub use model::{
    Group, MSG_DESCRIPTION_BLANK, MSG_DESCRIPTION_TAKEN, MSG_DESCRIPTION_TOO_LONG, MSG_IN_USE, MSG_TYPE_INVALID,
};
pub use routes::{router, GroupView};
