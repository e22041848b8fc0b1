//! Closing a collectable billing (§3.1): cancelled with a reason (here), or paid off by hand with a
//! cash entry (the manual payment channel's pay-off); either closes its open billet in the
//! same transaction.

use super::change::{change_shown, Ruled};
use crate::billets::model::BilletStatus;
use crate::billings::billets::lifecycle;
use crate::billings::model::Billing;
use crate::billings::view::Embedded;
use crate::jobs::{tasks, BulkExpansion};
use crate::refusal::{Code, Problem, Refusal};
use crate::store::Store;
use crate::values::{AccountId, BillingId, BillingStatus, Timestamp};

/// Why `billing` cannot be cancelled or paid off (`action`: the word for it).
pub fn refused(billing: &Billing, action: &str) -> Refusal {
    let message = format!("Cobrança com status {} não pode ser {action}", billing.status);
    Refusal::invalid(Problem::general(Code::NotAllowed, message))
}

/// `POST /v1/billings/{id}/cancel` (§3.1): a collectable billing becomes `canceled` with its
/// reason; its open billet is cancelled in the same transaction.
pub async fn cancel(
    store: &Store,
    account: AccountId,
    id: BillingId,
    reason: Result<String, Vec<Problem>>,
) -> Result<(Billing, Embedded), Refusal> {
    let (billing, (), embedded) = change_shown(store, account, id, |current, billet| {
        let reason = reason.clone();
        async move {
            let reason = reason.map_err(Refusal::Invalid)?;
            if !current.status.accepts_cancel_or_pay_off() {
                return Err(refused(&current, "cancelada"));
            }
            let billet = lifecycle::close(billet.as_ref(), BilletStatus::Canceled);
            let next = Billing {
                status: BillingStatus::Canceled,
                cancellation_reason: Some(reason),
                updated_at: Timestamp::now(),
                ..current
            };
            // A booklet's open instalments are cancelled by its task (`booklet`), written here.
            let also = match next.is_booklet() {
                true => vec![tasks::one(account, BulkExpansion::of_booklet(account, next.id))?],
                false => Vec::new(),
            };
            Ok(Ruled::Changed { next, billet, also, announce: true, then: () })
        }
    })
    .await?;
    Ok((billing, embedded))
}
