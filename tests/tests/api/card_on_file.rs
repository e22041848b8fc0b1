//! A card on file (beyond the spec): the payer of a schedule's billing saves a card on the payer
//! page (a SetupIntent at localstripe, confirmed as `confirmCardSetup` of the Stripe.js stand-in does), and the
//! schedule's next cycle is charged off-session when its billet is registered, once; a declined
//! card leaves the cycle's billing open and payable, and the payer is sent a reminder with its link.

use billing_api::reminders::providers::Providers;
use serde_json::{json, Value};

use super::billings::{setup, Setup};
use super::support::Api;

/// A server on a table of its own, an account on it with its gateway on at localstripe.
async fn start() -> (Api, Setup) {
    let api =
        Api::on(infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await).await;
    let made =
        infra::ops::gateway::local_setup(&api.server.store, api.account_id, &api.server.base_url, false).await.unwrap();
    assert!(made.is_some(), "localstripe (LOCAL_STRIPE_URL, LOCAL_STRIPE_JS_URL: infra/test starts it)");
    let s = setup(&api).await;
    (api, s)
}

fn day(text: &str) -> chrono::NaiveDate {
    text.parse().unwrap()
}

/// The billing cycle `k` (1, 2, …) of the schedule made, its billet registered: its id and token.
async fn cycle(api: &Api, schedule: i64, k: usize) -> (i64, String) {
    let listed = api.get(&format!("/v1/billings?billing_id={schedule}&per_page=100")).await.expect(200).body;
    let mut ids: Vec<i64> = listed["billings"].as_array().unwrap().iter().map(|b| b["id"].as_i64().unwrap()).collect();
    ids.sort();
    let id = ids[k - 1];
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    let url = shown["bank_billets"][0]["url"].as_str().unwrap();
    (id, url.rsplit('/').next().unwrap().to_owned())
}

/// Saves card `number` on the payer page of billet `token` as the saving page's script does:
/// the page's SetupIntent, its confirmation at the gateway (the Stripe.js stand-in's call), then
/// the page's confirmation; what the page answers at the end.
async fn save_card(api: &Api, token: &str, number: &str) -> Value {
    let http = reqwest::Client::new();
    let page = api.server.url(&format!("/pay/{token}/cartao/salvar"));
    let opened: Value = http.post(&page).send().await.unwrap().json().await.unwrap();
    let setup = opened["setup"].as_str().unwrap_or_else(|| panic!("{opened}"));
    let js = std::env::var("LOCAL_STRIPE_JS_URL").expect("infra/test starts localstripe");
    let confirm = format!("{}/v1/setup_intents/{setup}/confirm", js.trim_end_matches("/v3/"));
    let card = json!({"number": number, "exp_month": "12", "exp_year": "2030", "cvc": "123"});
    let sent = json!({"key": opened["publishable_key"], "client_secret": opened["client_secret"], "card": card});
    let confirmed = http.post(&confirm).json(&sent).send().await.unwrap();
    assert!(confirmed.status().is_success(), "{}", confirmed.text().await.unwrap());
    http.post(format!("{page}/{setup}")).send().await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn a_saved_card_pays_the_next_cycle_once_and_a_declined_one_leaves_it_open_and_told() {
    let (api, s) = start().await;
    let body = json!({"schedule": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact,
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}],
        "period": "monthly", "due_day": 10, "start_date": "2031-01-01", "cycles": 3
    }});
    let schedule = api.post("/v1/schedules", &body).await.expect(201).body["id"].as_i64().unwrap();
    assert_eq!(api.server.issue_schedules(day("2031-01-01")).await, 1);
    assert_eq!(api.server.register_billets().await, 1);
    let (first, token) = cycle(&api, schedule, 1).await;
    assert_eq!(api.server.release_cards().await, 0, "no card on file yet: nothing to charge");

    // The billet page offers it; the saving page takes the card through the gateway alone.
    let page = api.http.get(api.server.url(&format!("/pay/{token}"))).send().await.unwrap().text().await.unwrap();
    assert!(page.contains(&format!("{token}/cartao/salvar")), "{page}");
    let saving = api.http.get(api.server.url(&format!("/pay/{token}/cartao/salvar"))).send().await.unwrap();
    let policy = saving.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(saving.text().await.unwrap().contains("Salvar cartão"));
    assert!(policy.contains("script-src 'sha256-"), "{policy}");
    let saved = save_card(&api, &token, "4242424242424242").await;
    assert_eq!(saved["saved"], true, "{saved}");

    // The next cycle is charged when its billet is registered, and once.
    assert_eq!(api.server.issue_schedules(day("2031-02-01")).await, 1);
    assert_eq!(api.server.register_billets().await, 1);
    assert_eq!(api.server.release_cards().await, 1);
    let (second, _) = cycle(&api, schedule, 2).await;
    let paid = api.get(&format!("/v1/billings/{second}")).await.expect(200).body;
    assert_eq!(
        (paid["status"].as_str(), paid["gw_received_with"].as_str()),
        (Some("paid"), Some("credit_card")),
        "{paid}"
    );
    assert_eq!(paid["gw_gross_amount"], "150.00");
    assert_eq!(api.server.deliver_again(&api.server.card_releases_queue_url).await, 1);
    api.server.release_cards().await;
    let again = api.get(&format!("/v1/billings/{second}")).await.expect(200).body;
    assert_eq!(again["gw_gross_amount"], "150.00", "charged once: {again}");
    let first_shown = api.get(&format!("/v1/billings/{first}")).await.expect(200).body;
    assert_eq!(first_shown["status"], "opened", "the cycle it was saved on is not charged");

    // A card the issuer declines: saved, but its charge is refused.
    let replaced = save_card(&api, &token, "4000000000000341").await;
    assert_eq!(replaced["saved"], true, "{replaced}");
    assert_eq!(api.server.issue_schedules(day("2031-03-01")).await, 1);
    assert_eq!(api.server.register_billets().await, 1);
    assert_eq!(api.server.release_cards().await, 1);
    let (third, third_token) = cycle(&api, schedule, 3).await;
    let open = api.get(&format!("/v1/billings/{third}")).await.expect(200).body;
    assert_eq!(open["status"], "opened", "{open}");
    let page = api.http.get(api.server.url(&format!("/pay/{third_token}"))).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 200, "still payable on its page");
    // The payer is sent the reminder with the link at once.
    let providers =
        Providers::new(&api.server.config, billing_api::reminders::providers::default_sender(), None, 1000.0);
    api.server.send_reminders(day("2000-01-03"), &providers).await;
    let told = api.get(&format!("/v1/billings/{third}")).await.expect(200).body;
    let deliveries = told["billing_reminder_deliveries"].as_array().unwrap();
    assert_eq!(deliveries.len(), 1, "{told}");
    assert_eq!(deliveries[0]["channel"], "email");
}

/// A card at localstripe for a customer of its own (as a SetupIntent authenticated by the payer
/// with 3-D Secure leaves one): `(customer, payment method)`.
async fn card_at_localstripe(number: &str) -> (String, String) {
    let api = std::env::var("LOCAL_STRIPE_URL").expect("infra/test starts localstripe");
    let http = reqwest::Client::new();
    let post = |path: &str, form: Vec<(&str, &str)>| {
        let request = http.post(format!("{api}{path}")).bearer_auth("sk_test_card_on_file").form(&form);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let customer = post("/v1/customers", vec![]).await["id"].as_str().unwrap().to_owned();
    let card = [("type", "card"), ("card[number]", number), ("card[exp_month]", "12"), ("card[exp_year]", "2030")];
    let method = post("/v1/payment_methods", [card.as_slice(), &[("card[cvc]", "123")]].concat()).await;
    let method = method["id"].as_str().unwrap().to_owned();
    post(&format!("/v1/payment_methods/{method}/attach"), vec![("customer", &customer)]).await;
    (customer, method)
}

#[tokio::test]
async fn a_charge_that_asks_for_authentication_leaves_the_cycle_open_and_its_intent_cancelled() {
    let (api, s) = start().await;
    let body = json!({"schedule": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact,
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "80.00"}],
        "period": "monthly", "due_day": 5, "start_date": "2031-01-01", "cycles": 2
    }});
    let schedule = api.post("/v1/schedules", &body).await.expect(201).body["id"].as_i64().unwrap();
    // A card Stripe asks to authenticate on every charge (off-session too: the payer is not there).
    let (customer, payment_method) = card_at_localstripe("4000002760003184").await;
    let card = billing_api::payments::card::on_file::SavedCard {
        account_id: api.account_id,
        schedule_id: billing_api::values::BillingId::new(schedule),
        customer,
        payment_method,
        setup_intent: "seti_authenticated_by_the_payer".into(),
        saved_at: billing_api::values::Timestamp::now(),
    };
    api.server.store.write(vec![billing_api::payments::card::on_file::keep(&card).unwrap()]).await.unwrap();

    assert_eq!(api.server.issue_schedules(day("2031-01-01")).await, 1);
    assert_eq!(api.server.register_billets().await, 1);
    assert_eq!(api.server.release_cards().await, 1);
    let (id, _) = cycle(&api, schedule, 1).await;
    let open = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!(open["status"], "opened", "{open}");
    assert_eq!(open["gw_received_with"], Value::Null, "no card payment kept on it: {open}");
    // Its off-session intent, left waiting for the payer, was cancelled at the gateway.
    let listed: Value = reqwest::Client::new()
        .get(format!("{}/v1/payment_intents?limit=100", std::env::var("LOCAL_STRIPE_URL").unwrap()))
        .bearer_auth("sk_test_card_on_file")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let table = api.server.store.table().to_owned();
    let ours: Vec<&Value> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["metadata"]["service"] == table.as_str() && i["metadata"]["billing_id"] == id.to_string().as_str()
        })
        .collect();
    assert_eq!(ours.len(), 1, "{listed}");
    assert_eq!(ours[0]["status"], "canceled", "{}", ours[0]);
}
