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
pub mod registrar;
pub mod secrets;
pub mod withdrawals;

pub use apply::{apply, apply_new, decide, decision, keep, refused, settled, Applied, Decided};
pub use channel::ChannelRoom;
pub use ledger::*;

use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::service::{change, Ruled};
use crate::refusal::Refusal;
use crate::store::stored::{self, Stored};
use crate::store::{Store, Write};
use crate::values::{AccountId, Money};

/// Records what the provider reports given back of an applied payment (`refunded`, the sum of its
/// refunds so far): on its ledger entry; a payment kept to refund leaves the account's list once
/// wholly given back; a payment that settled its billet marks the billet's `provider_status`
/// (`DEVOLVIDO`, or `DEVOLVIDO_PARCIAL`), announced by `billing.updated`. Returns whether anything
/// changed (a refund reported again changes nothing).
pub async fn record_refund(
    store: &Store,
    account: AccountId,
    payment: &Payment,
    refunded: Money,
) -> Result<bool, Refusal> {
    let Some(entry) = recorded(store, account, payment).await? else { return Ok(false) };
    if entry.refunded == refunded || !refunded.is_positive() {
        return Ok(false);
    }
    let whole = refunded >= entry.amount;
    let next = Entry { refunded, ..entry.clone() };
    let mut writes = vec![stored::put(&next, ())?];
    match entry.outcome {
        Outcome::ToRefund if whole => {
            let (pk, sk) = ToRefund(entry.clone()).key(());
            writes.push(Write::delete(pk, sk));
        }
        Outcome::ToRefund => writes.push(stored::put(&ToRefund(next.clone()), ())?),
        Outcome::Settled => {
            let status = if whole { "DEVOLVIDO" } else { "DEVOLVIDO_PARCIAL" };
            let (_, done) = Box::pin(change(store, account, entry.billing_id, |billing, billet| {
                let writes = writes.clone();
                async move {
                    let Some(billet) = billet.filter(|b| Some(b.id) == entry.billet_id) else {
                        return Ok(Ruled::Unchanged(false));
                    };
                    let mut to = billet.moved_to(billet.status);
                    to.registered.provider_status = Some(status.to_owned());
                    let billet = Some(BilletWrite::Moved { from: billet, to });
                    Ok(Ruled::Changed { next: billing, billet, also: writes, announce: true, then: true })
                }
            }))
            .await?;
            if done {
                return Ok(true);
            }
        }
    }
    store.write(writes).await?;
    Ok(true)
}
