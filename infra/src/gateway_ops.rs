//! The ops side of card payments (`infra/ops gateway …`): an account's checkout gateway and its
//! keys, a billing's card payment captured, released, refunded or read back, the funds' daily
//! availability step in this process.

use anyhow::Context as _;
use billing_api::payments::gateway::{self, stripe::Credentials, sync, sync::Act};
use billing_api::store::Store;
use billing_api::values::{AccountId, BillingId};
use serde_json::{json, Value};

use crate::ops::cli::GatewayCommand;

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
            let link = gateway::set_up(store, account, &credentials, manual_capture).await?;
            Ok(shown(&link))
        }
        GatewayCommand::Show { account } => {
            let link = gateway::link(store, account).await?.context("the account has no checkout gateway")?;
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
            let report = Box::pin(gateway::available::run(store, day)).await?;
            Ok(json!({ "day": day, "found": report.found, "made_available": report.made_available }))
        }
    }
}

/// A gateway link as the operator sees it (never its keys).
fn shown(link: &gateway::Link) -> Value {
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
    let link = gateway::switch(store, account, enabled).await?.context("the account has no checkout gateway")?;
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
            let link = gateway::link(store, account).await?.context("the account has no checkout gateway")?;
            let client = gateway::registry().gateway(&link.secret_id).await?;
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
        "gw_card": billing.gw_card,
    }))
}

/// The keys of `account` on `store`'s table at the local stack's localstripe (`LOCAL_STRIPE_URL`,
/// with its Stripe.js stand-in at `LOCAL_STRIPE_JS_URL`: `infra/lib.sh` starts both); none without
/// it. Any `sk_` key is one to localstripe; the signing secret is the account's and the table's.
pub fn local_credentials(store: &Store, account: AccountId) -> Option<Credentials> {
    let api = std::env::var("LOCAL_STRIPE_URL").ok().filter(|u| !u.is_empty())?;
    let js = std::env::var("LOCAL_STRIPE_JS_URL").ok().filter(|u| !u.is_empty())?;
    let table: String = store.table().chars().filter(char::is_ascii_alphanumeric).collect();
    Some(Credentials {
        secret_key: format!("sk_test_local_{account}"),
        publishable_key: format!("pk_test_local_{account}"),
        webhook_secret: format!("whsec_local_{table}_{account}"),
        previous_webhook_secret: None,
        api_url: Some(api),
        js_url: Some(js),
    })
}

/// Turns `account`'s gateway on at the local localstripe, `manual_capture` or not, and has
/// localstripe send its events to `server` (the dev server's address:
/// `<server>/gateway/stripe/<account>`). `None` without a local localstripe.
pub async fn local_setup(
    store: &Store,
    account: AccountId,
    server: &str,
    manual_capture: bool,
) -> anyhow::Result<Option<gateway::Link>> {
    let Some(credentials) = local_credentials(store, account) else { return Ok(None) };
    let link = gateway::set_up(store, account, &credentials, manual_capture).await?;
    let api = credentials.api_url.clone().unwrap_or_default();
    let endpoint = format!("{}/gateway/stripe/{account}", server.trim_end_matches('/'));
    let name = format!("{}-{account}", store.table());
    let answer = billing_api::config::http_client()
        .post(format!("{api}/_config/webhooks/{name}"))
        .form(&[("url", endpoint.as_str()), ("secret", credentials.webhook_secret.as_str())])
        .send()
        .await
        .context("registering the webhook at localstripe")?;
    anyhow::ensure!(answer.status().is_success(), "localstripe refused the webhook: {}", answer.status());
    Ok(Some(link))
}
