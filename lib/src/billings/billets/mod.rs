//! What a billing does with its bank billets: issues and re-issues them ([`lifecycle`]) and shows
//! them under `/v1/billings/{billing_id}/bank_billets` ([`routes`]); their registration, remittance
//! and return files are the boleto channel's (its room among the payment channels, which call
//! here). The billet itself (record, payment codes, providers, slip, representation) is
//! `crate::billets`, which knows nothing of billings: calls go one way, from here down.

pub mod lifecycle;
mod routes;

pub use routes::router;

use crate::billets::printing::instructions::AfterDue;
use crate::billets::printing::Document;
use crate::billings::Billing;

/// What a billet's slip prints of its billing: the billing's code as the document number, and its
/// terms, from which the instructions are written (the API's PDF and the payer page's).
pub fn printed(billing: &Billing) -> Document {
    Document {
        number: billing.code.clone(),
        terms: Some((billing.terms(), AfterDue { kind: billing.instruction_type, days: billing.instruction_days })),
    }
}
