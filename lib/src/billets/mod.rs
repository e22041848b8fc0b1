//! Bank billets (§2.2, §3.2, §4.3): the stored billet, the payment codes (barcode, digitable line,
//! Pix), the payer's link, the bank providers with the built-in simulated bank, the printable slip and the
//! representation. Billets know nothing of billings: what a billing does with its billets (issue,
//! re-issue, show under `/v1/billings/{id}/bank_billets`) lives in `billings::billets`, and their
//! registration, remittances and returns in `payments` (`registrar`, `boleto`): both call down here.

pub mod banks;
pub mod cnab;
pub mod cnab240;
pub mod cnab400;
pub mod cnab_return;
pub mod layout;
#[cfg(test)]
mod layout_bytes;
pub mod layouts;
pub mod link;
pub mod model;
pub mod payment_codes;
pub mod printing;
pub mod provider;
pub mod view;

pub use model::{BankBillet, BilletStatus};
