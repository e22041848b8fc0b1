//! What a billing does with its bank billets: issues and re-issues them ([`lifecycle`]), has them
//! registered at the bank ([`registrar`], the worker of the billet-registration queue), and shows
//! them under `/v1/billings/{billing_id}/bank_billets` ([`routes`]). The billet itself (record,
//! payment codes, providers, slip, representation) is `crate::billets`, which knows nothing of
//! billings: calls go one way, from here down.

pub mod lifecycle;
pub mod registrar;
mod routes;

pub use routes::router;
