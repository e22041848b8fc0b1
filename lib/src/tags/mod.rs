//! Tags (§2.4, §4.5): free labels of the account, unique by name ignoring case.

pub mod input;
pub mod model;
mod record;
mod routes;
pub mod service;
pub mod view;

pub use input::{MSG_COLOR_INVALID, MSG_NAME_BLANK, MSG_NAME_TOO_LONG};
pub use model::{Tag, MSG_IN_USE, MSG_NAME_TAKEN};
pub use routes::router;
pub use view::TagView;
