//! The local stack's checkout gateway: localstripe (and its Stripe.js stand-in), which
//! `infra/lib.sh` starts: an account's keys there, and its gateway turned on with localstripe's
//! events sent to the dev server (the dev server's demo, the tests).

use anyhow::Context as _;
use billing_api::payments::card::{self, stripe::Credentials};
use billing_api::store::Store;
use billing_api::values::AccountId;

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
) -> anyhow::Result<Option<card::Link>> {
    let Some(credentials) = local_credentials(store, account) else { return Ok(None) };
    let link = card::set_up(store, account, &credentials, manual_capture).await?;
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
