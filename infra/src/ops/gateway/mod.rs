//! `ops gateway …`: card payments: an account's checkout gateway (Stripe) and its keys, a
//! billing's card payment captured, released, refunded or read back, the funds' daily
//! availability step in this process. The local stack's gateway is localstripe (`localstripe`).

use anyhow::Context as _;
use billing_api::payments::card::{self, stripe::Credentials, sync, sync::Act};
use billing_api::store::Store;
use billing_api::values::{AccountId, BillingId};
use clap::Subcommand;
use serde_json::{json, Value};

use super::confirm::Destructive;

pub mod localstripe;

pub use localstripe::{local_credentials, local_setup};

/// A billing's card payment.
#[derive(clap::Args, Debug)]
pub struct CardOf {
    /// The account.
    #[arg(long)]
    pub account: AccountId,
    /// The billing.
    #[arg(long)]
    pub billing: BillingId,
}

#[derive(Subcommand, Debug)]
pub enum GatewayCommand {
    /// Turns an account's checkout gateway (Stripe) on with its keys, stored in Secrets
    /// Manager (again: the keys rotated); its billets' pages take cards from then on.
    Setup {
        /// The account.
        #[arg(long)]
        account: AccountId,
        /// `sk_live_…` (or a restricted key `rk_…`).
        #[arg(long, env = "STRIPE_SECRET_KEY", hide_env_values = true)]
        secret_key: String,
        /// `pk_live_…`.
        #[arg(long)]
        publishable_key: String,
        /// The webhook endpoint's signing secret `whsec_…`.
        #[arg(long, env = "STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
        webhook_secret: String,
        /// The signing secret being rolled out (accepted beside the new one).
        #[arg(long)]
        previous_webhook_secret: Option<String>,
        /// Payments wait for the account's capture (`awaiting_capture`).
        #[arg(long)]
        manual_capture: bool,
        /// Stripe's API, when not Stripe's own (a local stand-in such as localstripe).
        #[arg(long)]
        api_url: Option<String>,
        /// Stripe.js, when not Stripe's own (the local stand-in's `/v3/`).
        #[arg(long)]
        js_url: Option<String>,
    },
    /// The account's gateway: on or off, capture, its webhook endpoint's path.
    Show {
        /// The account.
        #[arg(long)]
        account: AccountId,
    },
    /// Turns the account's gateway off (its keys kept): new billets take no cards.
    Off {
        /// The account.
        #[arg(long)]
        account: AccountId,
    },
    /// Turns it back on.
    On {
        /// The account.
        #[arg(long)]
        account: AccountId,
    },
    /// Captures a billing's authorized card payment.
    Capture(CardOf),
    /// Releases a billing's authorized card payment.
    Release(CardOf),
    /// Refunds a billing's card payment whole. Asks first on AWS.
    Refund(CardOf),
    /// Reads a billing's card payment back from the gateway and applies it (a payment that
    /// did not arrive: a lost webhook).
    Sync(CardOf),
    /// Makes `available` the card payments whose funds are by this day (what the daily step
    /// runs).
    Available {
        /// YYYY-MM-DD. Default: today (São Paulo).
        #[arg(long)]
        date: Option<chrono::NaiveDate>,
    },
}

impl GatewayCommand {
    /// What a refund gives back: real money, from the account to the payer's card.
    pub fn destructive(&self) -> Option<Destructive> {
        let GatewayCommand::Refund(of) = self else { return None };
        let (account, billing) = (of.account, of.billing);
        let what =
            format!("refund the card payment of billing {billing} of account {account} whole (through the gateway)");
        Some(Destructive::on(account, what))
    }
}

/// Runs one `gateway` command.
pub async fn run(store: &Store, command: GatewayCommand) -> anyhow::Result<Value> {
    match command {
        GatewayCommand::Setup {
            account,
            secret_key,
            publishable_key,
            webhook_secret,
            previous_webhook_secret,
            manual_capture,
            api_url,
            js_url,
        } => {
            let credentials =
                Credentials { secret_key, publishable_key, webhook_secret, previous_webhook_secret, api_url, js_url };
            let link = card::set_up(store, account, &credentials, manual_capture).await?;
            Ok(shown(&link))
        }
        GatewayCommand::Show { account } => {
            let link = card::link(store, account).await?.context("the account has no checkout gateway")?;
            Ok(shown(&link))
        }
        GatewayCommand::Off { account } => switch(store, account, false).await,
        GatewayCommand::On { account } => switch(store, account, true).await,
        GatewayCommand::Capture(of) => operate(store, of.account, of.billing, Some(Act::Capture)).await,
        GatewayCommand::Release(of) => operate(store, of.account, of.billing, Some(Act::Release)).await,
        GatewayCommand::Refund(of) => operate(store, of.account, of.billing, Some(Act::Refund)).await,
        GatewayCommand::Sync(of) => operate(store, of.account, of.billing, None).await,
        GatewayCommand::Available { date } => {
            let day = date.unwrap_or_else(billing_api::values::today);
            let report = Box::pin(card::available::run(store, day)).await?;
            Ok(json!({ "day": day, "found": report.found, "made_available": report.made_available }))
        }
    }
}

/// A billing's card payment as the operator sees it: its amounts as decimal strings, as the API
/// shows money (the stored card keeps them as numbers).
fn card_shown(card: &billing_api::billings::card::Card) -> anyhow::Result<Value> {
    let mut shown = serde_json::to_value(card)?;
    for (field, amount) in [("amount", card.amount), ("fee", card.fee), ("net", card.net), ("refunded", card.refunded)]
    {
        shown[field] = json!(amount);
    }
    Ok(shown)
}

/// A gateway link as the operator sees it (never its keys).
fn shown(link: &card::Link) -> Value {
    json!({
        "account_id": link.account_id,
        "provider": link.provider,
        "enabled": link.enabled,
        "capture": if link.manual_capture { "manual" } else { "automatic" },
        "secret_id": link.secret_id,
        "webhook_path": format!("/gateway/{}/{}", link.provider, link.account_id),
        "updated_at": link.updated_at,
    })
}

async fn switch(store: &Store, account: AccountId, enabled: bool) -> anyhow::Result<Value> {
    let link = card::switch(store, account, enabled).await?.context("the account has no checkout gateway")?;
    Ok(shown(&link))
}

/// Does `act` on the billing's card payment (none: reads it back and applies it).
async fn operate(store: &Store, account: AccountId, id: BillingId, act: Option<Act>) -> anyhow::Result<Value> {
    let billing = match act {
        Some(act) => Box::pin(sync::act(store, account, id, act)).await.map_err(|e| anyhow::anyhow!("{e}"))?,
        None => {
            let (billing, _) = billing_api::billings::service::whole_or_404(store, account, id)
                .await
                .map_err(|e| anyhow::anyhow!("billing {id}: {e}"))?;
            let card = billing.gw_card.context("the billing has no card payment")?;
            let link = card::link(store, account).await?.context("the account has no checkout gateway")?;
            let client = card::registry().client(&link.secret_id).await?;
            let beside = sync::Beside::default();
            match Box::pin(sync::read_and_apply(store, client.as_ref(), account, &card.intent_id, &beside)).await {
                Ok(sync::Synced::Billing(billing)) => *billing,
                Ok(other) => return Ok(json!({ "result": format!("{other:?}") })),
                Err(error) => anyhow::bail!("{error}"),
            }
        }
    };
    Ok(json!({
        "billing_id": billing.id,
        "status": billing.status,
        "gw_card": billing.gw_card.as_ref().map(card_shown).transpose()?,
    }))
}
