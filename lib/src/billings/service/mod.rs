//! The billing workflow, in one place: what create, update, cancel, pay-off, delete, bulk
//! expansion, billet registration and bank payment do to a billing. Every change of an existing
//! billing goes through [`change()`]: read the billing and its current billet, apply a rule, write
//! the billing back on its version with whatever else the rule adds (its billet, cash entries,
//! moved reference counts) and the `billing.updated` event that announces it, in one
//! transaction; a lost race runs the rule again on what the winner wrote.
//!
//! Announced (§6, wider than the spec's "at present"): every change of a billing's status,
//! payment data or billet (registered or rejected by the bank, paid, cancelled, settled, updated).
//! Not announced: its creation (the integrator made it) and a billet being issued on its way to
//! the bank. The event's `data` is `{"billing": <the single representation>}` as the transaction
//! leaves it.
//!
//! One file per part of the workflow: `change.rs` (the one way an existing billing changes),
//! `read.rs` (a billing with what it embeds), `announcement.rs` (its event), `references.rs` (the
//! records a draft names and the payer they give), then one per use: `create.rs`, `update.rs`,
//! `cancel_and_pay_off.rs` and `delete.rs`; `cycle.rs`, a schedule's cycle issued; `booklet.rs`, a carnê made and cancelled.

mod announcement;
mod booklet;
mod cancel_and_pay_off;
mod change;
mod create;
mod cycle;
mod delete;
mod read;
mod references;
mod update;

pub use announcement::announcement;
pub use booklet::{
    cancel_with_instalments, create_booklet, instalment_ids, instalments, run_booklet, BookletRun, MOST_INSTALLMENTS,
};
pub use cancel_and_pay_off::{cancel, refused};
pub use change::{change, change_shown, Ruled};
pub use create::{create, create_schedule, insert_new, new_id, NewIds};
pub use cycle::{cycle_billing_of, issue_cycle, Issued};
pub use delete::delete;
pub use read::{embedded, related_to_page, shown, whole_or_404};
pub use references::{apply_modules, check_references};
pub use update::update;
