//! A card on file for a schedule (DESIGN §12): the payer saves a card on the payer page of one of
//! the schedule's billings (a Stripe SetupIntent confirmed by Stripe.js in the payer's browser: the
//! card never reaches the service), and each later cycle's billing is charged off-session when its
//! billet is registered.
//!
//! - **Saving** (`schedule_of`, `open_setup`, `keep_confirmed`): the page asks for a SetupIntent of the schedule (a gateway customer of its own,
//!   the intent's metadata naming account, schedule and deployment); once the browser confirmed
//!   it, the service reads it back and keeps its customer and payment method beside the schedule
//!   (`CARDONFILE` in the schedule's partition). A card saved again replaces the last.
//! - **Charging**: the registration of a cycle's billing writes a card-queue message (`CardRelease`
//!   with `off_session`) in its transaction when the schedule has a card on file; the worker makes
//!   an off-session PaymentIntent confirmed at once, with the idempotency key
//!   `<deployment>-on-file-<schedule>-<billing>` (a billing is one cycle: a redelivery makes no
//!   second charge), and applies a succeeded intent as any card payment (`sync::apply`).
//! - **A decline or a required authentication** leaves the billing open and payable by boleto,
//!   Pix and the card checkout; an intent left waiting is cancelled, and the payer is sent a
//!   reminder of the billing (with its link) on its channels that day.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::stripe::Stripe;
use super::sync::{self, Beside};
use super::{Gateway, GatewayError, Intent, Opening};
use crate::billings::card::Stage;
use crate::billings::compute;
use crate::billings::model::Billing;
use crate::jobs::tasks;
use crate::store::records;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreResult, Write};
use crate::values::{today, AccountId, BillingId, BillingStatus, BillingType, Money, Timestamp};

/// A schedule's card on file, as the gateway saved it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedCard {
    pub account_id: AccountId,
    pub schedule_id: BillingId,
    /// The gateway's customer and payment method.
    pub customer: String,
    pub payment_method: String,
    /// The SetupIntent that saved it.
    pub setup_intent: String,
    pub saved_at: Timestamp,
}

impl Stored for SavedCard {
    const KIND: Option<&'static str> = Some("card_on_file");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment::card_on_file(self.account_id, self.schedule_id)
    }
}

/// The schedule's card on file, if any.
pub async fn saved(store: &Store, account: AccountId, schedule: BillingId) -> StoreResult<Option<SavedCard>> {
    stored::find(store, keys::payment::card_on_file(account, schedule)).await
}

/// The write that keeps `card` (replacing the schedule's last one).
pub fn keep(card: &SavedCard) -> StoreResult<Write> {
    Ok(Write::put(stored::item_of(card, ())?))
}

/// A SetupIntent as the gateway has it.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub id: String,
    /// `requires_payment_method`, `requires_action`, `succeeded`, `canceled`…
    pub status: String,
    pub client_secret: Option<String>,
    pub customer: Option<String>,
    pub payment_method: Option<String>,
    pub account: Option<AccountId>,
    pub schedule: Option<BillingId>,
    pub service: String,
}

fn setup_of(body: &Value) -> Result<Setup, GatewayError> {
    let id = body["id"].as_str().ok_or_else(|| GatewayError::Unavailable("a SetupIntent without id".into()))?;
    let text = |value: &Value| value.as_str().map(str::to_owned);
    let number = |key: &str| body["metadata"][key].as_str().and_then(|v| v.parse::<i64>().ok()).filter(|v| *v > 0);
    Ok(Setup {
        id: id.to_owned(),
        status: body["status"].as_str().unwrap_or_default().to_owned(),
        client_secret: text(&body["client_secret"]),
        customer: text(&body["customer"]),
        payment_method: text(&body["payment_method"]),
        account: number("account_id").map(AccountId::new),
        schedule: number("schedule_id").map(BillingId::new),
        service: body["metadata"]["service"].as_str().unwrap_or_default().to_owned(),
    })
}

fn form(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

impl Stripe {
    /// A SetupIntent for a card on file of `schedule`, with a customer of its own; `key` makes the
    /// same request again the same customer and intent.
    pub async fn save_card(
        &self,
        account: AccountId,
        schedule: BillingId,
        service: &str,
        key: &str,
    ) -> Result<Setup, GatewayError> {
        let metadata = [
            ("metadata[account_id]", account.to_string()),
            ("metadata[schedule_id]", schedule.to_string()),
            ("metadata[service]", service.to_owned()),
        ];
        let customer = self
            .call(reqwest::Method::POST, "/v1/customers", &form(&metadata), Some(&format!("{key}-customer")))
            .await?;
        let customer =
            customer["id"].as_str().ok_or_else(|| GatewayError::Unavailable("a customer without id".into()))?;
        let mut pairs = vec![("customer", customer.to_owned()), ("usage", "off_session".to_owned())];
        pairs.extend(metadata);
        let body = self.call(reqwest::Method::POST, "/v1/setup_intents", &form(&pairs), Some(key)).await?;
        setup_of(&body)
    }

    /// The SetupIntent `id`, read back; `None` when the gateway does not know it.
    pub async fn setup(&self, id: &str) -> Result<Option<Setup>, GatewayError> {
        let path = format!("/v1/setup_intents/{}", super::stripe::path_part(id));
        match self.call(reqwest::Method::GET, &path, &[], None).await {
            Ok(body) => setup_of(&body).map(Some),
            Err(GatewayError::Refused { status: 404, .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// `opening` charged to `card` off-session, confirmed at once (the opening's key: one charge).
    /// A decline or a required authentication is `Refused` (Stripe's 402).
    pub async fn charge_saved(&self, opening: &Opening, card: &SavedCard) -> Result<Intent, GatewayError> {
        let cents = (opening.amount.get() * rust_decimal::Decimal::ONE_HUNDRED).round().to_string();
        let mut pairs = vec![
            ("amount", cents),
            ("currency", "brl".to_owned()),
            ("customer", card.customer.clone()),
            ("payment_method", card.payment_method.clone()),
            ("off_session", "true".to_owned()),
            ("confirm", "true".to_owned()),
        ];
        pairs.extend(super::stripe::metadata(opening));
        let body = self.call(reqwest::Method::POST, "/v1/payment_intents", &form(&pairs), Some(&opening.key)).await?;
        let id = body["id"]
            .as_str()
            .context("a PaymentIntent without id")
            .map_err(|e| GatewayError::Unavailable(e.to_string()))?;
        // Read back whole (its charge, fee and card), as every intent is applied.
        self.read(id).await?.ok_or_else(|| GatewayError::Unavailable(format!("{id} is not found after it was made")))
    }
}

/// The live schedule a billing is a cycle of, if it is one.
pub async fn schedule_of(store: &Store, account: AccountId, billing: &Billing) -> StoreResult<Option<BillingId>> {
    let Some(parent) = billing.parent_id.filter(|_| billing.billing_type == BillingType::Billing) else {
        return Ok(None);
    };
    let schedule = records::find::<Billing>(store, account, parent).await?;
    Ok(schedule.filter(|s| s.billing_type == BillingType::Schedule).map(|s| s.id))
}

/// A SetupIntent of `schedule` for the payer page of `billing` (one per billing and day).
pub async fn open_setup(
    store: &Store,
    gateway: &Stripe,
    account: AccountId,
    billing: &Billing,
    schedule: BillingId,
) -> Result<Setup, GatewayError> {
    let service = super::service(store);
    let key = format!("{service}-setup-{schedule}-{}-{}", billing.id, today());
    gateway.save_card(account, schedule, &service, &key).await
}

/// What a setup the payer's browser confirmed came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// Now the schedule's card on file.
    Saved,
    /// Not one of this schedule's (another account's, schedule's or deployment's, or unknown).
    Unknown,
    /// The gateway did not confirm it (no card, or an authentication not done).
    NotConfirmed,
}

/// Setup `id`, read back from the gateway: one of `schedule`'s that succeeded becomes its card on
/// file (replacing the last).
pub async fn keep_confirmed(
    store: &Store,
    gateway: &Stripe,
    account: AccountId,
    schedule: BillingId,
    id: &str,
) -> anyhow::Result<Kept> {
    let read = match gateway.setup(id).await? {
        Some(read)
            if read.account == Some(account)
                && read.schedule == Some(schedule)
                && read.service == super::service(store) =>
        {
            read
        }
        _ => return Ok(Kept::Unknown),
    };
    let (Some(customer), Some(payment_method)) = (read.customer, read.payment_method) else {
        return Ok(Kept::NotConfirmed);
    };
    if read.status != "succeeded" {
        return Ok(Kept::NotConfirmed);
    }
    let card = SavedCard {
        account_id: account,
        schedule_id: schedule,
        customer,
        payment_method,
        setup_intent: read.id,
        saved_at: Timestamp::now(),
    };
    store.write(vec![keep(&card)?]).await?;
    Ok(Kept::Saved)
}

/// The card queue's task that charges `billing` to its schedule's card on file, when it is a
/// schedule's cycle and the schedule has a card on file (the caller knows its account takes cards).
pub async fn charge_task(store: &Store, account: AccountId, billing: &Billing) -> anyhow::Result<Option<Write>> {
    let Some(schedule) = billing.parent_id.filter(|_| billing.billing_type == BillingType::Billing) else {
        return Ok(None);
    };
    if saved(store, account, schedule).await?.is_none() {
        return Ok(None);
    }
    let message =
        crate::jobs::CardRelease { account_id: account, billing_id: billing.id, intent_id: None, off_session: true };
    Ok(Some(tasks::one(account, message)?))
}

/// What charging a cycle to its card on file came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Collected {
    /// Paid: the intent's payment applied.
    Paid(String),
    /// Declined or waiting for an authentication the payer is not there to give: the billing stays
    /// open and the payer is told.
    Declined,
    /// Nothing to charge: no card on file, no gateway, or the billing is no longer open.
    Nothing,
}

/// Charges billing `billing_id` (a cycle of a schedule, its billet registered) to the schedule's
/// card on file, off-session, once (see the module's documentation).
pub async fn collect(store: &Store, account: AccountId, billing_id: BillingId) -> anyhow::Result<Collected> {
    let Some(billing) = records::find::<Billing>(store, account, billing_id).await? else {
        return Ok(Collected::Nothing);
    };
    let (Some(schedule), Some(billet)) = (billing.parent_id, billing.billet_id) else {
        return Ok(Collected::Nothing);
    };
    if billing.status != BillingStatus::Opened || billing.gw_card.as_ref().is_some_and(|card| card.settled) {
        return Ok(Collected::Nothing);
    }
    let (card, link) = tokio::try_join!(saved(store, account, schedule), super::link(store, account))?;
    let (Some(card), Some(link)) = (card, link.filter(|link| link.enabled)) else {
        return Ok(Collected::Nothing);
    };
    let gateway = super::registry().client(&link.secret_id).await?;
    let today = today();
    let service = super::service(store);
    let opening = Opening {
        account,
        billing: billing.id,
        billet,
        day: today,
        amount: Money::new(compute::compute(&billing.terms(), today).amount_payable),
        manual_capture: false,
        description: format!("Cobrança {}", billing.code),
        key: format!("{service}-on-file-{schedule}-{}", billing.id),
        service,
    };
    match gateway.charge_saved(&opening, &card).await {
        Ok(intent) if intent.stage == Stage::Succeeded => {
            Box::pin(sync::apply(store, account, &intent, &Beside::default())).await?;
            Ok(Collected::Paid(intent.id))
        }
        Ok(intent) => {
            // Waiting for the payer (3-D Secure): not a charge the service can finish; cancelled.
            if let Err(error) = gateway.release(&intent.id).await {
                tracing::warn!(intent = intent.id, %error, "an off-session intent left waiting was not cancelled");
            }
            crate::reminders::remind_now(store, account, &billing, today).await?;
            Ok(Collected::Declined)
        }
        Err(GatewayError::Refused { status, detail }) => {
            tracing::info!(billing = billing.id.get(), status, detail, "the card on file was declined");
            crate::reminders::remind_now(store, account, &billing, today).await?;
            Ok(Collected::Declined)
        }
        Err(error) => Err(error.into()),
    }
}
