//! Contacts (§2.3, §2.4, §4.4): customers and suppliers of the account, with their document,
//! address, group and tags.

pub mod cascade;
pub mod counts;
pub mod input;
pub mod list;
pub mod model;
pub mod postings;
mod record;
mod routes;
pub mod service;
pub mod view;

pub use input::ContactChanges;
pub use model::Contact;
pub use routes::router;
pub use view::{on_account_tags_marked, represent, ContactView};
