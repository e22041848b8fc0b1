//! What the gateway says of an intent, applied to its billing: the one way every event, the payer
//! page's confirmation, a capture, a release and a refund move a billing.
//!
//! The intent is always the gateway's own answer (read back with the account's key), so a forged
//! or stale call can only make the service read the truth again. A review or a dispute (which
//! Stripe tells only by its events, signed) is merged beside it. The billing's card
//! ([`Card`]) takes the furthest of what it had and what it is told, and its status follows
//! ([`card::status`]); the first time the intent has succeeded, its payment goes through the one
//! decision of every payment (`payments::decision`: once by the intent's id, in the billing's
//! transaction), or is kept to refund when the billing was settled otherwise (`payments::keep`).

use chrono::NaiveDate;

use super::{Gateway, GatewayError, Intent};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::card::{self, Card, Dispute, Review, Stage};
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::payments::{self, Channel, Decided, Payment};
use crate::refusal::Refusal;
use crate::store::Store;
use crate::values::calendar::sao_paulo;
use crate::values::{today, AccountId, BillingId, Money, Timestamp};

/// What applying an intent did.
#[derive(Clone, Debug, PartialEq)]
pub enum Synced {
    /// The billing as it now is (moved, or as it was when nothing was new).
    Billing(Box<Billing>),
    /// The intent's payment came after the billing was settled otherwise: kept to refund.
    ToRefund(String),
    /// Not an intent of this account's (no such billing, another account's metadata).
    NotOurs,
}

/// Beside the intent: what its event told of a review or a dispute.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Beside {
    pub review: Option<Review>,
    pub dispute: Option<Dispute>,
    /// The funds are available (the daily step).
    pub available: bool,
}

/// The card an intent makes, with what its event told beside it.
pub fn card_of(intent: &Intent, beside: &Beside) -> Card {
    let paid = intent.paid.as_ref();
    Card {
        intent_id: intent.id.clone(),
        stage: intent.stage,
        amount: paid.map_or(intent.amount, |p| p.amount),
        fee: paid.map_or(Money::ZERO, |p| p.fee),
        net: paid.map_or(Money::ZERO, |p| p.net),
        escrow_end: paid.and_then(|p| p.available_on),
        available: beside.available,
        method: paid.and_then(|p| p.method.clone()),
        refunded: paid.map_or(Money::ZERO, |p| p.refunded),
        review: beside.review.clone(),
        dispute: beside.dispute.clone(),
        settled: false,
        to_refund: false,
    }
}

fn day_of(at: Option<Timestamp>) -> NaiveDate {
    at.map_or_else(today, |t| t.0.with_timezone(&sao_paulo()).date_naive())
}

/// The payment of a succeeded intent of a billing whose current billet is `billet`.
pub(super) fn payment(intent: &Intent, card: &Card, billet: crate::values::BilletId) -> Payment {
    let paid_at = intent.paid.as_ref().and_then(|p| p.paid_at);
    Payment {
        channel: Channel::CreditCard,
        provider_id: intent.id.clone(),
        billet_id: Some(intent.billet.unwrap_or(billet)),
        amount: card.amount,
        paid_on: day_of(paid_at),
        fee: card.fee,
        credit_on: day_of(card.escrow_end.or(paid_at)),
        net_amount: card.net,
        paid_off: None,
    }
}

/// What the rule decided, for after the transaction.
enum After {
    Nothing,
    KeepToRefund(Payment, String),
}

/// Applies `intent` (as the gateway answered it) and what was told beside it to the account's
/// billing it names.
pub async fn apply(store: &Store, account: AccountId, intent: &Intent, beside: &Beside) -> Result<Synced, Refusal> {
    let ours = intent.account == Some(account) && intent.service == super::service(store);
    let Some(billing_id) = intent.billing.filter(|_| ours) else {
        return Ok(Synced::NotOurs);
    };
    let told = card_of(intent, beside);
    let outcome = change(store, account, billing_id, |billing, billet| {
        let told = told.clone();
        async move { rule(store, account, intent, told, billing, billet).await }
    })
    .await;
    let (billing, after) = match outcome {
        Ok(done) => done,
        Err(Refusal::NotFound) => return Ok(Synced::NotOurs),
        Err(other) => return Err(other),
    };
    match after {
        After::Nothing => {}
        After::KeepToRefund(payment, why) => {
            // Kept before (the same event again): `Already`, which says the same.
            payments::keep(store, account, billing_id, &payment, &why, Vec::new()).await?;
            return Ok(Synced::ToRefund(why));
        }
    }
    // What the gateway gave back of a payment that settled the billing, in the ledger too.
    if let Some(card) =
        billing.gw_card.as_ref().filter(|c| c.settled && c.intent_id == intent.id && c.refunded.is_positive())
    {
        if let Some(billet) = billing.billet_id {
            let paid = payment(intent, card, billet);
            Box::pin(payments::record_refund(store, account, &paid, card.refunded)).await?;
        }
    }
    Ok(Synced::Billing(Box::new(billing)))
}

async fn rule(
    store: &Store,
    account: AccountId,
    intent: &Intent,
    told: Card,
    billing: Billing,
    billet: Option<crate::billets::model::BankBillet>,
) -> Result<Ruled<After>, Refusal> {
    let current = billing.gw_card.clone().unwrap_or_default();
    let merged = current.merge(&told);
    if merged.intent_id != told.intent_id {
        // Another intent of the billing got somewhere first: this one's payment, if any, is a
        // second payment.
        return Ok(match (told.stage, billing.billet_id) {
            (Stage::Succeeded, Some(billet)) => {
                let why = format!("a cobrança {} já foi paga por outro pagamento com cartão", billing.id);
                Ruled::Unchanged(After::KeepToRefund(payment(intent, &told, billet), why))
            }
            _ => Ruled::Unchanged(After::Nothing),
        });
    }
    let mut next = Billing { gw_card: Some(merged.clone()), ..billing.clone() };
    let mut billet_write: Option<BilletWrite> = None;
    let mut also = Vec::new();
    if merged.stage == Stage::Succeeded && !merged.settled && !merged.to_refund {
        let billet_id = billing.billet_id.or(intent.billet);
        let Some(billet_id) = billet_id else { return Ok(Ruled::Unchanged(After::Nothing)) };
        let paid = payment(intent, &merged, billet_id);
        match payments::decision(store, account, billing.clone(), billet.as_ref(), &paid).await? {
            // Applied before under another card state (a lost write): the ledger says how it went.
            Decided::Already(outcome) => {
                let settled = outcome == payments::Outcome::Settled;
                next.gw_card = Some(Card { settled, to_refund: !settled, ..merged });
            }
            Decided::Settles { next: settled, billet, also: writes } => {
                next = Billing { gw_card: Some(Card { settled: true, ..merged }), ..*settled };
                billet_write = billet;
                also = writes;
            }
            Decided::ToRefund(why) => {
                let card = Card { to_refund: true, ..merged };
                let next = Billing { gw_card: Some(card), updated_at: Timestamp::now(), ..billing };
                return Ok(Ruled::Changed {
                    next,
                    billet: None,
                    also: Vec::new(),
                    announce: false,
                    then: After::KeepToRefund(paid, why),
                });
            }
        }
    }
    let mut card = next.gw_card.clone().unwrap_or_default();
    // Funds whose escrow ended before today are available now: a billing back from a dispute
    // won after its escrow day (which the daily step, reading a few days back, may never see
    // again). On the escrow day itself the daily step makes it so.
    if card.settled && card.escrow_end.is_some_and(|end| end.date() < today()) {
        card.available = true;
        next.gw_card = Some(card.clone());
    }
    if let Some(status) = card::status(next.status, &card) {
        next.status = status;
    }
    if next.status == billing.status && next.gw_card == billing.gw_card {
        return Ok(Ruled::Unchanged(After::Nothing));
    }
    next.updated_at = Timestamp::now();
    Ok(Ruled::Changed { next, billet: billet_write, also, announce: true, then: After::Nothing })
}

/// Reads the intent `id` back from `gateway` and applies it with what was told `beside` it. An
/// authorization of a billing no longer collectable (paid by boleto or Pix, paid off, cancelled
/// meanwhile) is released at the gateway, so the payer's card is not held for nothing (best
/// effort: the gateway cancels it by itself after seven days). `Err`: the gateway could not be
/// asked (the caller tries again later).
pub async fn read_and_apply(
    store: &Store,
    gateway: &impl Gateway,
    account: AccountId,
    id: &str,
    beside: &Beside,
) -> Result<Synced, Refusal> {
    let intent = match gateway.intent(id).await {
        Ok(Some(intent)) => intent,
        Ok(None) => return Ok(Synced::NotOurs),
        Err(error) => return Err(unavailable(error)),
    };
    let synced = Box::pin(apply(store, account, &intent, beside)).await?;
    let held = |billing: &Billing| {
        !billing.status.collectable()
            && billing.gw_card.as_ref().is_none_or(|card| card.intent_id != intent.id || !card.settled)
    };
    if let Synced::Billing(billing) = &synced {
        if intent.stage == Stage::Authorized && held(billing) {
            if let Err(error) = gateway.release(&intent.id).await {
                tracing::warn!(intent = intent.id, error = %error, "an authorization of a closed billing not released now");
            }
        }
    }
    Ok(synced)
}

/// A gateway's failure as the API answers it: 503 when it could not be reached, 422 with its
/// words when it refused.
pub fn unavailable(error: GatewayError) -> Refusal {
    match error {
        GatewayError::Unavailable(why) => Refusal::Unavailable(anyhow::anyhow!("the checkout gateway: {why}")),
        GatewayError::Refused { detail, .. } => {
            Refusal::Rule { code: "gateway_refused", message: format!("O gateway de pagamento recusou: {detail}") }
        }
    }
}

/// What the account asks of a card payment (the API's `capture`, `release` and `refund`, and
/// `infra/ops gateway`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Capture an authorized payment (manual capture): it is paid.
    Capture,
    /// Release an authorized payment: the billing is collectable again.
    Release,
    /// Give a payment by card back whole: the billing is `returned`.
    Refund,
}

impl Act {
    fn fits(self, card: &Card) -> bool {
        !card.to_refund
            && match self {
                Act::Capture | Act::Release => card.stage == Stage::Authorized,
                Act::Refund => card.stage == Stage::Succeeded && card.settled && card.refunded < card.amount,
            }
    }

    fn refused(self) -> &'static str {
        match self {
            Act::Capture => "A cobrança não tem pagamento com cartão aguardando captura",
            Act::Release => "A cobrança não tem pagamento com cartão aguardando captura para liberar",
            Act::Refund => "A cobrança não tem pagamento com cartão a estornar",
        }
    }
}

/// Does `act` on the card payment of the account's billing `id` at its gateway, then applies the
/// intent as the gateway answers it afterwards: the billing as it then is. 422 when the billing
/// has no card payment in the state `act` needs; 503 when the gateway cannot be reached (nothing
/// changed here; the same call again is safe: the gateway's idempotency keys make it once).
pub async fn act(store: &Store, account: AccountId, id: BillingId, act: Act) -> Result<Billing, Refusal> {
    let (billing, _) = crate::billings::service::whole_or_404(store, account, id).await?;
    let Some(card) = billing.gw_card.clone().filter(|card| act.fits(card)) else {
        let problem = crate::refusal::Problem::general(crate::refusal::Code::NotAllowed, act.refused());
        return Err(Refusal::invalid(problem));
    };
    let gateway = super::client(store, account).await?.ok_or(Refusal::NotFound)?;
    let done = match act {
        Act::Capture => gateway.capture(&card.intent_id).await,
        Act::Release => gateway.release(&card.intent_id).await,
        Act::Refund => gateway.refund(&card.intent_id, None, &format!("refund-{}", card.intent_id)).await.map(|_| ()),
    };
    done.map_err(unavailable)?;
    match Box::pin(read_and_apply(store, gateway.as_ref(), account, &card.intent_id, &Beside::default())).await? {
        Synced::Billing(billing) => Ok(*billing),
        Synced::ToRefund(_) | Synced::NotOurs => {
            Ok(crate::billings::service::whole_or_404(store, account, id).await?.0)
        }
    }
}
