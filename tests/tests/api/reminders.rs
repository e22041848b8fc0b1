//! Reminders to payers: the daily run finds each step's billings by key and e-mails
//! them through moto's SES (read back from `/moto-api/data.json`), WhatsApps them through the
//! local stand-in (infra/local/whatsapp.py, started by infra/test), once whatever runs again; the
//! log in `billing_reminder_deliveries` follows SES's and WhatsApp's events (fed as the providers
//! publish them: `infra::ops::reminders`); a paid billing gets none, an opted-out payer (the public
//! page) none, a bounced address no more; the account's schedule over the API; and a small
//! account's reminders are not held back by a big one's on the queue.
//!
//! Time is a parameter: each test runs its own days years ahead; due dates are business days (a
//! billing due on a weekend is due the next business day). Each test has a table of its own
//! ([`start`]): a day's run reads the due-day index, which moto answers by walking the table, so
//! the shared table of the whole suite would make each run read every other test's items.

use billing_api::billings::compute::compute;
use billing_api::billings::model::Billing;
use billing_api::reminders::providers::Providers;
use billing_api::reminders::{run, send};
use billing_api::store::records;
use billing_api::values::{BillingId, Money};
use chrono::NaiveDate;
use serde_json::{json, Value};

use super::billings::{body, pay_off_body, setup, Setup};
use super::support::Api;

/// A server on a table of its own, and an account on it.
async fn start() -> Api {
    Api::on(infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await).await
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn providers(api: &Api) -> Providers {
    Providers::new(&api.server.config, billing_api::reminders::providers::default_sender(), None, 1000.0)
}

/// A contact of its own, with a cell phone: its e-mail address and phone number are drawn at
/// random, since every test's account is account 1 on a table of its own and the sent e-mails and
/// WhatsApp messages (moto's SES, the stand-in) outlive the table: the suite runs twice, plain and
/// through the fault proxy, on one local stack. Its id, address and phone number (E.164).
async fn payer(api: &Api, name: &str) -> (i64, String, String) {
    let unique = rand::random::<u32>() % 100_000_000;
    let email = format!("{name}-{unique}@example.com");
    let contact = json!({"contact": {
        "full_name": "Maria da Silva", "cpf": infra::testing::cpf(u64::from(unique) + 100_000_000), "email": email,
        "cell_phone_area": "11", "cell_phone_number": format!("9{unique:08}"),
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    let id = api.post("/v1/contacts", &contact).await.expect(201).body["id"].as_i64().unwrap();
    (id, email, format!("+55119{unique:08}"))
}

/// A billing of `contact` due on `due`, its billet issued; its id.
async fn billing_due(api: &Api, s: &Setup, contact: i64, due: NaiveDate) -> i64 {
    let mut sent = body(s);
    sent["billing"]["contact_id"] = json!(contact);
    sent["billing"]["due_date"] = json!(due.to_string());
    let id = api.post("/v1/billings", &sent).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    id
}

/// Runs `day`'s reminders in the process, as `infra/ops reminders run` does.
async fn run_day(api: &Api, on: NaiveDate) -> run::DayReport {
    Box::pin(run::run_day(&api.server.store, &providers(api), on, 4)).await.unwrap()
}

/// The billing's `billing_reminder_deliveries`.
async fn deliveries(api: &Api, id: i64) -> Vec<Value> {
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    shown["billing_reminder_deliveries"].as_array().unwrap().clone()
}

/// The WhatsApp messages the local stand-in took for `to`.
async fn whatsapps_to(to: &str) -> Vec<Value> {
    let base = std::env::var("LOCAL_WHATSAPP_URL").expect("the local WhatsApp stand-in (infra/test starts it)");
    let sent: Value =
        reqwest::get(format!("{base}/_sent?to={}", to.replace('+', "%2B"))).await.unwrap().json().await.unwrap();
    sent.as_array().cloned().unwrap_or_default()
}

/// What the billing asks on `on`, as the e-mail writes it.
async fn payable_on(api: &Api, id: i64, on: NaiveDate) -> String {
    let billing =
        records::find::<Billing>(&api.server.store, api.account_id, BillingId::new(id)).await.unwrap().unwrap();
    let amount = Money::new(compute(&billing.terms(), on).amount_payable);
    format!("R$ {}", billing_api::billets::printing::text::amount(amount))
}

#[tokio::test]
async fn a_billing_due_in_three_days_is_emailed_once_and_its_log_follows_ses() {
    let api = start().await;
    let s = setup(&api).await;
    let (contact, email, _) = payer(&api, "tres-dias").await;
    let (on, due) = (day("2031-01-10"), day("2031-01-13"));
    let id = billing_due(&api, &s, contact, due).await;
    assert!(deliveries(&api, id).await.is_empty());

    let report = run_day(&api, on).await;
    assert!(report.reminders >= 1, "{report:?}");
    let log = deliveries(&api, id).await;
    assert_eq!(log.len(), 1, "{log:?}");
    let entry = &log[0];
    assert_eq!((entry["channel"].as_str(), entry["status"].as_str()), (Some("email"), Some("sent")), "{entry}");
    assert!(entry["attempts_count"].as_i64().unwrap() >= 1 && entry["delivered_at"].is_null(), "{entry}");
    for field in
        ["id", "channel", "status", "delivered_at", "error_message", "attempts_count", "created_at", "updated_at"]
    {
        assert!(entry.get(field).is_some(), "{field} in {entry}");
    }

    let sent = infra::testing::sent_emails(&email).await;
    assert_eq!(sent.len(), 1, "one e-mail to {email}");
    let (subject, html) = &sent[0];
    assert!(subject.contains("vence em 3 dias"), "{subject}");
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    let billet = &shown["bank_billets"][0];
    let (link, line) = (billet["url"].as_str().unwrap(), billet["digitable_line"].as_str().unwrap());
    assert!(html.contains(link), "the payer page's link in the e-mail");
    assert!(html.contains(&format!("{link}/lembretes")), "the unsubscribe link in the e-mail");
    assert!(html.contains(line), "the digitable line {line} in the e-mail");
    let amount = payable_on(&api, id, on).await;
    assert!(html.contains(&amount), "{amount} in the e-mail");

    // The same day again sends nothing new.
    run_day(&api, on).await;
    assert_eq!(infra::testing::sent_emails(&email).await.len(), 1);
    assert_eq!(deliveries(&api, id).await.len(), 1);

    // SES's DELIVERY event moves the entry; a late DELIVERY_DELAY does not move it back.
    let applied =
        infra::ops::reminders::inject_ses_event(&api.server.store, api.account_id, BillingId::new(id), on, "DELIVERY");
    assert_eq!(Box::pin(applied).await.unwrap()["recorded"], 1);
    let late = infra::ops::reminders::inject_ses_event(
        &api.server.store,
        api.account_id,
        BillingId::new(id),
        on,
        "DELIVERY_DELAY",
    );
    Box::pin(late).await.unwrap();
    let entry = deliveries(&api, id).await[0].clone();
    assert_eq!(entry["status"], "delivered", "{entry}");
    assert!(entry["delivered_at"].is_string(), "{entry}");
}

#[tokio::test]
async fn a_paid_billing_and_an_opted_out_payer_get_none() {
    let api = start().await;
    let s = setup(&api).await;
    let (on, due) = (day("2031-02-10"), day("2031-02-13"));
    let (paid_payer, paid_email, _) = payer(&api, "pago").await;
    let paid = billing_due(&api, &s, paid_payer, due).await;
    api.post(&format!("/v1/billings/{paid}/pay_off"), &pay_off_body(&api).await).await.expect(200);
    let (out_payer, out_email, _) = payer(&api, "sem-lembretes").await;
    let opted = billing_due(&api, &s, out_payer, due).await;

    // The payer opts out on the public page: asked first (a link scanner changes nothing), then
    // the button (or a mail client's one-click POST).
    let shown = api.get(&format!("/v1/billings/{opted}")).await.expect(200).body;
    let link = shown["bank_billets"][0]["url"].as_str().unwrap().to_owned();
    let path = format!("{}/lembretes", &link[link.find("/pay/").unwrap()..]);
    let page = |method: reqwest::Method, path: String| {
        let request = api.http.request(method, api.server.url(&path));
        async move {
            let response = request.body("List-Unsubscribe=One-Click").send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };
    let (status, text) = page(reqwest::Method::GET, path.clone()).await;
    assert_eq!(status, 200);
    assert!(text.contains("Não quero mais receber lembretes"), "{text}");
    let contact = api.get(&format!("/v1/contacts/{out_payer}")).await.expect(200).body;
    assert_eq!(contact["reminders_opt_out"], false);
    let (status, text) = page(reqwest::Method::POST, path.clone()).await;
    assert_eq!(status, 200);
    assert!(text.contains("Lembretes cancelados"), "{text}");
    let contact = api.get(&format!("/v1/contacts/{out_payer}")).await.expect(200).body;
    assert_eq!(contact["reminders_opt_out"], true, "{contact}");
    let (status, _) = page(reqwest::Method::GET, "/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/lembretes".into()).await;
    assert_eq!(status, 404);

    run_day(&api, on).await;
    assert!(deliveries(&api, paid).await.is_empty(), "a paid billing gets no reminder");
    assert!(infra::testing::sent_emails(&paid_email).await.is_empty());
    let log = deliveries(&api, opted).await;
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["status"], "skipped");
    assert!(log[0]["error_message"].as_str().unwrap().contains("pediu para não receber"), "{log:?}");
    assert!(infra::testing::sent_emails(&out_email).await.is_empty());

    // The API can opt the payer back in.
    api.patch(&format!("/v1/contacts/{out_payer}"), &json!({"contact": {"reminders_opt_out": false}}))
        .await
        .expect(200);
    let contact = api.get(&format!("/v1/contacts/{out_payer}")).await.expect(200).body;
    assert_eq!(contact["reminders_opt_out"], false);
}

#[tokio::test]
async fn a_bounce_suppresses_the_address_and_whatsapp_outcomes_are_logged() {
    let api = start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let setup_whatsapp = billing_api::reminders::schedule::Setup {
        whatsapp_phone_number_id: Some(Some("phone-number-id-0123456789abcdef".into())),
        ..Default::default()
    };
    infra::ops::reminders::set_up(store, api.account_id, setup_whatsapp).await.unwrap();
    let (contact, email, phone) = payer(&api, "devolvido").await;
    let on = day("2031-03-10");
    // Due on the run's day: the default's step 0 sends by e-mail and WhatsApp.
    let first = billing_due(&api, &s, contact, on).await;
    run_day(&api, on).await;
    let log = deliveries(&api, first).await;
    let status =
        |channel: &str| log.iter().find(|d| d["channel"] == channel).map(|d| d["status"].as_str().unwrap().to_owned());
    assert_eq!((status("email").as_deref(), status("whatsapp").as_deref()), (Some("sent"), Some("sent")), "{log:?}");
    let messages = whatsapps_to(&phone).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["template"], "lembrete_cobranca", "{}", messages[0]);
    assert!(messages[0].to_string().contains("vence hoje"), "{}", messages[0]);

    let id = BillingId::new(first);
    let bounced = infra::ops::reminders::inject_ses_event(store, api.account_id, id, on, "BOUNCE");
    Box::pin(bounced).await.unwrap();
    let failed = infra::ops::reminders::inject_whatsapp_event(
        store,
        api.account_id,
        id,
        on,
        "failed",
        Some("131026 Número sem WhatsApp"),
    );
    Box::pin(failed).await.unwrap();
    let log = deliveries(&api, first).await;
    let email_entry = log.iter().find(|d| d["channel"] == "email").unwrap();
    assert_eq!(email_entry["status"], "bounced");
    assert!(email_entry["error_message"].as_str().unwrap().contains("550 5.1.1"), "{email_entry}");
    let whatsapp_entry = log.iter().find(|d| d["channel"] == "whatsapp").unwrap();
    assert_eq!(whatsapp_entry["status"], "failed");
    assert_eq!(whatsapp_entry["error_message"], "WhatsApp 131026: Número sem WhatsApp");
    let suppressed = infra::ops::reminders::suppressed(store, api.account_id).await.unwrap();
    assert_eq!(suppressed["suppressed"][0]["email"], email.as_str(), "{suppressed}");

    // The next reminder skips the suppressed address; a WhatsApp refused by the provider is
    // logged with its error.
    let next_day = day("2031-03-20");
    let second = billing_due(&api, &s, contact, next_day).await;
    let base = std::env::var("LOCAL_WHATSAPP_URL").unwrap();
    let fail = json!({"to": phone, "status": 400, "times": 1, "message": "Recipient phone number not in allowed list"});
    reqwest::Client::new().post(format!("{base}/_fail")).json(&fail).send().await.unwrap();
    run_day(&api, next_day).await;
    let log = deliveries(&api, second).await;
    let email_entry = log.iter().find(|d| d["channel"] == "email").unwrap();
    assert_eq!(email_entry["status"], "skipped");
    assert!(email_entry["error_message"].as_str().unwrap().starts_with("Endereço suprimido"), "{email_entry}");
    let whatsapp_entry = log.iter().find(|d| d["channel"] == "whatsapp").unwrap();
    assert_eq!(whatsapp_entry["status"], "failed", "{whatsapp_entry}");
    assert!(whatsapp_entry["error_message"].as_str().unwrap().contains("ValidationException"), "{whatsapp_entry}");
    assert_eq!(infra::testing::sent_emails(&email).await.len(), 1, "only the first day's e-mail");

    // A transient refusal (a 500) is tried again, each call counted.
    let third_day = day("2031-04-01");
    let third = billing_due(&api, &s, contact, third_day).await;
    let fail = json!({"to": phone, "status": 500, "times": 1});
    reqwest::Client::new().post(format!("{base}/_fail")).json(&fail).send().await.unwrap();
    run_day(&api, third_day).await;
    let log = deliveries(&api, third).await;
    let whatsapp_entry = log.iter().find(|d| d["channel"] == "whatsapp").unwrap();
    assert_eq!(whatsapp_entry["status"], "sent", "{whatsapp_entry}");
    assert!(whatsapp_entry["attempts_count"].as_i64().unwrap() >= 2, "{whatsapp_entry}");
}

#[tokio::test]
async fn the_account_sets_its_schedule_and_the_run_follows_it() {
    let api = start().await;
    let s = setup(&api).await;
    let shown = api.get("/v1/reminder_schedule").await.expect(200).body;
    assert_eq!(shown["default"], true);
    assert_eq!(shown["enabled"], true);
    assert_eq!(shown["whatsapp_configured"], false);
    assert_eq!(shown["steps"][0], json!({"days": -3, "channels": ["email"]}));

    let refused = api
        .json(
            reqwest::Method::PUT,
            "/v1/reminder_schedule",
            &json!({"reminder_schedule": {"steps": [
            {"days": 90, "channels": ["email"]}, {"days": 1, "channels": ["sms"]}]}}),
        )
        .await
        .expect(422);
    let fields: Vec<_> = refused.details().into_iter().filter_map(|(field, _)| field).collect();
    assert_eq!(fields, ["steps[0].days", "steps[1].channels"], "{:?}", refused.body);
    api.json(reqwest::Method::PUT, "/v1/reminder_schedule", &json!({"steps": []})).await.expect(422);

    let set = json!({"reminder_schedule": {"steps": [{"days": 1, "channels": ["email", "whatsapp"]}]}});
    let shown = api.json(reqwest::Method::PUT, "/v1/reminder_schedule", &set).await.expect(200).body;
    assert_eq!(shown["default"], false);
    assert_eq!(shown["steps"], json!([{"days": 1, "channels": ["email", "whatsapp"]}]));
    assert_eq!(api.get("/v1/reminder_schedule").await.expect(200).body, shown);

    let (contact, _, _) = payer(&api, "agenda").await;
    let on = day("2031-04-10");
    let overdue = billing_due(&api, &s, contact, day("2031-04-09")).await;
    let soon = billing_due(&api, &s, contact, day("2031-04-13")).await;
    run_day(&api, on).await;
    let log = deliveries(&api, overdue).await;
    assert_eq!(log.len(), 1, "e-mail only (no WhatsApp number): {log:?}");
    assert_eq!(log[0]["status"], "sent");
    assert!(deliveries(&api, soon).await.is_empty(), "no step three days before any more");

    let off = json!({"reminder_schedule": {"enabled": false}});
    api.json(reqwest::Method::PUT, "/v1/reminder_schedule", &off).await.expect(200);
    let later = billing_due(&api, &s, contact, day("2031-04-22")).await;
    run_day(&api, day("2031-04-23")).await;
    assert!(deliveries(&api, later).await.is_empty(), "off: none");

    // A form sends the steps by index.
    let form = "reminder_schedule[enabled]=true&reminder_schedule[steps][0][days]=-3&reminder_schedule[steps][0][channels][0]=email";
    let shown = api.form(reqwest::Method::PUT, "/v1/reminder_schedule", form).await.expect(200).body;
    assert_eq!(shown["steps"], json!([{"days": -3, "channels": ["email"]}]), "{shown}");
    assert_eq!(shown["enabled"], true);
}

#[tokio::test]
async fn a_reminder_handled_twice_at_once_is_sent_once() {
    let api = start().await;
    let s = setup(&api).await;
    let (contact, email, _) = payer(&api, "duplicado").await;
    let on = day("2031-05-10");
    let id = billing_due(&api, &s, contact, day("2031-05-13")).await;
    let reminder = send::Reminder {
        account_id: api.account_id,
        billing_id: BillingId::new(id),
        day: on,
        days: -3,
        due_date: day("2031-05-13"),
        channels: vec![billing_api::reminders::schedule::Channel::Email],
    };
    let providers = providers(&api);
    let store = &api.server.store;
    let (a, b) = tokio::join!(
        Box::pin(send::send(store, &providers, &reminder)),
        Box::pin(send::send(store, &providers, &reminder))
    );
    // One of them may have found the other's claim (it would come back later, and find it done).
    assert!(a.is_ok() || b.is_ok(), "{a:?} {b:?}");
    Box::pin(send::send(store, &providers, &reminder)).await.unwrap();
    assert_eq!(infra::testing::sent_emails(&email).await.len(), 1);
    assert_eq!(deliveries(&api, id).await.len(), 1);
}

#[tokio::test]
async fn a_small_accounts_reminders_are_not_held_back_by_a_big_ones_on_the_queue() {
    let big = Api::on(infra::testing::DevServer::start_fair_alone().await).await;
    let small = big.other_account().await;
    let (big_setup, small_setup) = (setup(&big).await, setup(&small).await);
    let on = day("2031-06-10");
    let due = day("2031-06-13");
    let (big_payer, _, _) = payer(&big, "grande").await;
    let (small_payer, _, _) = payer(&small, "pequena").await;
    let mut big_ids = Vec::new();
    for _ in 0..40 {
        big_ids.push(billing_due(&big, &big_setup, big_payer, due).await);
    }
    let mut small_ids = Vec::new();
    for _ in 0..3 {
        small_ids.push(billing_due(&small, &small_setup, small_payer, due).await);
    }
    big.server.send_reminders(on, &providers(&big)).await;
    let mut sent: Vec<(String, &str)> = Vec::new();
    for (api, ids, who) in [(&big, &big_ids, "big"), (&small, &small_ids, "small")] {
        for id in ids {
            let log = deliveries(api, *id).await;
            assert_eq!(log.len(), 1, "{log:?}");
            sent.push((log[0]["created_at"].as_str().unwrap().to_owned(), who));
        }
    }
    sent.sort();
    let last_small = sent.iter().rposition(|(_, who)| *who == "small").unwrap();
    // The worker takes ten of each tenant's lane in turn: the small account's three go in the
    // first turn its lane has, not after the big account's backlog (without lanes, behind it).
    assert!(last_small < 33, "the small account's last reminder was the {}th of {}", last_small + 1, sent.len());
}
