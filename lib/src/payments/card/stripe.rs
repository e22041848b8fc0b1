//! Stripe, the first checkout gateway: its REST API (form-encoded requests, the account's secret
//! key as a bearer token, `Idempotency-Key` on what makes things), its webhooks' signature
//! (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`), and its objects read into
//! the gateway's own words ([`Intent`], [`Told`]).
//!
//! What reaches Stripe is the account's secret ([`Credentials`], in Secrets Manager), never the
//! table or the logs.

use std::time::Duration;

use anyhow::Context as _;
use aws_lc_rs::{constant_time, hmac};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Gateway, GatewayError, Intent, Opening, Paid, Rejected, Told};
use crate::billings::card::{Dispute, DisputeStatus, Method, Review, Stage};
use crate::values::{AccountId, BilletId, BillingId, Money, Timestamp};

/// Stripe's API, when the secret names none.
pub const API_URL: &str = "https://api.stripe.com";
/// Stripe.js, when the secret names none.
pub const JS_URL: &str = "https://js.stripe.com/v3/";
/// Where Stripe.js frames its 3-D Secure pages.
pub const HOOKS_ORIGIN: &str = "https://hooks.stripe.com";

/// How old a webhook's signed time may be (Stripe's libraries' default).
pub const TOLERANCE_SECONDS: i64 = 300;

/// Each call's limit (connect and answer).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What the service needs to work with an account's Stripe account, as kept in its secret (JSON).
#[derive(Clone, Serialize, Deserialize, PartialEq)]
pub struct Credentials {
    /// `sk_live_…` (or a restricted key with PaymentIntents, Refunds, Balance read).
    pub secret_key: String,
    /// `pk_live_…`: what the payer's page gives Stripe.js.
    pub publishable_key: String,
    /// `whsec_…`: the signing secret of the webhook endpoint that sends to the service.
    pub webhook_secret: String,
    /// The signing secret being rolled out of use (Stripe signs with both while it rolls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_webhook_secret: Option<String>,
    /// Stripe's API and Stripe.js, when not Stripe's own (a stand-in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub js_url: Option<String>,
}

impl std::fmt::Debug for Credentials {
    /// Never a key or a secret, even in a log of a failure.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("publishable_key", &self.publishable_key)
            .field("api_url", &self.api_url)
            .field("js_url", &self.js_url)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// Why these cannot be used, if they cannot (checked by `infra/ops gateway setup`).
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.secret_key.starts_with("sk_") || self.secret_key.starts_with("rk_"),
            "secret_key is not a Stripe secret key (sk_… or rk_…)"
        );
        anyhow::ensure!(
            self.publishable_key.starts_with("pk_"),
            "publishable_key is not a Stripe publishable key (pk_…)"
        );
        anyhow::ensure!(
            self.webhook_secret.starts_with("whsec_"),
            "webhook_secret is not a Stripe signing secret (whsec_…)"
        );
        for url in [&self.api_url, &self.js_url].into_iter().flatten() {
            url::Url::parse(url).with_context(|| format!("{url} is not a URL"))?;
        }
        Ok(())
    }

    pub fn api_url(&self) -> &str {
        self.api_url.as_deref().unwrap_or(API_URL).trim_end_matches('/')
    }

    pub fn js_url(&self) -> &str {
        self.js_url.as_deref().unwrap_or(JS_URL)
    }
}

/// The origin (`scheme://host[:port]`) of a URL.
pub fn origin(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    Some(url.origin().ascii_serialization()).filter(|o| o != "null")
}

/// A client of one account's Stripe account.
pub struct Stripe {
    pub credentials: Credentials,
    http: reqwest::Client,
}

impl crate::payments::secrets::FromSecret for Stripe {
    type Credentials = Credentials;
    const SECRET: &'static str = "the gateway secret";

    fn from_credentials(credentials: Credentials) -> anyhow::Result<Stripe> {
        Stripe::new(credentials)
    }

    fn credentials(&self) -> &Credentials {
        &self.credentials
    }
}

impl Stripe {
    pub fn new(credentials: Credentials) -> anyhow::Result<Stripe> {
        credentials.check()?;
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(crate::config::public_tls()?)
            .no_proxy()
            .timeout(CALL_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .context("the Stripe client")?;
        Ok(Stripe { credentials, http })
    }

    pub(super) async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        form: &[(String, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, GatewayError> {
        let url = format!("{}{path}", self.credentials.api_url());
        let mut request = self.http.request(method.clone(), &url).bearer_auth(&self.credentials.secret_key);
        if method == reqwest::Method::GET {
            request = request.query(form);
        } else {
            let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
            request = request.header("content-type", "application/x-www-form-urlencoded").body(body);
        }
        if let Some(key) = idempotency_key {
            request = request.header("idempotency-key", key);
        }
        let answer = request.send().await.map_err(|e| GatewayError::Unavailable(format!("{path}: {e}")))?;
        let status = answer.status().as_u16();
        let bytes = answer.bytes().await.map_err(|e| GatewayError::Unavailable(format!("reading {path}: {e}")))?;
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        match status {
            200..=299 => Ok(body),
            408 | 409 | 425 | 429 | 500..=599 => Err(GatewayError::Unavailable(format!("{path} answered {status}"))),
            _ => {
                let message = body["error"]["message"].as_str().unwrap_or("refused").to_owned();
                Err(GatewayError::Refused { status, detail: message })
            }
        }
    }

    /// The intent, its charge and the charge's balance transaction and card, read back.
    pub(super) async fn read(&self, id: &str) -> Result<Option<Intent>, GatewayError> {
        let query = [("expand[]".to_owned(), "latest_charge.balance_transaction".to_owned())];
        let body = match self
            .call(reqwest::Method::GET, &format!("/v1/payment_intents/{}", path_part(id)), &query, None)
            .await
        {
            Ok(body) => body,
            Err(GatewayError::Refused { status: 404, .. }) => return Ok(None),
            Err(other) => return Err(other),
        };
        let mut intent = intent(&body)?;
        // A card's brand and funding: in the charge's details (Stripe), else its payment method.
        if let (Some(paid), Some(method_id)) = (intent.paid.as_mut(), body["latest_charge"]["payment_method"].as_str())
        {
            if paid.method.is_none() {
                let path = format!("/v1/payment_methods/{}", path_part(method_id));
                if let Ok(found) = self.call(reqwest::Method::GET, &path, &[], None).await {
                    let card = if found["card"].is_object() { &found["card"] } else { &found };
                    paid.method = Some(method_of(card, 1));
                }
            }
        }
        Ok(Some(intent))
    }
}

/// An id in a path: Stripe's ids are letters, digits and `_`; anything else is not one of them.
pub(super) fn path_part(id: &str) -> String {
    id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

fn cents(value: &Value) -> Money {
    Money::new(rust_decimal::Decimal::new(value.as_i64().unwrap_or(0), 2))
}

fn unix(value: &Value) -> Option<Timestamp> {
    let at = chrono::DateTime::from_timestamp(value.as_i64()?, 0)?;
    Some(Timestamp(at.with_timezone(&crate::values::calendar::sao_paulo())))
}

fn method_of(card: &Value, installments: i64) -> Method {
    Method::of(
        card["brand"].as_str().unwrap_or_default(),
        card["funding"].as_str().unwrap_or("credit"),
        installments,
        card["last4"].as_str().unwrap_or_default(),
    )
}

/// A PaymentIntent object (its `latest_charge` expanded or not) in the gateway's words.
fn intent(body: &Value) -> Result<Intent, GatewayError> {
    let id = body["id"].as_str().ok_or_else(|| GatewayError::Unavailable("a PaymentIntent without id".into()))?;
    let stage = match body["status"].as_str().unwrap_or_default() {
        "requires_action" | "processing" => Stage::Pending,
        "requires_capture" => Stage::Authorized,
        "succeeded" => Stage::Succeeded,
        "canceled" => Stage::Canceled,
        _ => Stage::Open,
    };
    let metadata = &body["metadata"];
    let number = |key: &str| metadata[key].as_str().and_then(|v| v.parse::<i64>().ok()).filter(|v| *v > 0);
    let charge = &body["latest_charge"];
    let paid = (stage == Stage::Succeeded && charge.is_object()).then(|| {
        let balance = &charge["balance_transaction"];
        let captured = cents(&charge["amount_captured"]);
        let amount = if captured.is_positive() { captured } else { cents(&charge["amount"]) };
        let fee = if balance.is_object() { cents(&balance["fee"]) } else { Money::ZERO };
        let details = &charge["payment_method_details"]["card"];
        let installments = details["installments"]["plan"]["count"].as_i64().unwrap_or(1);
        Paid {
            amount,
            fee,
            net: if balance.is_object() { cents(&balance["net"]) } else { amount - fee },
            paid_at: unix(&charge["created"]),
            available_on: if balance.is_object() { unix(&balance["available_on"]) } else { None },
            refunded: cents(&charge["amount_refunded"]),
            method: details.is_object().then(|| method_of(details, installments)),
        }
    });
    Ok(Intent {
        id: id.to_owned(),
        stage,
        amount: cents(&body["amount"]),
        client_secret: body["client_secret"].as_str().map(str::to_owned),
        account: number("account_id").map(AccountId::new),
        billing: number("billing_id").map(BillingId::new),
        billet: number("billet_id").map(BilletId::new),
        service: metadata["service"].as_str().unwrap_or_default().to_owned(),
        paid,
    })
}

/// Whose an intent is, in its metadata (and what the account's Stripe dashboard shows:
/// localstripe takes no `description`).
pub(super) fn metadata(opening: &Opening) -> [(&'static str, String); 6] {
    [
        ("metadata[description]", opening.description.clone()),
        ("metadata[account_id]", opening.account.to_string()),
        ("metadata[billing_id]", opening.billing.to_string()),
        ("metadata[billet_id]", opening.billet.to_string()),
        ("metadata[day]", opening.day.to_string()),
        ("metadata[service]", opening.service.clone()),
    ]
}

impl Gateway for Stripe {
    async fn open(&self, opening: &Opening) -> Result<Intent, GatewayError> {
        let cents = (opening.amount.get() * rust_decimal::Decimal::ONE_HUNDRED).round().to_string();
        let form: Vec<(String, String)> = [
            ("amount", cents),
            ("currency", "brl".to_owned()),
            ("capture_method", if opening.manual_capture { "manual" } else { "automatic" }.to_owned()),
            ("payment_method_types[0]", "card".to_owned()),
        ]
        .into_iter()
        .chain(metadata(opening))
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let body = self.call(reqwest::Method::POST, "/v1/payment_intents", &form, Some(&opening.key)).await?;
        intent(&body)
    }

    async fn intent(&self, id: &str) -> Result<Option<Intent>, GatewayError> {
        self.read(id).await
    }

    async fn capture(&self, id: &str) -> Result<(), GatewayError> {
        let path = format!("/v1/payment_intents/{}/capture", path_part(id));
        self.call(reqwest::Method::POST, &path, &[], Some(&format!("capture-{id}"))).await.map(|_| ())
    }

    async fn release(&self, id: &str) -> Result<(), GatewayError> {
        let path = format!("/v1/payment_intents/{}/cancel", path_part(id));
        self.call(reqwest::Method::POST, &path, &[], Some(&format!("cancel-{id}"))).await.map(|_| ())
    }

    async fn refund(&self, id: &str, amount: Option<crate::values::Money>, key: &str) -> Result<String, GatewayError> {
        let mut form = vec![("payment_intent".to_owned(), id.to_owned())];
        form.extend(amount.map(|amount| ("amount".to_owned(), amount.in_cents().to_string())));
        let refund = self.call(reqwest::Method::POST, "/v1/refunds", &form, Some(key)).await?;
        Ok(refund.get("id").and_then(Value::as_str).unwrap_or_default().to_owned())
    }

    fn told(&self, signature: Option<&str>, body: &[u8], now: i64) -> Result<Told, Rejected> {
        let secrets: Vec<&str> = std::iter::once(self.credentials.webhook_secret.as_str())
            .chain(self.credentials.previous_webhook_secret.as_deref())
            .collect();
        verify(signature, body, &secrets, now)?;
        let event: Value = serde_json::from_slice(body).map_err(|_| Rejected::Malformed("not JSON".into()))?;
        Ok(told(&event))
    }
}

/// Checks a `Stripe-Signature` header against the body: some `v1` signature made with one of
/// `secrets` over `<t>.<body>`, its `t` within [`TOLERANCE_SECONDS`] of `now` (either way).
pub fn verify(header: Option<&str>, body: &[u8], secrets: &[&str], now: i64) -> Result<(), Rejected> {
    let header = header.ok_or(Rejected::Unsigned)?;
    let mut at = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => at = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.extend(hex::decode(value).ok()),
            _ => {}
        }
    }
    let at = at.ok_or(Rejected::Unsigned)?;
    if signatures.is_empty() {
        return Err(Rejected::Unsigned);
    }
    let mut signed = format!("{at}.").into_bytes();
    signed.extend_from_slice(body);
    let matches = secrets.iter().any(|secret| {
        let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
        let tag = hmac::sign(&key, &signed);
        signatures.iter().any(|s| constant_time::verify_slices_are_equal(tag.as_ref(), s).is_ok())
    });
    if !matches {
        return Err(Rejected::BadSignature);
    }
    if (now - at).abs() > TOLERANCE_SECONDS {
        return Err(Rejected::Stale);
    }
    Ok(())
}

/// The `Stripe-Signature` header of `body` signed with `secret` at `at` (what Stripe sends; the
/// tests and the local stand-ins build events with it).
pub fn sign(body: &[u8], secret: &str, at: i64) -> String {
    let mut signed = format!("{at}.").into_bytes();
    signed.extend_from_slice(body);
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes()), &signed);
    format!("t={at},v1={}", hex::encode(tag.as_ref()))
}

/// What an event says, in the gateway's words: a PaymentIntent's or a charge's news is read back
/// from Stripe (the event only names the intent); a review's and a dispute's are the event's
/// object, with the intent it belongs to.
fn told(event: &Value) -> Told {
    let id = event["id"].as_str().unwrap_or_default().to_owned();
    let object = &event["data"]["object"];
    let kind = event["type"].as_str().unwrap_or_default();
    let intent_of = |o: &Value| o["payment_intent"].as_str().map(str::to_owned);
    match kind.split('.').next().unwrap_or_default() {
        "payment_intent" => match object["id"].as_str() {
            Some(intent) => Told::Intent { event: id, intent: intent.to_owned() },
            None => Told::Other { event: id, kind: kind.to_owned() },
        },
        "review" => match (intent_of(object), object["id"].as_str()) {
            (Some(intent), Some(review)) => {
                let open = object["open"].as_bool().unwrap_or(kind == "review.opened");
                Told::Review { event: id, intent, review: Review { id: review.to_owned(), open } }
            }
            _ => Told::Other { event: id, kind: kind.to_owned() },
        },
        "charge" if kind.starts_with("charge.dispute.") => match (intent_of(object), object["id"].as_str()) {
            (Some(intent), Some(dispute)) => {
                let status = match object["status"].as_str().unwrap_or_default() {
                    "won" | "warning_closed" => DisputeStatus::Won,
                    "lost" => DisputeStatus::Lost,
                    _ => DisputeStatus::Open,
                };
                Told::Dispute { event: id, intent, dispute: Dispute { id: dispute.to_owned(), status } }
            }
            _ => Told::Other { event: id, kind: kind.to_owned() },
        },
        "charge" => match intent_of(object) {
            Some(intent) => Told::Intent { event: id, intent },
            None => Told::Other { event: id, kind: kind.to_owned() },
        },
        _ => Told::Other { event: id, kind: kind.to_owned() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_signature_is_checked_against_the_body_the_secret_and_the_time() {
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(body, "whsec_a", 1_000_000);
        assert_eq!(verify(Some(&header), body, &["whsec_a"], 1_000_100), Ok(()));
        assert_eq!(verify(Some(&header), body, &["whsec_b", "whsec_a"], 1_000_100), Ok(()), "a secret rolling out");
        assert_eq!(verify(Some(&header), body, &["whsec_b"], 1_000_100), Err(Rejected::BadSignature));
        assert_eq!(verify(Some(&header), br#"{"id":"evt_2"}"#, &["whsec_a"], 1_000_100), Err(Rejected::BadSignature));
        assert_eq!(verify(Some(&header), body, &["whsec_a"], 1_000_301), Err(Rejected::Stale));
        assert_eq!(verify(None, body, &["whsec_a"], 1_000_000), Err(Rejected::Unsigned));
        assert_eq!(verify(Some("t=1000000"), body, &["whsec_a"], 1_000_000), Err(Rejected::Unsigned));
    }

    #[test]
    fn events_name_the_intent_and_carry_reviews_and_disputes() {
        let event = |kind: &str, object: Value| json!({"id": "evt_1", "type": kind, "data": {"object": object}});
        assert_eq!(
            told(&event("payment_intent.succeeded", json!({"id": "pi_1"}))),
            Told::Intent { event: "evt_1".into(), intent: "pi_1".into() }
        );
        assert_eq!(
            told(&event("charge.refunded", json!({"id": "ch_1", "payment_intent": "pi_1"}))),
            Told::Intent { event: "evt_1".into(), intent: "pi_1".into() }
        );
        assert_eq!(
            told(&event("review.opened", json!({"id": "prv_1", "payment_intent": "pi_1", "open": true}))),
            Told::Review {
                event: "evt_1".into(),
                intent: "pi_1".into(),
                review: Review { id: "prv_1".into(), open: true }
            }
        );
        let lost = json!({"id": "dp_1", "payment_intent": "pi_1", "status": "lost"});
        assert_eq!(
            told(&event("charge.dispute.closed", lost)),
            Told::Dispute {
                event: "evt_1".into(),
                intent: "pi_1".into(),
                dispute: Dispute { id: "dp_1".into(), status: DisputeStatus::Lost }
            }
        );
        assert!(matches!(told(&event("customer.created", json!({"id": "cus_1"}))), Told::Other { .. }));
    }

    #[test]
    fn an_intent_reads_its_charge_balance_and_card() {
        let body = json!({
            "id": "pi_1", "status": "succeeded", "amount": 2550, "client_secret": "pi_1_secret_x",
            "metadata": {"account_id": "7", "billing_id": "42", "billet_id": "3", "service": "billing-prod"},
            "latest_charge": {"amount": 2550, "amount_captured": 2550, "amount_refunded": 0, "created": 1_800_000_000,
                "balance_transaction": {"fee": 130, "net": 2420, "available_on": 1_800_200_000},
                "payment_method_details": {"card": {"brand": "mastercard", "funding": "credit", "last4": "4444",
                    "installments": {"plan": {"count": 3}}}}}
        });
        let read = intent(&body).unwrap();
        assert_eq!(
            (read.account, read.billing, read.billet),
            (Some(AccountId::new(7)), Some(BillingId::new(42)), Some(BilletId::new(3)))
        );
        let paid = read.paid.unwrap();
        assert_eq!(
            (paid.amount.to_string(), paid.fee.to_string(), paid.net.to_string()),
            ("25.50".into(), "1.30".into(), "24.20".into())
        );
        assert_eq!(paid.method.map(|m| (m.kind, m.code, m.installments)), Some((1, 102, 3)));
        assert!(paid.available_on.is_some());
    }
}
