//! The payer's side of a test: the e-mails moto's SES sent them, and their card payment on the
//! payer page through the local Stripe.js stand-in.

/// The e-mails moto's SES sent to exactly `to`, subject and body each, read from the local stack's
/// `/moto-api/data.json` (`AWS_ENDPOINT_URL`, through the fault proxy too).
pub async fn sent_emails(to: &str) -> Vec<(String, String)> {
    use serde_json::Value;
    let endpoint = std::env::var("AWS_ENDPOINT_URL").expect("the local stack (AWS_ENDPOINT_URL)");
    let data: Value = reqwest::get(format!("{endpoint}/moto-api/data.json")).await.unwrap().json().await.unwrap();
    let quoted = Value::String(to.to_owned()).to_string();
    let mut found = Vec::new();
    let mut stack = vec![data["ses"].clone(), data["sesv2"].clone()];
    while let Some(value) = stack.pop() {
        match value {
            // A sent message: to `to`, or another test's.
            Value::Object(map) if map.contains_key("destinations") && map.contains_key("body") => {
                let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
                let ours = map["destinations"].to_string().contains(&quoted);
                found.extend(ours.then(|| (text("subject"), text("body"))));
            }
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

/// A payer pays the billing of the billet page `token` on the server at `root` by card, as the
/// card page's script does: the page's day's intent, the gateway's confirmation through the local
/// Stripe.js stand-in (`LOCAL_STRIPE_JS_URL`, as `confirmCardPayment` does it) with the card
/// `number`, then the page's confirmation. The page's last answer (`{"stage", "message"}`), or
/// `None` when a step got no answer (a server killed) or the page made no intent.
pub async fn pay_by_card(http: &reqwest::Client, root: &str, token: &str, number: &str) -> Option<serde_json::Value> {
    try_card(http, root, token, number).await.map(|(_, page)| page)
}

/// As [`pay_by_card`], and what the gateway's confirmation resolved to as well: `(gateway, page)`,
/// the gateway's `{"error": {type, code, decline_code, message}}` when it refused the card.
pub async fn try_card(
    http: &reqwest::Client,
    root: &str,
    token: &str,
    number: &str,
) -> Option<(serde_json::Value, serde_json::Value)> {
    use serde_json::{json, Value};
    let page = format!("{root}/pay/{token}/cartao");
    let attempt = async {
        let opened: Value = http.post(&page).send().await.ok()?.json().await.ok()?;
        let intent = opened["intent"].as_str()?;
        let js = std::env::var("LOCAL_STRIPE_JS_URL").ok()?;
        let confirm = format!("{}/v1/payment_intents/{intent}/confirm", js.trim_end_matches("/v3/"));
        let card = json!({"number": number, "exp_month": "12", "exp_year": "2030", "cvc": "123"});
        let sent = json!({"key": opened["publishable_key"], "client_secret": opened["client_secret"], "card": card});
        let gateway: Value = http.post(&confirm).json(&sent).send().await.ok()?.json().await.ok()?;
        let answer = http.post(format!("{page}/{intent}")).send().await.ok()?.json::<Value>().await.ok()?;
        Some((gateway, answer))
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), attempt).await.ok().flatten()
}
