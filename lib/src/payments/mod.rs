//! One way a payment is applied (DESIGN §10). A billing can be paid through several channels, each
//! a room of its own (`boleto`: its remittances, the bank's return files and the simulated bank's
//! reports; `pix`: the billing's Pix charge, as its PSP reports it; `card`: a card, through the
//! account's checkout gateway, as its events and API tell it; `manual`: the account's pay-off with
//! its cash entry); a channel turns what its provider says into one [`Payment`], and one decision
//! ([`decide`], in the billing's transaction, `apply`) applies it:
//!
//! - **exactly once per provider id**: the payment's ledger item ([`Entry`], `keys::payment::payment`) is
//!   written, only if absent, in the transaction that applies it, so a payment reported again (a
//!   second return file, a webhook twice, a reconciliation) changes nothing;
//! - **the first payment settles**: the billing `paid` and the billet it pays `paid`, with what
//!   was paid, announced by `billing.updated`, all in that transaction;
//! - **a later one is kept to refund**: a payment of a billing already settled otherwise, or of a
//!   billet no longer the billing's, moves nothing and is kept, with why, in the ledger and in the
//!   account's list of payments to refund (`keys::payment::payments_to_refund`, `infra/ops payment
//!   refunds`), and told to the account's receivers (`payment.to_refund`, [`keep`]): never lost,
//!   never applied twice;
//! - **the other channels' charges are withdrawn** in the settling transaction, by one rule that
//!   knows every channel (`withdrawals`): the boleto written off, the Pix charge removed, an open
//!   card intent cancelled.
//!
//! The channel tells whether a payment is real before it gets here (a return file the account
//! uploaded; a PSP's call read back from the PSP).

mod apply;
pub mod boleto;
pub mod card;
pub mod channel;
pub mod ledger;
pub mod manual;
#[cfg(test)]
mod pairs;
pub mod pix;
pub mod recording;
pub mod refunds;
pub mod registrar;
pub mod routes;
pub mod rows;
pub mod secrets;
pub mod statement;
pub mod view;
pub mod withdrawals;

pub use apply::{apply, apply_new, decide, decision, keep, refused, settled, Applied, Decided};
pub use channel::ChannelRoom;
pub use ledger::*;
pub use recording::{kept_to_refund, payment_event, recorded_new};

use crate::billings::service::{change, Ruled};
use crate::refusal::Refusal;
use crate::store::Store;
use crate::values::{AccountId, Money};

/// Records what the provider reports given back of an applied payment (`refunded`, the sum of its
/// refunds so far) when it is more than the entry says (a refund made at the provider's side, a
/// card's dispute): the entry, its rows, the day's counts and `payment.refunded` (`refunds`); a
/// payment kept to refund leaves the account's list once wholly given back; a payment that settled
/// its billet marks the billet's `provider_status` (`DEVOLVIDO`, or `DEVOLVIDO_PARCIAL`), announced
/// by `billing.updated`. A refund under way through the service (its claim) is left to record
/// itself. Returns whether anything changed (a refund reported again changes nothing).
pub async fn record_refund(
    store: &Store,
    account: AccountId,
    payment: &Payment,
    refunded: Money,
) -> Result<bool, Refusal> {
    let Some(entry) = recorded(store, account, payment).await? else { return Ok(false) };
    if refunded <= entry.refunded || entry.claim.is_some() {
        return Ok(false);
    }
    let whole = refunded >= entry.amount;
    let next = Entry { refunded, version: entry.version + 1, ..entry.clone() };
    let writes = refunds::refund_writes(&entry, &next, refunded - entry.refunded)?;
    if entry.outcome == Outcome::Settled {
        let entry = &entry;
        let (_, done) = Box::pin(change(store, account, entry.billing_id, |billing, billet| {
            let writes = writes.clone();
            async move {
                let Some(billet) = refunds::marked(billet, entry, whole) else {
                    return Ok(Ruled::Unchanged(false));
                };
                Ok(Ruled::Changed { next: billing, billet: Some(billet), also: writes, announce: true, then: true })
            }
        }))
        .await?;
        if done {
            return Ok(true);
        }
    }
    store.write(writes).await?;
    Ok(true)
}
