//! Refunds of the ledger's payments (`POST /v1/payments/{id}/refund`, `infra/ops payment refund`):
//! a Pix given back through its PSP (`PUT /pix/{e2eid}/devolucao/{id}`), a card through its gateway
//! (a refund, partial or whole), a boleto or a pay-off recorded as given back outside the service
//! (a bank pays nothing back), each with who asked and when.
//!
//! Never twice: a refund is first **claimed** on the entry (`claim`, under the entry's version:
//! of concurrent refunds of one payment, one claims and the others are refused, `409`), then asked
//! of the provider with the claim's id (the same id again is the same refund there), then
//! **recorded** (under the claim): the entry's `refunded` and `refunds`, its rows, the day's
//! counts, `payment.refunded` and, for a payment that settled its billing and is now given back
//! whole, the billing `returned` — in one transaction. A provider's refusal lets the claim go; a
//! provider out of reach, or a process killed between the steps, leaves it, and the next refund of
//! the payment once [`LEASE_SECONDS`] have passed finishes it first (asking the provider again with
//! its id, which makes nothing twice).

use std::sync::Arc;

use super::card::stripe::Stripe;
use crate::billets::model::BankBillet;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::refusal::{Problem, Refusal};
use crate::store::stored::{self, Stored as _};
use crate::store::{Condition, Store, Write};
use crate::values::{today, AccountId, BillingStatus, Money, Timestamp};

use super::ledger::{entry_of, read_payment_id, Channel, Entry, Outcome, Refund, ToRefund};
use super::recording::payment_event;
use super::{rows, statement};

/// How long a claimed refund is left to the request that claimed it before another finishes it:
/// beyond an API request's longest life (API Gateway's 29 seconds).
pub const LEASE_SECONDS: i64 = 30;

/// The most refunds one payment takes (partial refunds): its entry stays one small item.
pub const MAX_REFUNDS: usize = 20;

/// What a refund asks.
#[derive(Clone, Debug, PartialEq)]
pub struct Asked {
    /// How much; all that is left when `None`.
    pub amount: Option<Money>,
    pub reason: String,
    /// `api` or `ops`.
    pub by: &'static str,
}

fn refused(code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal::Rule { code, message: message.into() }
}

fn in_progress() -> Refusal {
    Refusal::Clash {
        code: "refund_in_progress",
        message: "Um estorno deste pagamento está em andamento; consulte o pagamento ou tente de novo em instantes"
            .into(),
    }
}

/// The condition that the entry is still as read.
fn unchanged(entry: &Entry) -> Condition {
    match entry.version {
        0 => Condition::present().and(Condition::missing("version")),
        version => Condition::version(version),
    }
}

/// `entry` written as `next` (its version moved on), provided nobody changed it meanwhile.
fn replaced(entry: &Entry, next: &Entry) -> Result<Write, Refusal> {
    Ok(stored::put_if(next, (), unchanged(entry))?)
}

/// Refunds the account's payment `id` as `asked`: the entry as it then is.
pub async fn refund(store: &Store, account: AccountId, id: &str, asked: Asked) -> Result<Entry, Refusal> {
    let (channel, provider_id) = read_payment_id(id).ok_or(Refusal::NotFound)?;
    let mut entry = entry_of(store, account, channel, &provider_id).await?.ok_or(Refusal::NotFound)?;
    if let Some(claim) = entry.claim.clone() {
        let age = Timestamp::now().0.timestamp() - claim.requested_at.0.timestamp();
        if age < LEASE_SECONDS {
            return Err(in_progress());
        }
        entry = finish(store, entry, claim).await?;
    }
    let left = entry.refundable();
    let amount = asked.amount.unwrap_or(left);
    if !left.is_positive() {
        return Err(refused("nothing_to_refund", "O pagamento já foi estornado por inteiro"));
    }
    if !amount.is_positive() || amount != amount.cents() || amount > left {
        let message = format!("amount deve ser um valor positivo, em centavos, de até {left}");
        return Err(Refusal::invalid(Problem::invalid("refund.amount", message)));
    }
    if entry.refunds.len() >= MAX_REFUNDS {
        let message = format!("O pagamento já tem {MAX_REFUNDS} estornos, o máximo");
        return Err(refused("too_many_refunds", message));
    }
    let claim = Refund {
        id: format!("rf{}", uuid::Uuid::new_v4().simple()).chars().take(22).collect(),
        amount,
        reason: asked.reason.chars().take(140).collect(),
        by: asked.by.to_owned(),
        requested_at: Timestamp::now(),
        made_at: None,
        provider_id: None,
    };
    let claimed = Entry { claim: Some(claim.clone()), version: entry.version + 1, ..entry.clone() };
    match store.write(vec![replaced(&entry, &claimed)?]).await {
        Ok(()) => {}
        Err(error) if error.failed_at(0) => return Err(in_progress()),
        Err(error) => return Err(error.into()),
    }
    finish(store, claimed, claim).await
}

/// Asks the provider for the claimed refund `claim` of `entry`, then records it: the entry as it
/// then is. A refusal lets the claim go (`422`); a provider out of reach keeps it (`503`).
async fn finish(store: &Store, entry: Entry, claim: Refund) -> Result<Entry, Refusal> {
    let mut gateway = None;
    let asked = match entry.channel {
        Channel::Pix => pix_refund(store, &entry, &claim).await,
        Channel::CreditCard => match card_gateway(store, &entry).await {
            Ok(client) => card_refund(gateway.insert(client), &entry, &claim).await,
            Err(refused) => Err(refused),
        },
        // Given back outside the service: the bank pays nothing back of a boleto.
        Channel::BankBillet | Channel::Manual => Ok(None),
    };
    let provider_id = match asked {
        Ok(provider_id) => provider_id,
        Err(Refusal::Rule { code, message }) => {
            let released = Entry { claim: None, version: entry.version + 1, ..entry.clone() };
            store.write(vec![replaced(&entry, &released)?]).await?;
            return Err(Refusal::Rule { code, message });
        }
        Err(other) => return Err(other),
    };
    let made = Refund { made_at: Some(Timestamp::now()), provider_id, ..claim };
    let recorded = record(store, &entry, made).await?;
    if let (Some(gateway), Outcome::Settled) = (gateway, entry.outcome) {
        // The billing's card follows the gateway (refunded, `returned` once whole).
        let beside = super::card::sync::Beside::default();
        let read =
            super::card::sync::read_and_apply(store, gateway.as_ref(), entry.account_id, &entry.provider_id, &beside);
        if let Err(error) = Box::pin(read).await {
            tracing::warn!(error = %error, "a card refund recorded; the billing follows with the gateway's event");
        }
    }
    Ok(recorded)
}

async fn pix_refund(store: &Store, entry: &Entry, claim: &Refund) -> Result<Option<String>, Refusal> {
    let (billing, _) = crate::billings::service::whole_or_404(store, entry.account_id, entry.billing_id).await?;
    let rule = billing.bank_rule_id.ok_or_else(|| refused("pix_unavailable", "A cobrança não tem regra de Pix"))?;
    let secret = super::pix::psp::secret_id(entry.account_id, rule);
    let client = super::pix::psp::registry().client(&secret).await.map_err(Refusal::Unavailable)?;
    match client.refund(&entry.provider_id, &claim.id, claim.amount).await {
        Ok(made) => Ok(made.rtr_id.or(Some(made.id))),
        Err(super::pix::psp::PspError::Refused { detail, .. }) => {
            Err(refused("provider_refused", format!("O PSP recusou a devolução: {detail}")))
        }
        Err(error) => Err(Refusal::Unavailable(anyhow::anyhow!("{error}"))),
    }
}

/// The client of the gateway that took the card payment `entry` (the account's).
async fn card_gateway(store: &Store, entry: &Entry) -> Result<Arc<Stripe>, Refusal> {
    let client = super::card::client(store, entry.account_id).await?;
    client.ok_or_else(|| refused("gateway_unavailable", "A conta não tem gateway de cartão"))
}

async fn card_refund(gateway: &Arc<Stripe>, entry: &Entry, claim: &Refund) -> Result<Option<String>, Refusal> {
    use super::card::Gateway as _;
    match gateway.refund(&entry.provider_id, Some(claim.amount), &claim.id).await {
        Ok(id) => Ok(Some(id).filter(|id| !id.is_empty())),
        Err(error) => Err(super::card::sync::unavailable(error)),
    }
}

/// Records the refund `made` of `entry` (claimed as `made.id`), in one transaction: for a payment
/// that settled its billing, with the billing's (its billet's `provider_status` `DEVOLVIDO` or
/// `DEVOLVIDO_PARCIAL`, and a billing given back whole by Pix, boleto or pay-off `returned`; a
/// card's billing follows its gateway). When another request recorded it first: the entry as it
/// is.
async fn record(store: &Store, entry: &Entry, made: Refund) -> Result<Entry, Refusal> {
    let mut next = entry.clone();
    next.refunded = entry.refunded + made.amount;
    next.refunds.push(made.clone());
    next.claim = None;
    next.version = entry.version + 1;
    let writes = refund_writes(entry, &next, made.amount)?;
    let whole = next.refunded >= next.amount;
    let saved = if entry.outcome == Outcome::Settled {
        let returns = whole && entry.channel != Channel::CreditCard;
        change(store, entry.account_id, entry.billing_id, |billing, billet| {
            let also = writes.clone();
            async move {
                let billet = marked(billet, entry, whole);
                let next = match returns && billing.status != BillingStatus::Returned {
                    true => Billing { status: BillingStatus::Returned, updated_at: Timestamp::now(), ..billing },
                    false => billing,
                };
                Ok(Ruled::Changed { next, billet, also, announce: true, then: () })
            }
        })
        .await
        .map(|_| ())
    } else {
        store.write(writes).await.map_err(Refusal::from)
    };
    match saved {
        Ok(()) => Ok(next),
        Err(error) => {
            // Recorded by another request that finished the same claim: the entry says so.
            let found = entry_of(store, entry.account_id, entry.channel, &entry.provider_id).await?;
            match found {
                Some(found) if found.refunds.iter().any(|r| r.id == made.id) => Ok(found),
                _ => Err(error),
            }
        }
    }
}

/// The billing's billet `billet` marked given back (`DEVOLVIDO`, or `DEVOLVIDO_PARCIAL`), when it
/// is the one `entry` paid.
pub(super) fn marked(billet: Option<BankBillet>, entry: &Entry, whole: bool) -> Option<BilletWrite> {
    let billet = billet.filter(|b| Some(b.id) == entry.billet_id)?;
    let mut to = billet.moved_to(billet.status);
    let status = if whole { "DEVOLVIDO" } else { "DEVOLVIDO_PARCIAL" };
    to.registered.provider_status = Some(status.to_owned());
    Some(BilletWrite::Moved { from: billet, to })
}

/// The writes that take `entry` to `next`, `amount` more given back: the entry (under its
/// version), its rows, the day's counts, `payment.refunded`, and the list of payments to refund.
pub fn refund_writes(entry: &Entry, next: &Entry, amount: Money) -> Result<Vec<Write>, Refusal> {
    let event = crate::events::record(entry.account_id, crate::events::PAYMENT_REFUNDED, payment_event(next))?;
    let mut writes = vec![replaced(entry, next)?, event, statement::refunded(entry, amount, today())];
    writes.extend(rows::moved(entry, next)?);
    if entry.outcome == Outcome::ToRefund {
        match next.status() {
            super::ledger::Status::Refunded => {
                let (pk, sk) = ToRefund(entry.clone()).key(());
                writes.push(Write::delete(pk, sk));
            }
            _ => writes.push(stored::put(&ToRefund(next.clone()), ())?),
        }
    }
    Ok(writes)
}
