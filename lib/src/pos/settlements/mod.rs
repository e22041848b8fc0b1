//! Settlement by transfer of on-account balances (§4.7): the store transfers what its customers
//! owe on account up to a cutoff date to one payer contact (configured by operators:
//! `infra/ops account update --settlement-contact C`), which receives one receivable billing for
//! the whole.
//!
//! - `GET /v1/receivable_settlements/preview?cutoff_at=` reads the open-sales index up to the
//!   cutoff and writes nothing.
//! - `POST /v1/receivable_settlements` stores the settlement (`pending`), keyed by its
//!   `reference`, with the task that sends its first message (`jobs::tasks`), in one transaction;
//!   the same reference again answers its state (`200`), or resumes it when it failed (`202`,
//!   with the task of its next chunk in the same transaction); another cutoff is a `409`. Of
//!   requests of one reference at the same moment, one creates it (`201`) and the others read it
//!   (`200`).
//! - The worker ([`run`]) settles the open sales up to the cutoff, a chunk per message: each
//!   sale in one transaction with its customer's balance, a line of the settlement
//!   (`A#<account>#SETTLEMENT#<sha256(reference)>`, `sk = SALE#<id>`, written only if absent) and
//!   the settlement's running totals. A settled sale leaves the open-sales index, so a redelivered
//!   or resumed message picks up exactly the sales still open, and a sale is never settled twice.
//!   A message names its chunk, and runs only while the settlement's count of chunks run says that
//!   one is next; the count moves on in one transaction with the next chunk's task, on the
//!   condition that it still names this chunk, so of two copies of a message one sends the next.
//!   When no sale is left, it makes the payer's billing from the lines (one item per customer), in
//!   one transaction with the settlement's `billing_id`, written only if absent, and the billing's
//!   registration task: there is never a second billing, and its billet registers as any
//!   billing's does.

pub mod input;
pub mod model;
mod record;
mod routes;
pub mod service;
pub mod view;
pub mod worker;

pub use input::{parse_cutoff, parse_request};
pub use model::{ContactPreview, Preview, SalePreview};
pub use model::{
    Line, Settlement, CHUNK, CHUNK_RUN, CODE_SETTLEMENT_CONTACT_MISSING, PREVIEW_CONTACTS_SHOWN, PREVIEW_SALES_SHOWN,
};
pub use routes::router;
pub use service::{find, open_up_to, preview, request};
pub use view::SettlementView;
pub use worker::{handle_batch, run, Outcome};
