//! Card payments through the checkout gateway (Stripe; locally localstripe, with the
//! Stripe.js stand-in the payer's browser would load, both started by `infra/test`).
//!
//! A payer pays as the card page's script does: the page's route makes the day's intent, the
//! browser confirms it with the gateway (here: the stand-in's confirmation, what Stripe.js calls),
//! then the page's route reads it back. What localstripe cannot do (reviews, disputes) comes as
//! events signed with the account's webhook secret, as Stripe would send them, built here.

use billing_api::payments::card::stripe;
use billing_api::values::BillingId;
use serde_json::{json, Value};

use super::billings::{body, setup, Setup};
use super::support::Api;

/// A server on a table of its own, an account on it with its gateway on at localstripe.
async fn start(manual_capture: bool) -> (Api, Setup) {
    let api =
        Api::on(infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await).await;
    let made =
        infra::ops::gateway::local_setup(&api.server.store, api.account_id, &api.server.base_url, manual_capture)
            .await
            .unwrap();
    assert!(made.is_some(), "localstripe (LOCAL_STRIPE_URL, LOCAL_STRIPE_JS_URL: infra/test starts it)");
    let s = setup(&api).await;
    (api, s)
}

/// A billing with its billet issued; its id and its billet page's token.
async fn billing(api: &Api, s: &Setup) -> (i64, String) {
    let id = api.post("/v1/billings", &body(s)).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    let url = shown["bank_billets"][0]["url"].as_str().unwrap().to_owned();
    let token = url.rsplit('/').next().unwrap().to_owned();
    assert_eq!(shown["gw_payment_link"], json!(format!("{url}/cartao")), "the card checkout is the billet page's");
    (id, token)
}

/// A webhook receiver of the account's events, its deliveries tried every second.
async fn receiver_of(api: &Api) -> infra::webhook_receiver::Receiver {
    let receiver = infra::webhook_receiver::Receiver::start(&[], 200).await;
    api.server.webhook_ops().add(api.account_id, &receiver.url).await.unwrap();
    api.server.start_webhooks(billing_api::webhooks::Schedule(vec![std::time::Duration::from_secs(1); 3]));
    receiver
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} (infra/test starts localstripe)"))
}

/// Pays the billing of `token` by card as the card page's script does; what the page's route
/// answers at the end.
async fn pay_by_card(api: &Api, token: &str, number: &str) -> Value {
    let root = api.server.url("");
    infra::testing::pay_by_card(&reqwest::Client::new(), &root, token, number).await.expect("the page answered")
}

async fn shown(api: &Api, id: i64) -> Value {
    api.get(&format!("/v1/billings/{id}")).await.expect(200).body
}

/// The intent of the billing's card payment, as localstripe has it.
async fn at_localstripe(api: &Api, id: i64) -> Value {
    let (billing, _) =
        billing_api::billings::service::whole_or_404(&api.server.store, api.account_id, BillingId::new(id))
            .await
            .unwrap();
    intent_at_localstripe(&billing.gw_card.unwrap().intent_id).await
}

/// The intent `intent` as localstripe has it.
async fn intent_at_localstripe(intent: &str) -> Value {
    let url =
        format!("{}/v1/payment_intents/{intent}?expand[]=latest_charge.balance_transaction", env("LOCAL_STRIPE_URL"));
    reqwest::Client::new().get(url).bearer_auth("sk_test_reader").send().await.unwrap().json().await.unwrap()
}

/// Opens the card checkout of the billet page `token` as the payer's browser does (the day's
/// intent made, not confirmed); what the page's route answers.
async fn open_checkout(api: &Api, token: &str) -> Value {
    let url = api.server.url(&format!("/pay/{token}/cartao"));
    reqwest::Client::new().post(url).send().await.unwrap().json().await.unwrap()
}

/// Posts `event` to the account's webhook endpoint signed with `secret` at `at`; the status.
async fn deliver(api: &Api, event: &Value, secret: &str, at: i64) -> u16 {
    let body = serde_json::to_vec(event).unwrap();
    let signature = stripe::sign(&body, secret, at);
    let answer = reqwest::Client::new()
        .post(api.server.url(&format!("/gateway/stripe/{}", api.account_id)))
        .header("stripe-signature", signature)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    answer.status().as_u16()
}

/// The billing's billet (the card paid it: `paid` with the card).
async fn after_card_billet(api: &Api, id: i64) -> billing_api::values::BilletId {
    let (billing, _) =
        billing_api::billings::service::whole_or_404(&api.server.store, api.account_id, BillingId::new(id))
            .await
            .unwrap();
    billing.billet_id.unwrap()
}

/// The account's webhook signing secret at localstripe.
fn secret(api: &Api) -> String {
    infra::ops::gateway::local_credentials(&api.server.store, api.account_id).unwrap().webhook_secret
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn event(id: &str, kind: &str, object: Value) -> Value {
    json!({"id": id, "object": "event", "type": kind, "created": now(), "data": {"object": object}})
}

#[tokio::test]
async fn a_card_payment_settles_the_billing_with_the_gateways_figures_then_its_funds_become_available() {
    let (api, s) = start(false).await;
    let receiver = receiver_of(&api).await;
    let (id, token) = billing(&api, &s).await;
    let page = reqwest::get(api.server.url(&format!("/pay/{token}"))).await.unwrap().text().await.unwrap();
    assert!(page.contains("Pagar com cartão"), "the billet's page offers the card");
    let card_page = reqwest::get(api.server.url(&format!("/pay/{token}/cartao"))).await.unwrap();
    let policy = card_page.headers()["content-security-policy"].to_str().unwrap().to_owned();
    let js_origin = stripe::origin(&env("LOCAL_STRIPE_JS_URL")).unwrap();
    assert!(policy.contains("script-src 'sha256-") && policy.contains(&js_origin), "{policy}");
    assert!(!policy.contains("unsafe-inline") && !policy.contains('*'), "{policy}");

    let done = pay_by_card(&api, &token, "4242424242424242").await;
    assert_eq!(done["stage"], "succeeded", "{done}");
    let paid = shown(&api, id).await;
    let gateway = at_localstripe(&api, id).await;
    let charge = &gateway["latest_charge"];
    let cents = |v: &Value| format!("{:.2}", v.as_f64().unwrap() / 100.0);
    assert_eq!(paid["status"], "paid", "{paid}");
    assert_eq!(paid["gw_received_with"], "credit_card");
    assert_eq!(paid["display_amount_payable"], json!(cents(&charge["amount"])), "what the card paid");
    assert_eq!(paid["gw_fee_amount"], json!(cents(&charge["balance_transaction"]["fee"])));
    assert_eq!(paid["gw_payment_method_type"], 1, "credit card");
    assert_eq!(paid["gw_payment_method_code"], 101, "Visa");
    assert_eq!(paid["gw_installment_count"], 1);
    assert_eq!(paid["gw_type_id"], 1);
    let escrow = billing_api::values::Timestamp::parse(paid["gw_escrow_end_date"].as_str().unwrap()).unwrap();
    assert_eq!(escrow.0.timestamp(), charge["balance_transaction"]["available_on"].as_i64().unwrap());
    // The boleto is closed: paid through the card.
    assert_eq!(paid["bank_billets"][0]["status"], "paid", "{paid}");
    assert!(paid["paid"].as_bool().unwrap());
    // Announced to the account's receivers.
    let told = receiver.wait_for("the card payment", |r| r.json()["data"]["billing"]["status"] == "paid").await.json();
    assert_eq!(
        (told["type"].as_str(), told["data"]["billing"]["gw_received_with"].as_str()),
        (Some("billing.updated"), Some("credit_card"))
    );
    // Paying again: the checkout is closed.
    let again = reqwest::Client::new().post(api.server.url(&format!("/pay/{token}/cartao"))).send().await.unwrap();
    assert_eq!(again.status().as_u16(), 422);

    // The availability step: nothing before the escrow's day, available on it.
    let store = &api.server.store;
    let before = escrow.date() - chrono::Duration::days(billing_api::payments::card::available::CATCH_UP_DAYS + 1);
    assert_eq!(billing_api::payments::card::available::run(store, before).await.unwrap().made_available, 0);
    assert_eq!(shown(&api, id).await["status"], "paid");
    let report = billing_api::payments::card::available::run(store, escrow.date()).await.unwrap();
    assert_eq!(report.made_available, 1, "{report:?}");
    assert_eq!(shown(&api, id).await["status"], "available");
    receiver.wait_for("the funds available", |r| r.json()["data"]["billing"]["status"] == "available").await;
    // Listed as paid (§3.1: paid = paid + available).
    let listed = api.get("/v1/billings?status=paid").await.expect(200).body;
    assert_eq!(listed["billings"].as_array().unwrap().len(), 1, "{listed}");
    // A second run finds nothing to do.
    assert_eq!(billing_api::payments::card::available::run(store, escrow.date()).await.unwrap().found, 0);
}

/// Stripe's test cards declined at the charge (docs.stripe.com/testing): the card, its error's
/// `code` and `decline_code`, as the gateway's confirmation resolves (localstripe as our launcher
/// makes it behave).
const DECLINED: [(&str, &str, Option<&str>); 5] = [
    ("4000000000000002", "card_declined", Some("generic_decline")),
    ("4000000000009995", "card_declined", Some("insufficient_funds")),
    ("4000000000000069", "expired_card", None),
    ("4000000000000127", "incorrect_cvc", None),
    ("4000000000000341", "card_declined", Some("generic_decline")),
];

#[tokio::test]
async fn declined_cards_leave_the_billing_open_and_another_card_then_pays_it_once() {
    let (api, s) = start(false).await;
    let receiver = receiver_of(&api).await;
    let (id, token) = billing(&api, &s).await;
    let http = reqwest::Client::new();
    let root = api.server.url("");
    for (number, code, decline_code) in DECLINED {
        let (gateway, page) = infra::testing::try_card(&http, &root, &token, number).await.expect("answered");
        assert_eq!(gateway["error"]["type"], "card_error", "{number}: {gateway}");
        assert_eq!(gateway["error"]["code"], code, "{number}: {gateway}");
        assert_eq!(gateway["error"]["decline_code"].as_str(), decline_code, "{number}: {gateway}");
        assert_eq!(page["stage"], "open", "{number}: the page lets the payer try again: {page}");
        let still = shown(&api, id).await;
        assert_eq!(still["status"], "opened", "{number}: {still}");
        assert!(still["gw_received_with"].is_null() && still["gw_payment_date"].is_null(), "{number}: {still}");
    }
    // The same day's intent takes another card.
    let done = pay_by_card(&api, &token, "4242424242424242").await;
    assert_eq!(done["stage"], "succeeded", "{done}");
    let paid = shown(&api, id).await;
    assert_eq!((paid["status"].as_str(), paid["gw_received_with"].as_str()), (Some("paid"), Some("credit_card")));
    let gateway = at_localstripe(&api, id).await;
    assert_eq!(gateway["status"], "succeeded", "{gateway}");
    assert_eq!(gateway["latest_charge"]["amount"], gateway["amount"], "charged once, in full");
    receiver.wait_for("the card payment", |r| r.json()["data"]["billing"]["status"] == "paid").await;
    let told = receiver.received().into_iter().filter(|r| r.json()["data"]["billing"]["status"] == "paid").count();
    assert_eq!(told, 1, "announced once");
}

#[tokio::test]
async fn a_manual_capture_waits_for_the_account_which_captures_or_releases() {
    let (api, s) = start(true).await;
    let (captured, token) = billing(&api, &s).await;
    let done = pay_by_card(&api, &token, "4242424242424242").await;
    assert_eq!(done["stage"], "authorized", "{done}");
    let waiting = shown(&api, captured).await;
    assert_eq!(waiting["status"], "awaiting_capture", "{waiting}");
    assert_eq!(waiting["bank_billets"][0]["status"], "opened", "the boleto stays as it is until the capture");
    // Collectable: listed as opened (§3.1), and not editable.
    let listed = api.get("/v1/billings?status=opened").await.expect(200).body;
    assert_eq!(listed["billings"][0]["status"], "awaiting_capture", "{listed}");
    let edit = api.patch(&format!("/v1/billings/{captured}"), &json!({"billing": {"observation": "nova"}})).await;
    assert_eq!(edit.expect(200).body["observation"], waiting["observation"], "frozen while on the checkout");
    let page = reqwest::get(api.server.url(&format!("/pay/{token}"))).await.unwrap().text().await.unwrap();
    assert!(page.contains("pagamento com cartão desta cobrança está em análise"), "the page asks not to pay again");

    let paid = api.post(&format!("/v1/billings/{captured}/capture"), &json!({})).await.expect(200).body;
    assert_eq!(paid["status"], "paid", "{paid}");
    assert_eq!(at_localstripe(&api, captured).await["status"], "succeeded");
    api.post(&format!("/v1/billings/{captured}/capture"), &json!({})).await.expect(422);

    let (released, token) = billing(&api, &s).await;
    pay_by_card(&api, &token, "4242424242424242").await;
    assert_eq!(shown(&api, released).await["status"], "awaiting_capture");
    let back = api.post(&format!("/v1/billings/{released}/release"), &json!({})).await.expect(200).body;
    assert_eq!(back["status"], "opened", "{back}");
    assert_eq!(at_localstripe(&api, released).await["status"], "canceled");
    api.post(&format!("/v1/billings/{released}/refund"), &json!({})).await.expect(422);
}

/// A billing settled, paid off or cancelled otherwise while its card intent is still open has the
/// intent cancelled at the gateway by the card releases worker (asked in the settling
/// transaction), once.
#[tokio::test]
async fn a_billing_closed_otherwise_cancels_its_open_card_intent_at_the_gateway() {
    let (api, s) = start(true).await;
    // Authorized, then paid off by the account: the settling transaction asks the card releases
    // worker to cancel the intent, which it does at once, and the billing's card says so.
    let (held, token) = billing(&api, &s).await;
    pay_by_card(&api, &token, "4242424242424242").await;
    let pay_off = super::billings::pay_off_body(&api).await;
    api.post(&format!("/v1/billings/{held}/pay_off"), &pay_off).await.expect(200);
    assert_eq!(at_localstripe(&api, held).await["status"], "requires_capture", "held until the worker runs");
    assert_eq!(api.server.release_cards().await, 1);
    assert_eq!(at_localstripe(&api, held).await["status"], "canceled", "the payer's card is not held");
    let after = shown(&api, held).await;
    assert_eq!(after["status"], "discharged", "{after}");
    // The gateway's later word about it changes nothing.
    let intent = at_localstripe(&api, held).await["id"].as_str().unwrap().to_owned();
    let told = event("evt_h1", "payment_intent.canceled", json!({"id": intent}));
    assert_eq!(deliver(&api, &told, &secret(&api), now()).await, 200);
    assert_eq!(shown(&api, held).await["status"], "discharged");
    assert_eq!(api.server.release_cards().await, 0, "released once");

    // Authorized, then the boleto is paid at the bank: the same.
    let (by_boleto, token) = billing(&api, &s).await;
    pay_by_card(&api, &token, "4242424242424242").await;
    let billet = after_card_billet(&api, by_boleto).await;
    let reported = billing_api::payments::boleto::bank::Reported {
        amount: "25.00".parse().unwrap(),
        paid_on: billing_api::values::today(),
        fee: "1.50".parse().unwrap(),
    };
    let payment = billing_api::payments::boleto::bank::payment(BillingId::new(by_boleto), billet, &reported);
    let store = &api.server.store;
    let paid = billing_api::payments::apply(store, api.account_id, BillingId::new(by_boleto), &payment).await.unwrap();
    assert!(matches!(paid, billing_api::payments::Applied::Settled(_)), "{paid:?}");
    assert_eq!(api.server.release_cards().await, 1);
    assert_eq!(at_localstripe(&api, by_boleto).await["status"], "canceled");
    let after = shown(&api, by_boleto).await;
    assert_eq!((after["status"].as_str(), after["gw_received_with"].as_str()), (Some("paid"), Some("bank_billet")));

    // Authorized, then the billing cancelled: the same.
    let (cancelled, token) = billing(&api, &s).await;
    pay_by_card(&api, &token, "4242424242424242").await;
    let reason = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    api.post(&format!("/v1/billings/{cancelled}/cancel"), &reason).await.expect(200);
    assert_eq!(api.server.release_cards().await, 1);
    assert_eq!(at_localstripe(&api, cancelled).await["status"], "canceled");

    // The payer opened the checkout (an intent made, never confirmed), then the billing was paid
    // off: that intent is cancelled too, so the page left open cannot pay it.
    let (left_open, token) = billing(&api, &s).await;
    let opened = open_checkout(&api, &token).await;
    let intent = opened["intent"].as_str().unwrap().to_owned();
    api.post(&format!("/v1/billings/{left_open}/pay_off"), &pay_off).await.expect(200);
    assert_eq!(api.server.release_cards().await, 1);
    let at_stripe = intent_at_localstripe(&intent).await;
    assert_eq!(at_stripe["status"], "canceled", "{at_stripe}");
    assert_eq!(shown(&api, left_open).await["status"], "discharged");
    assert_eq!(shown(&api, cancelled).await["status"], "canceled");
}

#[tokio::test]
async fn signed_events_move_a_paid_billing_in_effect_order_and_forged_ones_change_nothing() {
    let (api, s) = start(false).await;
    let (id, token) = billing(&api, &s).await;
    pay_by_card(&api, &token, "4242424242424242").await;
    let intent = at_localstripe(&api, id).await["id"].as_str().unwrap().to_owned();
    let whsec = secret(&api);
    let dispute = |status: &str| json!({"id": "dp_1", "object": "dispute", "payment_intent": intent, "status": status});
    let opened = event("evt_d1", "charge.dispute.created", dispute("needs_response"));
    let won = event("evt_d2", "charge.dispute.closed", dispute("won"));

    // Forged, stale, unsigned: 400, nothing moves.
    assert_eq!(deliver(&api, &opened, "whsec_someone_else", now()).await, 400);
    assert_eq!(deliver(&api, &opened, &whsec, now() - 301).await, 400);
    let unsigned = reqwest::Client::new()
        .post(api.server.url(&format!("/gateway/stripe/{}", api.account_id)))
        .json(&opened)
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status().as_u16(), 400);
    assert_eq!(shown(&api, id).await["status"], "paid");

    // Out of order: the dispute's close before its opening; then each again (replayed).
    assert_eq!(deliver(&api, &won, &whsec, now()).await, 200);
    assert_eq!(deliver(&api, &opened, &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "paid", "won: back to paid, whatever the order");
    assert_eq!(deliver(&api, &won, &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "paid");

    // A second dispute, open: in dispute; lost: returned.
    let second = |status: &str| json!({"id": "dp_2", "object": "dispute", "payment_intent": intent, "status": status});
    assert_eq!(
        deliver(&api, &event("evt_d3", "charge.dispute.created", second("needs_response")), &whsec, now()).await,
        200
    );
    assert_eq!(shown(&api, id).await["status"], "in_dispute");
    assert_eq!(deliver(&api, &event("evt_d4", "charge.dispute.closed", second("lost")), &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "returned");
    // Another account's endpoint does not take this account's events.
    let other = api.other_account().await;
    assert_eq!(deliver(&other, &won, &whsec, now()).await, 404, "no gateway for that account");
}

#[tokio::test]
async fn a_review_holds_an_authorized_payment_and_a_boleto_paid_after_the_card_is_kept_to_refund() {
    let (api, s) = start(true).await;
    let (id, token) = billing(&api, &s).await;
    pay_by_card(&api, &token, "4242424242424242").await;
    let intent = at_localstripe(&api, id).await["id"].as_str().unwrap().to_owned();
    let whsec = secret(&api);
    let review = |open: bool| json!({"id": "prv_1", "object": "review", "payment_intent": intent, "open": open});
    assert_eq!(deliver(&api, &event("evt_r1", "review.opened", review(true)), &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "under_review");
    assert_eq!(deliver(&api, &event("evt_r2", "review.closed", review(false)), &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "awaiting_capture");
    // A late `review.opened` does not reopen it.
    assert_eq!(deliver(&api, &event("evt_r1", "review.opened", review(true)), &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "awaiting_capture");
    api.post(&format!("/v1/billings/{id}/capture"), &json!({})).await.expect(200);

    // The boleto paid afterwards (as a return file reports it): kept to refund, the billing stays
    // paid by card.
    let store = &api.server.store;
    let billet = after_card_billet(&api, id).await;
    let reported = billing_api::payments::boleto::bank::Reported {
        amount: "25.00".parse().unwrap(),
        paid_on: billing_api::values::today(),
        fee: "1.50".parse().unwrap(),
    };
    let payment = billing_api::payments::boleto::bank::payment(BillingId::new(id), billet, &reported);
    let late = billing_api::payments::apply(store, api.account_id, BillingId::new(id), &payment).await.unwrap();
    assert!(matches!(late, billing_api::payments::Applied::ToRefund(_)), "{late:?}");
    let again = billing_api::payments::apply(store, api.account_id, BillingId::new(id), &payment).await.unwrap();
    assert!(matches!(again, billing_api::payments::Applied::Already(_)), "{again:?}");
    let kept = billing_api::payments::to_refund(store, api.account_id, 10).await.unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].channel, billing_api::payments::Channel::BankBillet);
    let after = shown(&api, id).await;
    assert_eq!((after["status"].as_str(), after["gw_received_with"].as_str()), (Some("paid"), Some("credit_card")));

    // Refunded: returned.
    let refunded = api.post(&format!("/v1/billings/{id}/refund"), &json!({})).await.expect(200).body;
    assert_eq!(refunded["status"], "returned", "{refunded}");
    assert_eq!(at_localstripe(&api, id).await["latest_charge"]["refunded"], true);
}

#[tokio::test]
async fn a_card_paid_after_the_billing_was_paid_off_is_kept_to_refund() {
    let (api, s) = start(false).await;
    let (id, token) = billing(&api, &s).await;
    // The payer opens the card checkout, then the account writes the billing off by hand.
    let opened = open_checkout(&api, &token).await;
    let pay_off = super::billings::pay_off_body(&api).await;
    api.post(&format!("/v1/billings/{id}/pay_off"), &pay_off).await.expect(200);
    // The card's payment goes through at the gateway all the same.
    let js = env("LOCAL_STRIPE_JS_URL");
    let intent = opened["intent"].as_str().unwrap();
    let confirm = format!("{}/v1/payment_intents/{intent}/confirm", js.trim_end_matches("/v3/"));
    let card = json!({"number": "4242424242424242", "exp_month": "12", "exp_year": "2030", "cvc": "123"});
    let sent = json!({"key": opened["publishable_key"], "client_secret": opened["client_secret"], "card": card});
    reqwest::Client::new().post(&confirm).json(&sent).send().await.unwrap();
    // Its event, twice.
    let whsec = secret(&api);
    let succeeded = event("evt_p1", "payment_intent.succeeded", json!({"id": intent, "object": "payment_intent"}));
    assert_eq!(deliver(&api, &succeeded, &whsec, now()).await, 200);
    assert_eq!(deliver(&api, &succeeded, &whsec, now()).await, 200);
    assert_eq!(shown(&api, id).await["status"], "discharged");
    let kept = billing_api::payments::to_refund(&api.server.store, api.account_id, 10).await.unwrap();
    assert_eq!(kept.len(), 1, "kept once: {kept:?}");
    assert_eq!(kept[0].channel, billing_api::payments::Channel::CreditCard);
    assert_eq!(kept[0].provider_id, intent);
}

#[tokio::test]
async fn a_card_payment_is_listed_with_its_fee_and_refunded_in_part_then_whole_at_the_gateway() {
    let (api, s) = start(false).await;
    let (id, token) = billing(&api, &s).await;
    assert_eq!(pay_by_card(&api, &token, "4242424242424242").await["stage"], "succeeded");
    let paid = shown(&api, id).await;
    let listed = api.get("/v1/payments?channel=credit_card").await.expect(200).body;
    let payment = listed["payments"][0].clone();
    assert_eq!(listed["payments"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!((&payment["billing_id"], &payment["fee_amount"]), (&json!(id), &paid["gw_fee_amount"]), "{payment}");
    assert_eq!(payment["amount"], paid["display_amount_payable"]);
    assert_eq!(Some(payment["credit_on"].as_str().unwrap()), paid["gw_escrow_end_date"].as_str().map(|d| &d[..10]));
    assert_eq!(payment["provider_id"], at_localstripe(&api, id).await["id"]);

    // Part of it, then the rest: two refunds at the gateway, the billing returned.
    let path = format!("/v1/payments/{}/refund", payment["id"].as_str().unwrap());
    let part = api.post(&path, &json!({"refund": {"amount": "10.00", "reason": "item devolvido"}})).await;
    let part = part.expect(201).body;
    assert_eq!((part["status"].as_str(), part["refunded_amount"].as_str()), (Some("applied"), Some("10.00")));
    assert!(part["refunds"][0]["provider_id"].as_str().is_some_and(|r| r.starts_with("re_")), "{part}");
    assert_eq!(at_localstripe(&api, id).await["latest_charge"]["amount_refunded"], 1000);
    assert_eq!(shown(&api, id).await["status"], "paid", "a partial refund leaves it paid");
    let rest = api.post(&path, &json!({})).await.expect(201).body;
    assert_eq!(rest["status"], "refunded", "{rest}");
    assert_eq!(at_localstripe(&api, id).await["latest_charge"]["refunded"], true);
    assert_eq!(shown(&api, id).await["status"], "returned");
    let statement = api.get(&format!("/v1/statements/{}", billing_api::values::today())).await.expect(200).body;
    assert_eq!(statement["channels"]["credit_card"]["refunds_count"], 2, "{statement}");
    assert_eq!(statement["channels"]["credit_card"]["refunded_amount"], payment["amount"]);
    // The operator's view of the card prints its amounts as the API does.
    let of = infra::ops::gateway::CardOf { account: api.account_id, billing: BillingId::new(id) };
    let synced = infra::ops::gateway::run(&api.server.store, infra::ops::gateway::GatewayCommand::Sync(of)).await;
    super::support::assert_amounts_are_text(&synced.unwrap());
}
