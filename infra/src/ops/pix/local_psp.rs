//! The local PSP (infra/run and infra/test start it): its credentials for the ops CLI, the tests
//! and the bench, a payer's Pix paid there (`ops pix pay`), its webhook called again, a billing's
//! charge read back, and a client that calls the Pix webhook as the PSP does.

use anyhow::Context as _;
use billing_api::payments::pix::{charge, psp};
use billing_api::store::Store;
use billing_api::values::{AccountId, BilletId, BillingId};
use serde_json::{json, Value};

/// The local PSP's credentials for a Pix key (infra/lib.sh `start_pix`: `LOCAL_PSP_URL` is Prism's
/// proxy when a contract is at hand, else the PSP itself; the token is always asked of the PSP
/// itself, as the contract has no token endpoint).
pub fn local_credentials(pix_key: &str) -> anyhow::Result<psp::Credentials> {
    let var = |name: &str| {
        std::env::var(name).with_context(|| format!("{name} is not set: is the local PSP running (infra/run)?"))
    };
    let certs = std::path::PathBuf::from(var("LOCAL_PIX_CERTS")?);
    let read = |name: &str| {
        std::fs::read_to_string(certs.join(name)).with_context(|| format!("{name} in {}", certs.display()))
    };
    Ok(psp::Credentials {
        base_url: var("LOCAL_PSP_URL")?,
        token_url: Some(format!("{}/oauth/token", var("LOCAL_PSP_DIRECT_URL")?)),
        client_id: local_client_id(),
        client_secret: std::env::var("LOCAL_PSP_CLIENT_SECRET").unwrap_or_else(|_| "local-secret".into()),
        certificate: read("service-client.pem")?,
        private_key: read("service-client.key")?,
        ca_certificate: Some(read("ca.pem")?),
        pix_key: pix_key.to_owned(),
    })
}

/// The local PSP's client id of this table: a receiving user of its own at the local PSP (its
/// charges, webhooks and Pix apart from another table's, whose txids may be the same).
pub fn local_client_id() -> String {
    let base = std::env::var("LOCAL_PSP_CLIENT_ID").unwrap_or_else(|_| "local-client".into());
    format!("{base}-{}", billing_api::config::table_name())
}

/// The local PSP's own address (not through Prism): its payer and state routes.
fn local_psp() -> anyhow::Result<String> {
    std::env::var("LOCAL_PSP_DIRECT_URL")
        .context("LOCAL_PSP_DIRECT_URL is not set: is the local PSP running (infra/run)?")
}

/// A payer's or the PSP's own act on the local PSP (`/_local/rec/approve`, `/_local/rec/cancel`,
/// `/_local/cobr/settle`, `/_local/cobr/fail`…) for this table's receiving user: `body` with its
/// `client`; the PSP's answer.
pub async fn local_act(path: &str, mut body: Value) -> anyhow::Result<Value> {
    body["client"] = Value::String(local_client_id());
    let answer =
        billing_api::config::http_client().post(format!("{}/_local/{path}", local_psp()?)).json(&body).send().await?;
    let status = answer.status();
    let read: Value = answer.json().await?;
    anyhow::ensure!(status.is_success(), "the local PSP answered {status} to {path}: {read}");
    Ok(read)
}

/// Pays the Pix charge of billet `billet` (or of billing `billing`: its current billet) at the
/// local PSP as a payer would, on `date` (default today),
/// the amount the charge asks that day unless `amount` says otherwise; `notify: false` leaves the
/// webhook uncalled (a Pix only the reconciliation will find). The PSP's answer: `endToEndId`,
/// `valor`, `horario`, and the webhook call's status.
pub async fn pay(
    store: &Store,
    account: AccountId,
    billing: Option<BillingId>,
    billet: Option<BilletId>,
    date: Option<chrono::NaiveDate>,
    amount: Option<billing_api::values::Money>,
    notify: bool,
) -> anyhow::Result<Value> {
    let billing = match (billing, billet) {
        (Some(billing), _) => billing,
        (None, Some(billet)) => billing_api::billets::model::billing_of(store, account, billet)
            .await?
            .with_context(|| format!("no billet {billet} in account {account} (a billet registered before billets were found by id: give --billing)"))?,
        (None, None) => anyhow::bail!("name the billet (--billet) or its billing (--billing)"),
    };
    let (found, _) = billing_api::billings::service::whole_or_404(store, account, billing)
        .await
        .map_err(|e| anyhow::anyhow!("billing {billing}: {e}"))?;
    if let Some(billet) = billet {
        anyhow::ensure!(found.billet_id == Some(billet), "billet {billet} is not billing {billing}'s current billet");
    }
    let mut body = json!({ "client": local_client_id(), "txid": charge::txid(account, billing), "notify": notify });
    if let Some(date) = date {
        body["date"] = json!(date.to_string());
    }
    if let Some(amount) = amount {
        body["valor"] = json!(format!("{:.2}", amount.get()));
    }
    let answer =
        billing_api::config::http_client().post(format!("{}/_local/pay", local_psp()?)).json(&body).send().await?;
    let status = answer.status();
    let text: Value = answer.json().await.unwrap_or(Value::Null);
    anyhow::ensure!(status.is_success(), "the local PSP refused the payment ({status}): {text}");
    Ok(text)
}

/// Asks the local PSP to call the webhook again for a Pix it received (a PSP's retry).
pub async fn notify_again(end_to_end_id: &str) -> anyhow::Result<Value> {
    let url = format!("{}/_local/notify", local_psp()?);
    let body = json!({ "client": local_client_id(), "endToEndId": end_to_end_id });
    let answer = billing_api::config::http_client().post(url).json(&body).send().await?;
    Ok(answer.json().await?)
}

/// The local PSP's charge of a billing, with its Pix (tests, the bench); none when it has none.
pub async fn local_charge(account: AccountId, billing: BillingId) -> anyhow::Result<Option<Value>> {
    let body = json!({ "client": local_client_id(), "txid": charge::txid(account, billing) });
    let answer =
        billing_api::config::http_client().post(format!("{}/_local/charge", local_psp()?)).json(&body).send().await?;
    match answer.status().as_u16() {
        404 => Ok(None),
        _ => Ok(Some(answer.error_for_status()?.json().await?)),
    }
}

/// A client that calls the Pix webhook as the local PSP does (trusting the local CA), with the
/// PSP's client certificate or, `with_certificate: false`, without one (tests of the listener).
pub fn psp_side_client(with_certificate: bool) -> anyhow::Result<reqwest::Client> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs = std::path::PathBuf::from(std::env::var("LOCAL_PIX_CERTS").context("LOCAL_PIX_CERTS is not set")?);
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(certs.join("ca.pem"))? {
        roots.add(cert?)?;
    }
    let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots);
    let tls = match with_certificate {
        true => {
            let chain = CertificateDer::pem_file_iter(certs.join("psp-client.pem"))?.collect::<Result<Vec<_>, _>>()?;
            builder.with_client_auth_cert(chain, PrivateKeyDer::from_pem_file(certs.join("psp-client.key"))?)?
        }
        false => builder.with_no_client_auth(),
    };
    Ok(reqwest::Client::builder().use_preconfigured_tls(tls).no_proxy().build()?)
}
