//! Financial categories (§2.6, §4.7): `receivable` or `payable`. Created elsewhere; the API lists
//! them (`GET /v1/bill_categories`) and billings name a receivable one. The API neither creates nor
//! edits a category, so there is no `input.rs`: `service::create` (the ops CLI, the demo data)
//! takes typed values.

pub mod model;
mod record;
mod routes;
pub mod service;
pub mod view;

pub use model::BillCategory;
pub use routes::router;
pub use service::create;
pub use view::BillCategoryView;
