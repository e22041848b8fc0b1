//! What a billing's changes do to its bank billet.
//!
//! - **Registration** is asked for in the transaction that writes the billing: a task that sends
//!   the registration message once the billing is saved ([`registration`], `jobs::tasks`).
//! - **Re-issue**: when an update of a billing whose registration was asked for changes what the
//!   billet prints or where it is registered (amount, due date, payer, bank rule), the current
//!   billet is cancelled in the update's transaction and a new registration is asked for in the
//!   same transaction (`billet_generation` + 1; the worker ignores messages of older generations). An update of a
//!   billing whose billet was rejected asks again even when it changes nothing, so fixing the
//!   payer's contact and sending `PATCH {"billing": {}}` retries the registration.
//! - **Cancel** cancels the open billet; **pay-off** writes it off (`discharged`).
//! - **Bank payment** (the payment workflow's one apply, from the boleto channel's return line or
//!   the simulated bank) settles the billet.

use crate::billets::model::{self, BankBillet, BilletStatus};
use crate::billings::model::Billing;
use crate::jobs::{tasks, BilletRegistration};
use crate::store::{Store, StoreResult, Write};
use crate::values::{today, AccountId, BillingStatus};

/// A billet a change of its billing writes, as it will be stored.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per change, moved straight into its transaction
pub enum BilletWrite {
    /// A new billet (a registration issues it).
    New(BankBillet),
    /// `from` becomes `to` (one version more), provided it did not change since it was read.
    Moved { from: BankBillet, to: BankBillet },
}

impl BilletWrite {
    /// The billet as the write leaves it.
    pub fn after(&self) -> &BankBillet {
        match self {
            BilletWrite::New(billet) | BilletWrite::Moved { to: billet, .. } => billet,
        }
    }

    pub fn write(&self, account: AccountId) -> StoreResult<Write> {
        match self {
            BilletWrite::New(billet) => billet.insert(account),
            BilletWrite::Moved { from, to } => from.replace_with(account, to),
        }
    }
}

/// The billet of the billing's latest registration, once issued.
pub async fn current(store: &Store, account: AccountId, billing: &Billing) -> StoreResult<Option<BankBillet>> {
    match billing.billet_id {
        Some(id) => model::find(store, account, billing.id, id).await,
        None => Ok(None),
    }
}

/// §2.1: the billet (if any) still lets the billing be edited freely.
pub fn billet_editable(current: Option<&BankBillet>) -> bool {
    current.is_none_or(|b| b.status.editable())
}

/// Whether `after` needs a new billet (see the module text).
pub fn reissue_needed(before: &Billing, after: &Billing, current: Option<&BankBillet>) -> bool {
    before.billet_generation > 0
        && after.status == BillingStatus::Opened
        && (before.amount != after.amount
            || before.due_date != after.due_date
            || before.contact_id != after.contact_id
            || before.bank_rule_id != after.bank_rule_id
            || current.is_some_and(|b| b.status == BilletStatus::Rejected))
}

/// Closes the billet in `to` (`canceled`, `discharged`) when it is still open.
pub fn close(current: Option<&BankBillet>, to: BilletStatus) -> Option<BilletWrite> {
    let billet = current.filter(|billet| billet.status.open())?;
    let mut next = billet.moved_to(to);
    if to == BilletStatus::Discharged {
        next.settlement.discharged_at = Some(today());
    }
    Some(BilletWrite::Moved { from: billet.clone(), to: next })
}

/// Asks for a new registration on `next` and cancels the current billet (same transaction).
pub fn reissue(next: &mut Billing, current: Option<&BankBillet>) -> Option<BilletWrite> {
    next.billet_generation += 1;
    next.billet_id = None;
    close(current, BilletStatus::Canceled)
}

/// The task, for the transaction that writes `billing`, that asks for the registration of its
/// latest generation once the transaction is saved (`jobs::tasks`).
pub fn registration(account: AccountId, billing: &Billing) -> StoreResult<Write> {
    tasks::one(account, BilletRegistration::new(account, billing.id, billing.billet_generation))
}
