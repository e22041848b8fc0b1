//! Billings (§2.1, §3.1, §4.2): the record ([`model`]), what a body may say ([`input`]), the
//! computed fields as pure functions ([`compute`]), the update rules ([`update`]), the workflow
//! every change goes through ([`service`]), bulk issuance ([`bulk`]), legacy records ([`legacy`]), the counter's repair ([`counts`]),
//! lists ([`list`]), the two representations ([`view`]) and the routes.

pub mod billets;
pub mod bulk;
pub mod card;
pub mod channels;
pub mod compute;
pub mod counts;
pub mod input;
pub mod legacy;
pub mod links;
mod list;
pub mod model;
pub mod postings;
mod record;
pub mod recurrence_view;
pub mod reminder_deliveries;
mod routes;
pub mod service;
pub mod standing;
pub mod update;
pub mod view;

pub use model::Billing;
pub use routes::router;
pub use service::embedded;
