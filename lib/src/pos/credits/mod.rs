//! Customer credits (§4.7): `POST /v1/store_credits` adds credit to a contact, idempotently by
//! `reference` (unique per account); `GET /v1/store_credits?contact_id=` lists the contact's
//! movements (added, used in a sale, returned as credit) with the balance after each.
//!
//! The credit item is keyed by its reference (`CREDIT#<sha256>`), so writing it only if absent is
//! the idempotency guard: a repeated reference finds the original and answers `200` when contact
//! and amount match, `409` otherwise. It is written with the contact's new balance (on the
//! contact's version), the movement and the `store_credit.created` event, in one transaction.
//! Movements are numbered per contact (1, 2, …), so a page of them is one key range.

pub mod input;
pub mod model;
pub mod movement;
mod record;
mod routes;
pub mod service;
pub mod view;

pub use input::{check_reference, CreditDraft};
pub use model::{
    reference_reused, StoreCredit, CODE_CONTACT_NOT_FOUND, CODE_REFERENCE_REUSED, DESCRIPTION_MAX_CHARS,
    REFERENCE_MAX_CHARS,
};
pub use movement::Movement;
pub use routes::router;
pub use service::{add, movements};
pub use view::{MovementView, StoreCreditView};
