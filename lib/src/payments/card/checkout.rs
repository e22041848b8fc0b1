//! The payer's card checkout on the billet's page: the intent the payer's browser confirms.
//!
//! One intent per billing, day and amount: what `amount_payable` asks that day (fine, interest
//! and discounts as `billings::compute` computes them). The gateway makes it under an idempotency
//! key of those four, and its id is kept in the billing's partition (`keys::payment::gateway_intent`,
//! written only if absent), so a page opened twice, a retried call or two tabs confirm the same
//! intent; a new day or a new amount is a new intent.

use serde::{Deserialize, Serialize};

use super::sync::unavailable;
use super::{Gateway, Intent, Link, Opening};
use crate::billets::model::BankBillet;
use crate::billings::card::Stage;
use crate::billings::compute;
use crate::billings::model::Billing;
use crate::refusal::Refusal;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreResult};
use crate::values::{AccountId, BillingId, Money};

/// The day's intent of a billing, as kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DayIntent {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    pub day: chrono::NaiveDate,
    pub cents: i64,
    pub intent_id: String,
}

impl Stored for DayIntent {
    const KIND: Option<&'static str> = Some("gateway_intent");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment::gateway_intent(self.account_id, self.billing_id, self.day, self.cents)
    }
}

/// The intents the checkout made for the account's billing (one per day and amount the payer
/// opened it), oldest first.
pub async fn made(store: &Store, account: AccountId, billing: BillingId) -> StoreResult<Vec<DayIntent>> {
    let (pk, prefix) = keys::payment::gateway_intents(account, billing);
    stored::with_prefix(store, pk, prefix, true).await
}

/// Why a billing takes no card payment now, in the payer's words; `None` when it takes one.
pub fn closed(billing: &Billing) -> Option<&'static str> {
    if let Some(card) = billing.gw_card.as_ref().filter(|c| !c.to_refund) {
        match card.stage {
            Stage::Succeeded => return Some("Esta cobrança já foi paga com cartão."),
            Stage::Authorized | Stage::Pending => {
                return Some("Um pagamento com cartão desta cobrança já está em análise.")
            }
            Stage::Open | Stage::Canceled => {}
        }
    }
    (!billing.status.collectable()).then_some("Esta cobrança não pode mais ser paga.")
}

/// The intent the payer of `billet` (the billing's current billet) confirms on `day`, made once.
pub async fn intent_of_the_day(
    store: &Store,
    gateway: &impl Gateway,
    link: &Link,
    billing: &Billing,
    billet: &BankBillet,
    day: chrono::NaiveDate,
) -> Result<Intent, Refusal> {
    if let Some(why) = closed(billing) {
        return Err(Refusal::Rule { code: "checkout_closed", message: why.to_owned() });
    }
    let amount = Money::new(compute::compute(&billing.terms(), day).amount_payable);
    let cents = (amount.get() * rust_decimal::Decimal::ONE_HUNDRED).round().try_into().unwrap_or(0_i64);
    let account = link.account_id;
    let (pk, sk) = keys::payment::gateway_intent(account, billing.id, day, cents);
    if let Some(kept) = stored::find::<DayIntent>(store, (pk.clone(), sk.clone())).await? {
        return reuse(gateway, &kept.intent_id).await;
    }
    let opening = Opening {
        account,
        billing: billing.id,
        billet: billet.id,
        day,
        amount,
        manual_capture: link.manual_capture,
        description: format!("Cobrança {} – {}", billing.code, billet.recipient.recipient_full_name),
        key: format!("{}-{account}-{}-{day}-{cents}", super::service(store), billing.id),
        service: super::service(store),
    };
    let made = gateway.open(&opening).await.map_err(unavailable)?;
    let kept = DayIntent { account_id: account, billing_id: billing.id, day, cents, intent_id: made.id.clone() };
    match store.write(vec![stored::insert(&kept, ())?]).await {
        Ok(()) => Ok(made),
        // Another call made the day's intent first (a gateway without idempotency keys made a
        // second one): the first is the one, the second is released.
        Err(error) if error.failed_at(0) => {
            let first = stored::find::<DayIntent>(store, (pk, sk)).await?.map(|k| k.intent_id);
            let first = first.ok_or_else(|| Refusal::Internal(anyhow::anyhow!("the day's intent vanished")))?;
            if first != made.id {
                let _ = gateway.release(&made.id).await;
            }
            reuse(gateway, &first).await
        }
        Err(error) => Err(error.into()),
    }
}

/// A kept intent, read back, while the payer can still confirm it.
async fn reuse(gateway: &impl Gateway, id: &str) -> Result<Intent, Refusal> {
    match gateway.intent(id).await.map_err(unavailable)? {
        Some(intent) if matches!(intent.stage, Stage::Open) => Ok(intent),
        Some(_) => Err(Refusal::Rule {
            code: "checkout_closed",
            message: "O pagamento com cartão de hoje já foi feito ou encerrado.".to_owned(),
        }),
        None => Err(Refusal::Internal(anyhow::anyhow!("the gateway does not know the day's intent {id}"))),
    }
}
