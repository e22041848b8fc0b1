//! Bank billets (§2.2, §3.2, §4.3): the stored billet, the payment codes (barcode, digitable line,
//! Pix), the bank providers with the built-in simulated bank, the registration worker, the
//! endpoints, and what billings do to their billets (re-issue, cancel, pay-off).

pub mod lifecycle;
pub mod model;
pub mod payment_codes;
pub mod printing;
pub mod provider;
pub mod registrar;
mod routes;
pub mod view;

pub use model::{BankBillet, BilletStatus};
pub use routes::router;
