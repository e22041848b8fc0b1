//! The one way an existing billing changes: [`change`] reads it and its current billet, applies a
//! rule, and writes it back on its version with what the rule adds, the reference counts it moves
//! and the `billing.updated` event that announces it, in one transaction.

use std::future::Future;

use super::announcement::{announcement_of, with_written};
use super::read::{related, whole_or_404};
use crate::billets::model::BankBillet;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::channels;
use crate::billings::links;
use crate::billings::model::Billing;
use crate::billings::view::Embedded;
use crate::contention::retry_in_turn;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::{Store, Write};
use crate::values::{AccountId, BillingId};

/// What a rule made of a billing.
#[allow(clippy::large_enum_variant)] // built once per change and moved straight into `change`
pub enum Ruled<T> {
    /// Nothing to write; `T` is what the caller learns.
    Unchanged(T),
    /// The billing as the rule leaves it (its version is bumped by [`change`]), the billet it
    /// writes, what else goes into its transaction, and whether a `billing.updated` event
    /// announces it.
    Changed { next: Billing, billet: Option<BilletWrite>, also: Vec<Write>, announce: bool, then: T },
}

/// Reads the account's billing `id` (404 when missing) and its current billet, applies `rule`, and
/// writes the billing back on its version with what the rule adds and the reference counts its
/// change moves, in one transaction. Writers of one billing take turns; a lost race runs the rule
/// again on what the winner wrote.
pub async fn change<T, F, Fut>(
    store: &Store,
    account: AccountId,
    id: BillingId,
    rule: F,
) -> Result<(Billing, T), Refusal>
where
    F: Fn(Billing, Option<BankBillet>) -> Fut,
    Fut: Future<Output = Result<Ruled<T>, Refusal>>,
{
    let (billing, then, _) = Box::pin(changed(store, account, id, false, rule)).await?;
    Ok((billing, then))
}

/// [`change`] for a route that answers the billing's single representation: what it embeds is
/// read beside the rule (the contact and tag of the billing as read) and kept from the write (the
/// billets), so that the answer costs no read after the transaction.
pub async fn change_shown<T, F, Fut>(
    store: &Store,
    account: AccountId,
    id: BillingId,
    rule: F,
) -> Result<(Billing, T, Embedded), Refusal>
where
    F: Fn(Billing, Option<BankBillet>) -> Fut,
    Fut: Future<Output = Result<Ruled<T>, Refusal>>,
{
    let (billing, then, embedded) = Box::pin(changed(store, account, id, true, rule)).await?;
    let embedded = embedded.ok_or_else(|| Refusal::Internal(anyhow::anyhow!("a shown change without its embeds")))?;
    Ok((billing, then, embedded))
}

/// [`change`], with what the billing's representation embeds when `shown` (calls one after
/// another: the billing with its billets, then the rule's reads beside the embeds', then the
/// transaction; a rule that moves the contact or tag reads the new one before the transaction).
async fn changed<T, F, Fut>(
    store: &Store,
    account: AccountId,
    id: BillingId,
    shown: bool,
    rule: F,
) -> Result<(Billing, T, Option<Embedded>), Refusal>
where
    F: Fn(Billing, Option<BankBillet>) -> Fut,
    Fut: Future<Output = Result<Ruled<T>, Refusal>>,
{
    retry_in_turn(records::key_of::<Billing>(account, id), || async {
        // The billing and every billet of it (one query): the rule gets the current one, the
        // event all.
        let (current, billets) = whole_or_404(store, account, id).await?;
        let billet = current.billet_id.and_then(|id| billets.iter().find(|b| b.id == id).cloned());
        // Boxed: rules' futures are large, and a worker's stack is not.
        let ruled = Box::pin(rule(current.clone(), billet));
        let (ruled, related) = match shown {
            true => {
                let (ruled, related) = tokio::try_join!(ruled, related(store, account, &current))?;
                (ruled, Some(related))
            }
            false => (ruled.await?, None),
        };
        match ruled {
            Ruled::Unchanged(then) => {
                let embedded = related.map(|(contact, tag, reminders)| Embedded { contact, tag, billets, reminders });
                Ok((current, then, embedded))
            }
            Ruled::Changed { next, billet, mut also, announce, then } => {
                let next = Billing { version: current.version + 1, ..next };
                if let Some(billet) = &billet {
                    also.push(billet.write(account)?);
                }
                // What stopped being payable through a channel is withdrawn there.
                also.extend(channels::installed()?.withdrawals(account, &current, &next, billet.as_ref())?);
                let embedded = match (announce || shown, related) {
                    (false, _) => None,
                    (true, related) => {
                        let same = next.contact_id == current.contact_id && next.tag_id == current.tag_id;
                        let (contact, tag, reminders) = match related {
                            Some(related) if same => related,
                            _ => self::related(store, account, &next).await?,
                        };
                        let billets = with_written(billets, billet.as_ref().map(BilletWrite::after));
                        Some(Embedded { contact, tag, billets, reminders })
                    }
                };
                if let (true, Some(embedded)) = (announce, &embedded) {
                    also.push(announcement_of(account, &next, embedded)?);
                }
                also.extend(links::reference_writes(account, Some(&current), Some(&next)));
                records::replace(store, account, &current, &next, also).await?;
                Ok((next, then, embedded.filter(|_| shown)))
            }
        }
    })
    .await
}
