//! The card channel (DESIGN §10): a billing paid by card through the account's checkout
//! gateway, on the payer's page.
//!
//! - **The gateway** is a provider behind [`Gateway`]: it makes an intent of a payment
//!   ([`Opening`]), reads one back ([`Intent`]), captures, releases and refunds it, and reads its
//!   signed events ([`Told`]). Stripe is the one we have ([`stripe`]); a second (PagBank, Mercado
//!   Pago) is a second implementation, the workflows unchanged.
//! - **An account's gateway** ([`Link`], `infra/ops gateway setup`): on or off, capture automatic
//!   or manual, its keys in a secret of its own ([`registry`]).
//! - **The payer pays** on the billet's page (`/pay/<token>/cartao`, [`checkout`]): one intent per
//!   billing, day and amount, made idempotently, confirmed by Stripe.js in the payer's browser (the
//!   card never reaches the service).
//! - **What the gateway says moves the billing** ([`sync`]): an intent is always read back from
//!   the gateway (an event only names it), a review or a dispute is taken from its signed event;
//!   each becomes the billing's card (`billings::card::Card`), merged so that order and repetition do not
//!   matter, and the billing's status follows from it (`billings::card::status`). A payment that succeeds
//!   is applied as any payment ([`super::decision`]): once, by the intent's id, the first one
//!   settles (the boleto written off, the Pix charge removed), a later one is kept to refund.
//! - **The funds' availability** ([`available`]): a billing paid by card sits in the availability
//!   index under its escrow end's day until the daily step makes it `available`.

pub mod available;
/// The card payment as a billing keeps it (`billings::card`).
pub mod checkout;
pub mod on_file;
pub mod releases;
pub mod routes;
pub mod stripe;
pub mod sync;

use std::sync::OnceLock;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::channel::Withdrawal;
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::card::{Dispute, Method, Review, Stage};
use crate::billings::model::Billing;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Store, StoreError};
use crate::values::{AccountId, BilletId, BillingId, Money, Timestamp};

/// A payment to make at the gateway: what the payer page asks for a billing on a day.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    pub account: AccountId,
    pub billing: BillingId,
    pub billet: BilletId,
    pub day: NaiveDate,
    pub amount: Money,
    pub manual_capture: bool,
    pub description: String,
    /// The gateway's idempotency key: the same opening again is the same intent.
    pub key: String,
    /// Which deployment makes it ([`service`]).
    pub service: String,
}

/// The name this deployment gives its intents (its table's): an intent another deployment made
/// (a staging stack on the same Stripe account) is not ours, whatever account and billing its
/// metadata name.
pub fn service(store: &Store) -> String {
    store.table().to_owned()
}

/// A payment intent as the gateway has it.
#[derive(Clone, Debug, PartialEq)]
pub struct Intent {
    pub id: String,
    pub stage: Stage,
    pub amount: Money,
    /// What the payer's browser confirms it with.
    pub client_secret: Option<String>,
    /// Whose it is (the intent's metadata, as the service made it).
    pub account: Option<AccountId>,
    pub billing: Option<BillingId>,
    pub billet: Option<BilletId>,
    /// The deployment that made it ([`service`]).
    pub service: String,
    /// Once it succeeded: the payment.
    pub paid: Option<Paid>,
}

/// A succeeded intent's payment.
#[derive(Clone, Debug, PartialEq)]
pub struct Paid {
    pub amount: Money,
    pub fee: Money,
    pub net: Money,
    pub paid_at: Option<Timestamp>,
    /// When the funds become available to the account.
    pub available_on: Option<Timestamp>,
    pub refunded: Money,
    pub method: Option<Method>,
}

/// What a signed event of the gateway says.
#[derive(Clone, Debug, PartialEq)]
pub enum Told {
    /// News of an intent (or of its charge): read it back.
    Intent { event: String, intent: String },
    /// A review of an intent's payment opened or closed.
    Review { event: String, intent: String, review: Review },
    /// A dispute of an intent's payment, as it stands.
    Dispute { event: String, intent: String, dispute: Dispute },
    /// Nothing the service follows.
    Other { event: String, kind: String },
}

/// Why an event is not taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    #[error("no signature")]
    Unsigned,
    #[error("the signature does not match")]
    BadSignature,
    #[error("signed too long ago (or ahead)")]
    Stale,
    #[error("malformed: {0}")]
    Malformed(String),
}

/// A call's failure.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// Worth trying again: the gateway could not be reached, timed out, throttled or failed.
    #[error("gateway unavailable: {0}")]
    Unavailable(String),
    /// The gateway refused the call: trying it again as it is changes nothing.
    #[error("gateway refused ({status}): {detail}")]
    Refused { status: u16, detail: String },
}

/// A checkout gateway: what the workflows ask of one.
#[allow(async_fn_in_trait)] // implemented and called inside the crate only
pub trait Gateway {
    /// Makes the intent of `opening` (the same key again: the same intent).
    async fn open(&self, opening: &Opening) -> Result<Intent, GatewayError>;
    /// The intent `id`, read back; `None` when the gateway does not know it.
    async fn intent(&self, id: &str) -> Result<Option<Intent>, GatewayError>;
    /// Captures an authorized intent.
    async fn capture(&self, id: &str) -> Result<(), GatewayError>;
    /// Releases an authorized (or unconfirmed) intent.
    async fn release(&self, id: &str) -> Result<(), GatewayError>;
    /// Refunds `amount` of a succeeded intent (all that is left when `None`), once per `key`:
    /// the gateway's id of the refund.
    async fn refund(&self, id: &str, amount: Option<crate::values::Money>, key: &str) -> Result<String, GatewayError>;
    /// A webhook call's event, once its signature (`signature`, over `body`, at `now` in Unix
    /// seconds) proves it the gateway's.
    fn told(&self, signature: Option<&str>, body: &[u8], now: i64) -> Result<Told, Rejected>;
}

/// An account's checkout gateway.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub account_id: AccountId,
    /// `stripe`.
    pub provider: String,
    pub enabled: bool,
    /// Capture by the account (`awaiting_capture` until it captures or releases), else at once.
    pub manual_capture: bool,
    /// The secret with its keys ([`secret_id`]).
    pub secret_id: String,
    pub updated_at: Timestamp,
}

impl Stored for Link {
    const KIND: Option<&'static str> = Some("gateway");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::payment::gateway(self.account_id)
    }
}

/// The account's gateway, on or off; `None` when it has none.
pub async fn link(store: &Store, account: AccountId) -> Result<Option<Link>, StoreError> {
    stored::find::<Link>(store, keys::payment::gateway(account)).await
}

/// The client of the account's gateway (on or off); `None` when it has none. `Unavailable` when its
/// secret cannot be read.
pub async fn client(
    store: &Store,
    account: AccountId,
) -> Result<Option<std::sync::Arc<stripe::Stripe>>, crate::refusal::Refusal> {
    let Some(link) = link(store, account).await? else { return Ok(None) };
    registry().client(&link.secret_id).await.map(Some).map_err(crate::refusal::Refusal::Unavailable)
}

/// Where the gateway secrets of the service live (`GATEWAY_SECRET_PREFIX`, else this).
pub const DEFAULT_SECRET_PREFIX: &str = "billing-service/gateway";

/// The secret of an account's gateway on `store`'s table: `<prefix>/<table>/<account>` (the
/// table's name keeps two stacks, or two local tables, of one AWS account apart).
pub fn secret_id(store: &Store, account: AccountId) -> String {
    let prefix = std::env::var("GATEWAY_SECRET_PREFIX").ok().filter(|p| !p.is_empty());
    format!("{}/{}/{account}", prefix.as_deref().unwrap_or(DEFAULT_SECRET_PREFIX), store.table())
}

/// The process's gateway clients, one per secret, read again after
/// [`super::secrets::RELOAD_AFTER`].
pub type Registry = super::secrets::Registry<stripe::Stripe>;

/// The process's registry.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

/// Turns the account's gateway on with these keys (stored first, then the link): what `infra/ops
/// gateway setup` does.
pub async fn set_up(
    store: &Store,
    account: AccountId,
    credentials: &stripe::Credentials,
    manual_capture: bool,
) -> anyhow::Result<Link> {
    credentials.check()?;
    let secret_id = secret_id(store, account);
    super::secrets::store(&registry().secrets().await, &secret_id, credentials).await?;
    registry().forget(&secret_id).await;
    let link = Link {
        account_id: account,
        provider: "stripe".to_owned(),
        enabled: true,
        manual_capture,
        secret_id,
        updated_at: Timestamp::now(),
    };
    store.write(vec![stored::put(&link, ())?]).await?;
    Ok(link)
}

/// Turns the account's gateway on or off (its keys kept); `None` when it has none.
pub async fn switch(store: &Store, account: AccountId, enabled: bool) -> anyhow::Result<Option<Link>> {
    let Some(found) = link(store, account).await? else { return Ok(None) };
    let next = Link { enabled, updated_at: Timestamp::now(), ..found };
    store.write(vec![stored::put(&next, ())?]).await?;
    Ok(Some(next))
}

/// The card channel's room.
pub struct Cards;

impl super::ChannelRoom for Cards {
    const NAME: super::Channel = super::Channel::CreditCard;
    type Report = Intent;

    fn payment(intent: &Intent, billing: BillingId, billet: Option<BilletId>) -> Result<super::Payment, String> {
        let billet = intent.billet.or(billet).ok_or_else(|| super::channel::no_billet(billing))?;
        let card = sync::card_of(intent, &sync::Beside::default());
        match intent.stage {
            Stage::Succeeded => Ok(sync::payment(intent, &card, billet)),
            stage => Err(format!("a intenção {} não foi paga ({stage:?})", intent.id)),
        }
    }

    /// Nothing on the billet: the intent is made at the payer's checkout (one per billing, day and
    /// amount), from the billing's `gw_payment_link`.
    async fn charge(
        _: &crate::accounts::Account,
        _: &Billing,
        _: &mut crate::billets::model::BankBillet,
    ) -> anyhow::Result<()> {
        Ok(())
    }

    /// The billing's intents cancelled at the account's gateway when still open, and applied as the
    /// gateway then has them (`releases`); an account without a gateway has nothing to cancel.
    async fn remove(
        store: &Store,
        account: AccountId,
        billing: BillingId,
        withdrawal: Withdrawal,
    ) -> anyhow::Result<()> {
        let Withdrawal::CardIntents(intent_id) = withdrawal else { return Ok(()) };
        let Some(link) = link(store, account).await? else { return Ok(()) };
        let gateway = registry().client(&link.secret_id).await?;
        let message =
            crate::jobs::CardRelease { account_id: account, billing_id: billing, intent_id, off_session: false };
        releases::release(store, gateway.as_ref(), &message).await
    }

    /// A billing that takes cards (its checkout link, or a card payment begun) and stops being
    /// collectable otherwise than paid by card: its intents, the card's named when still open
    /// (confirming, authorized, or refused and waiting for another card).
    fn withdrawn(_: AccountId, current: &Billing, next: &Billing, _: Option<&BilletWrite>) -> Option<Withdrawal> {
        let closes = current.status.collectable() && !next.status.collectable();
        let card = next.gw_card.as_ref();
        if !closes || card.is_some_and(|c| c.settled) {
            return None;
        }
        let open = card.filter(|c| matches!(c.stage, Stage::Open | Stage::Pending | Stage::Authorized));
        let intent = open.map(|c| c.intent_id.clone());
        (intent.is_some() || next.gw_payment_link.is_some()).then_some(Withdrawal::CardIntents(intent))
    }
}
