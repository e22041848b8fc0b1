//! §6: signed webhooks end to end on the local stack. Receivers are small HTTP servers on
//! 127.0.0.1 (the local switch lets the sender reach them); every delivery they get is verified
//! with the published Standard Webhooks implementation (`tests/validators/verify-webhooks.js`).
//! Each test runs a dev server on a table of its own, so its outbox sweep sees only its events.

use std::time::Duration;

use billing_api::events;
use billing_api::http::rate_limit::RateLimits;
use billing_api::values::{BillingId, DeliveryStatus, Timestamp, WebhookId};
use billing_api::webhooks::deliveries::{self, Filter};
use billing_api::webhooks::sender::Outcome;
use billing_api::webhooks::{receivers, Policy, Schedule};
use infra::testing::DevServer;
use infra::webhook_receiver::{standard_webhooks_verify, Received, Receiver};
use serde_json::{json, Value};

use super::billings::{body, setup};
use super::support::Api;

/// A dev server of its own with an account on it.
async fn alone() -> Api {
    Api::on(DevServer::start_alone(RateLimits::OFF).await).await
}

/// Registers a receiver through the ops operations; returns its id and secret.
async fn register(api: &Api, receiver: &Receiver) -> (WebhookId, String) {
    let added = api.server.webhook_ops().add(api.account_id, &receiver.url).await.expect("receiver added");
    let id = WebhookId::new(added["webhook"]["id"].as_i64().unwrap());
    (id, added["webhook"]["secret"].as_str().unwrap().to_owned())
}

fn seconds(waits: &[u64]) -> Schedule {
    Schedule(waits.iter().map(|s| Duration::from_secs(*s)).collect())
}

fn billing_status(r: &Received) -> &str {
    let body: Value = r.json();
    match body["data"]["billing"]["status"].as_str() {
        Some("paid") => "paid",
        Some("canceled") => "canceled",
        Some("opened") => "opened",
        _ => "other",
    }
}

#[tokio::test]
async fn a_paid_billing_reaches_three_receivers_each_verifiable_with_its_secret() {
    let api = alone().await;
    let receivers = [Receiver::start(&[], 200).await, Receiver::start(&[], 204).await, Receiver::start(&[], 200).await];
    let mut secrets = Vec::new();
    for receiver in &receivers {
        secrets.push(register(&api, receiver).await.1);
    }
    assert!(secrets.iter().all(|s| s.starts_with("whsec_")) && secrets[0] != secrets[1]);
    // A fourth is refused, clearly.
    let fourth = api.server.webhook_ops().add(api.account_id, "https://hooks.example.com/x").await.unwrap_err();
    assert!(format!("{fourth:#}").contains("already has 3 webhook receivers"), "{fourth:#}");
    let listed = api.server.webhook_ops().list(api.account_id).await.unwrap();
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 3);
    assert!(listed["webhooks"][0]["secret"].as_str().unwrap().contains('…'), "masked in lists");

    let s = setup(&api).await;
    let id = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    api.server.register_billets().await;
    api.server.start_webhooks(seconds(&[1, 1]));
    let payment = billing_api::payments::boleto::bank::Reported {
        amount: "25.00".parse().unwrap(),
        paid_on: billing_api::values::today(),
        fee: "0".parse().unwrap(),
    };
    infra::ops::pay_billing(&api.server.store, api.account_id, BillingId::new(id), &payment).await.unwrap();
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;

    let mut checked = Vec::new();
    let mut delivery_ids = Vec::new();
    for (receiver, secret) in receivers.iter().zip(&secrets) {
        let paid = receiver.wait_for("the paid billing", |r| billing_status(r) == "paid").await;
        let opened = receiver.wait_for("the registered billet", |r| billing_status(r) == "opened").await;
        let body = paid.json();
        assert_eq!(body["type"], "billing.updated");
        assert_eq!(body["data"]["billing"], shown, "the event carries the billing as the API shows it");
        assert!(body["id"].as_str().unwrap().starts_with("evt_"));
        assert!(body["created_at"].is_string());
        for r in [&paid, &opened] {
            assert!(r.header("webhook-id").starts_with("dlv_"));
            assert_eq!(r.header("x-service-delivery"), r.header("webhook-id"));
            assert_eq!(r.header("x-service-timestamp"), r.header("webhook-timestamp"));
            assert_eq!(r.header("x-service-signature"), r.header("webhook-signature"));
            assert!(r.header("x-service-signature").starts_with("v1,"));
            assert_eq!(r.header("content-type"), "application/json");
        }
        delivery_ids.push(paid.header("webhook-id").to_owned());
        checked.push((secret.as_str(), paid));
        checked.push((secret.as_str(), opened));
    }
    let pairs: Vec<(&str, &Received)> = checked.iter().map(|(s, r)| (*s, r)).collect();
    let verdict = standard_webhooks_verify(&pairs);
    assert_eq!(verdict["ok"], true, "{verdict}");
    assert_eq!(verdict["checked"], 6);
    // Another receiver's secret does not verify a delivery.
    let verdict = standard_webhooks_verify(&[(secrets[1].as_str(), &checked[0].1)]);
    assert_eq!(verdict["ok"], false, "{verdict}");
    // One delivery id per receiver, and the log shows each delivered at the first attempt.
    delivery_ids.sort();
    delivery_ids.dedup();
    assert_eq!(delivery_ids.len(), 3);
    let event_id = checked[0].1.json()["id"].as_str().unwrap().to_owned();
    let filter = Filter { event_id: Some(event_id), ..Filter::default() };
    let log = api.server.webhook_ops().deliveries(api.account_id, &filter, 20).await.unwrap();
    let logged = log["deliveries"].as_array().unwrap();
    assert_eq!(logged.len(), 3, "{log}");
    for delivery in logged {
        assert_eq!((delivery["status"].as_str(), delivery["attempts"].as_u64()), (Some("delivered"), Some(1)));
        let attempt = &delivery["attempts_log"][0];
        assert!(attempt["response_status"] == 200 || attempt["response_status"] == 204, "{attempt}");
        assert!(attempt["latency_ms"].is_u64() && attempt["error"].is_null());
    }
}

#[tokio::test]
async fn a_receiver_answering_500_gets_the_same_delivery_id_again() {
    let api = alone().await;
    let receiver = Receiver::start(&[500, 503], 200).await;
    let (receiver_id, secret) = register(&api, &receiver).await;
    api.server.start_webhooks(seconds(&[1, 1, 1]));
    let s = setup(&api).await;
    let id = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let reason = json!({"billing": {"cancellation_reason": "Serviço não prestado"}});
    api.post(&format!("/v1/billings/{id}/cancel"), &reason).await.expect(200);

    let got = receiver.wait_for_count(3).await;
    assert!(got.iter().all(|r| r.header("webhook-id") == got[0].header("webhook-id")), "{got:#?}");
    assert!(got.iter().all(|r| r.body == got[0].body), "the same body every time");
    let pairs: Vec<(&str, &Received)> = got.iter().map(|r| (secret.as_str(), r)).collect();
    assert_eq!(standard_webhooks_verify(&pairs)["ok"], true);
    // The log: 500, 503, then delivered; the receiver's failure streak ended with the success.
    let filter = Filter { event_id: Some(got[0].json()["id"].as_str().unwrap().to_owned()), ..Filter::default() };
    let mut log = Value::Null;
    for _ in 0..50 {
        log = api.server.webhook_ops().deliveries(api.account_id, &filter, 5).await.unwrap();
        if log["deliveries"][0]["status"] == "delivered" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let delivery = &log["deliveries"][0];
    assert_eq!(delivery["status"], "delivered", "{log}");
    let statuses: Vec<&Value> =
        delivery["attempts_log"].as_array().unwrap().iter().map(|a| &a["response_status"]).collect();
    assert_eq!(statuses, [&json!(500), &json!(503), &json!(200)]);
    assert_eq!(delivery["attempts_log"][0]["error"], "answered 500 Internal Server Error");
    let found = receivers::find(&api.server.store, api.account_id, receiver_id).await.unwrap().unwrap();
    assert_eq!(found.failing_since, None);
}

/// Waits until the account has a failed delivery (the retries ran out), up to 60 s as the test
/// receivers do: through the fault proxy a delivery whose sender failed comes back after the test
/// queue's 30 s visibility timeout.
async fn failed_deliveries(api: &Api, count: usize) -> Vec<Value> {
    let filter = Filter { status: Some(DeliveryStatus::Failed), ..Filter::default() };
    for _ in 0..300 {
        let log = api.server.webhook_ops().deliveries(api.account_id, &filter, 20).await.unwrap();
        let found = log["deliveries"].as_array().unwrap().clone();
        if found.len() >= count {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("no {count} failed deliveries");
}

#[tokio::test]
async fn retries_run_out_then_a_replay_sends_again_with_the_original_id() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 500).await;
    register(&api, &receiver).await;
    api.server.start_webhooks(seconds(&[1]));
    let s = setup(&api).await;
    let started = Timestamp::now();
    let first = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let reason = json!({"billing": {"cancellation_reason": "Duplicada"}});
    api.post(&format!("/v1/billings/{first}/cancel"), &reason).await.expect(200);

    // Two attempts (the schedule has one wait), then failed.
    let failed = failed_deliveries(&api, 1).await;
    let delivery = &failed[0];
    assert_eq!((delivery["attempts"].as_u64(), delivery["last_response_status"].as_u64()), (Some(2), Some(500)));
    assert_eq!(receiver.received().len(), 2);
    let original_id = delivery["delivery_id"].as_str().unwrap().to_owned();
    let event_id = delivery["event_id"].as_str().unwrap().to_owned();

    // Replay by event once the receiver is fixed: same delivery id, delivered.
    receiver.answer_from_now_on(200);
    let replayed = api.server.webhook_ops().replay(api.account_id, Some(&event_id), None, 100).await.unwrap();
    assert_eq!(replayed["replayed"], json!([original_id]));
    let third = receiver.wait_for_count(3).await;
    assert_eq!(third[2].header("webhook-id"), original_id);
    let filter = Filter { event_id: Some(event_id), ..Filter::default() };
    let mut status = Value::Null;
    for _ in 0..50 {
        let log = api.server.webhook_ops().deliveries(api.account_id, &filter, 5).await.unwrap();
        status = log["deliveries"][0].clone();
        if status["status"] == "delivered" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!((status["status"].as_str(), status["attempts"].as_u64()), (Some("delivered"), Some(3)), "{status}");
    assert!(status["replayed_at"].is_string());

    // Replay of everything failed since a moment.
    receiver.answer_from_now_on(500);
    let second = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    api.post(&format!("/v1/billings/{second}/cancel"), &reason).await.expect(200);
    let failed = failed_deliveries(&api, 1).await;
    let second_id = failed[0]["delivery_id"].as_str().unwrap().to_owned();
    receiver.answer_from_now_on(200);
    let replayed = api.server.webhook_ops().replay(api.account_id, None, Some(started), 100).await.unwrap();
    assert_eq!(replayed["replayed"], json!([second_id]), "{replayed}");
    // Two failed attempts, then the replay's, all with the same id.
    for _ in 0..300 {
        if receiver.received().iter().filter(|r| r.header("webhook-id") == second_id).count() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(receiver.received().iter().filter(|r| r.header("webhook-id") == second_id).count(), 3);
    // Neither form given, or an unknown event: refused.
    assert!(api.server.webhook_ops().replay(api.account_id, None, None, 10).await.is_err());
    let unknown = api.server.webhook_ops().replay(api.account_id, Some("evt_nope"), None, 10).await.unwrap_err();
    assert!(format!("{unknown:#}").contains("no deliveries"));
}

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_new_one_for_a_day() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 200).await;
    let (id, old_secret) = register(&api, &receiver).await;
    let rotated = api.server.webhook_ops().rotate_secret(api.account_id, id).await.unwrap();
    let new_secret = rotated["webhook"]["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, old_secret);
    let until = Timestamp::parse(rotated["webhook"]["previous_secret_signs_until"].as_str().unwrap()).unwrap();
    let hours = (until.0 - Timestamp::now().0).num_minutes() as f64 / 60.0;
    assert!((23.9..=24.0).contains(&hours), "{hours}");
    // `show` gives the current secret again.
    let shown = api.server.webhook_ops().show(api.account_id, id).await.unwrap();
    assert_eq!(shown["webhook"]["secret"], new_secret.as_str());

    api.server.start_webhooks(seconds(&[1]));
    let s = setup(&api).await;
    let billing = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let reason = json!({"billing": {"cancellation_reason": "Teste"}});
    api.post(&format!("/v1/billings/{billing}/cancel"), &reason).await.expect(200);
    let got = receiver.wait_for_count(1).await;
    assert_eq!(got[0].header("webhook-signature").split(' ').count(), 2, "both signatures during the overlap");
    let verdict = standard_webhooks_verify(&[(new_secret.as_str(), &got[0]), (old_secret.as_str(), &got[0])]);
    assert_eq!(verdict["ok"], true, "{verdict}");
}

#[tokio::test]
async fn a_delivery_queued_twice_is_sent_once_and_a_half_done_dispatch_completes() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 200).await;
    register(&api, &receiver).await;
    let store = &api.server.store;
    let s = setup(&api).await;
    let billing = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let reason = json!({"billing": {"cancellation_reason": "Teste"}});
    api.post(&format!("/v1/billings/{billing}/cancel"), &reason).await.expect(200);
    let recorded = events::recorded(store, api.account_id).await.unwrap();
    assert_eq!(recorded.len(), 1);

    // A dispatcher that died after writing the delivery, before queueing it: the event is still
    // pending, and the sweep completes it with the same delivery.
    let pending = billing_api::outbox::pending(store, Timestamp::now(), 100).await.unwrap();
    let (pk, sk) = pending.into_iter().find(|(_, sk)| sk.starts_with("EVENT#")).unwrap();
    let event = events::read(store, pk, sk).await.unwrap().unwrap();
    let found = receivers::list(store, api.account_id).await.unwrap();
    let delivery = deliveries::Delivery::new(&event, &found[0]);
    assert!(deliveries::create(store, &delivery).await.unwrap());
    // The event, and the create's registration task.
    assert_eq!(billing_api::outbox::sweep(store, &api.server.queues, Timestamp::now(), 100).await.unwrap(), 2);
    let again = billing_api::outbox::sweep(store, &api.server.queues, Timestamp::now(), 100).await.unwrap();
    assert_eq!(again, 0, "dispatched");
    let (logged, _) = deliveries::list(store, api.account_id, &Filter::default(), 10).await.unwrap();
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].delivery_id, delivery.delivery_id);

    // A second copy of its message: both in one batch, one POST.
    let message = billing_api::jobs::WebhookDelivery::new(api.account_id, &delivery.delivery_id);
    api.server.queues.send(&message).await.unwrap();
    let sender = api.server.webhook_sender(Policy::LOCAL, seconds(&[1]));
    let worker = infra::workers::Worker::WebhookSender(Box::new(sender.clone()));
    let sqs = aws_sdk_sqs::Client::new(&api.server.config);
    let mut handled = 0;
    for _ in 0..5 {
        handled +=
            infra::workers::worker_round(&sqs, &api.server.webhook_queue_url, &worker, 1).await.unwrap().bodies.len();
        if handled >= 2 {
            break;
        }
    }
    assert!(handled >= 2, "both copies (SQS may add its own)");
    assert_eq!(receiver.received().len(), 1);
    assert_eq!(sender.deliver(api.account_id, &delivery.delivery_id).await.unwrap(), Outcome::Done("already settled"));
    assert_eq!(receiver.received().len(), 1);
}

#[tokio::test]
async fn removed_and_disabled_receivers_get_no_more_deliveries() {
    let api = alone().await;
    let store = &api.server.store;
    let (kept, removed) = (Receiver::start(&[], 200).await, Receiver::start(&[], 200).await);
    let (kept_id, _) = register(&api, &kept).await;
    let (removed_id, _) = register(&api, &removed).await;
    let s = setup(&api).await;
    let billing = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let reason = json!({"billing": {"cancellation_reason": "Teste"}});
    api.post(&format!("/v1/billings/{billing}/cancel"), &reason).await.expect(200);
    billing_api::outbox::sweep(store, &api.server.queues, Timestamp::now(), 100).await.unwrap();
    // One receiver is removed and the other disabled before the sender gets to them.
    api.server.webhook_ops().remove(api.account_id, removed_id).await.unwrap();
    let disabled = api.server.webhook_ops().set_enabled(api.account_id, kept_id, false).await.unwrap();
    assert_eq!(disabled["webhook"]["status"], "disabled");
    let sender = api.server.webhook_sender(Policy::LOCAL, seconds(&[1]));
    let (logged, _) = deliveries::list(store, api.account_id, &Filter::default(), 10).await.unwrap();
    assert_eq!(logged.len(), 2);
    let mut reasons = Vec::new();
    for delivery in &logged {
        match sender.deliver(api.account_id, &delivery.delivery_id).await.unwrap() {
            Outcome::Failed { reason } => reasons.push(reason),
            other => panic!("{other:?}"),
        }
    }
    reasons.sort();
    assert_eq!(reasons, ["receiver disabled: disabled by an operator", "receiver removed"]);
    assert!(kept.received().is_empty() && removed.received().is_empty());
    // A disabled receiver gets no deliveries of later events; its place is kept, a removed one's freed.
    let second = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    api.post(&format!("/v1/billings/{second}/cancel"), &reason).await.expect(200);
    billing_api::outbox::sweep(store, &api.server.queues, Timestamp::now(), 100).await.unwrap();
    let (logged, _) = deliveries::list(store, api.account_id, &Filter::default(), 10).await.unwrap();
    assert_eq!(logged.len(), 2, "no delivery for the disabled receiver");
    let ops = api.server.webhook_ops();
    ops.add(api.account_id, "https://hooks.example.com/a").await.unwrap();
    ops.add(api.account_id, "https://hooks.example.com/b").await.unwrap();
    assert!(ops.add(api.account_id, "https://hooks.example.com/c").await.is_err());
    let enabled = ops.set_enabled(api.account_id, kept_id, true).await.unwrap();
    assert_eq!(enabled["webhook"]["status"], "enabled");
    // Bad URLs are refused at registration.
    ops.remove(api.account_id, kept_id).await.unwrap();
    for (url, why) in [
        ("ftp://hooks.example.com/", "https://"),
        ("http://10.0.0.1/", "private"),
        ("https://169.254.169.254/", "link-local"),
        ("nonsense", "not a URL"),
    ] {
        let refused = ops.add(api.account_id, url).await.unwrap_err();
        assert!(format!("{refused:#}").contains(why), "{url}: {refused:#}");
    }
    assert!(ops.remove(api.account_id, WebhookId::new(999)).await.is_err());
}

#[tokio::test]
async fn a_receiver_failing_for_three_days_is_disabled() {
    let api = alone().await;
    let store = &api.server.store;
    let receiver = Receiver::start(&[], 500).await;
    let (id, _) = register(&api, &receiver).await;
    let found = receivers::find(store, api.account_id, id).await.unwrap().unwrap();
    let three_days_ago = Timestamp(Timestamp::now().0 - chrono::Duration::hours(73));
    receivers::record_failure(store, &found, three_days_ago).await.unwrap();
    let failing = receivers::find(store, api.account_id, id).await.unwrap().unwrap();
    assert_eq!(failing.failing_since, Some(three_days_ago));
    assert!(failing.enabled, "one failure does not disable");
    receivers::record_failure(store, &failing, Timestamp::now()).await.unwrap();
    let listed = api.server.webhook_ops().list(api.account_id).await.unwrap();
    let view = &listed["webhooks"][0];
    assert_eq!(view["status"], "disabled");
    assert!(view["disabled_reason"].as_str().unwrap().contains("three days"), "{view}");
    // Enabling clears the streak.
    api.server.webhook_ops().set_enabled(api.account_id, id, true).await.unwrap();
    let again = receivers::find(store, api.account_id, id).await.unwrap().unwrap();
    assert!(again.enabled && again.failing_since.is_none() && again.disabled_reason.is_none());
}

#[tokio::test]
async fn every_change_of_a_billing_is_announced_and_its_creation_is_not() {
    let api = Api::start().await;
    let store = &api.server.store;
    let s = setup(&api).await;
    let cancelled = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    let settled = api.post("/v1/billings", &body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    assert!(events::recorded(store, api.account_id).await.unwrap().is_empty(), "creation is not announced");
    let changed = json!({"billing": {"due_date": "2030-04-01"}});
    api.patch(&format!("/v1/billings/{cancelled}"), &changed).await.expect(200);
    api.patch(&format!("/v1/billings/{cancelled}"), &changed).await.expect(200);
    assert_eq!(
        events::recorded(store, api.account_id).await.unwrap().len(),
        1,
        "an update that changes nothing is not"
    );
    api.server.register_billets().await;
    let reason = json!({"billing": {"cancellation_reason": "Teste"}});
    api.post(&format!("/v1/billings/{cancelled}/cancel"), &reason).await.expect(200);
    let account = infra::ops::create_bank_account(store, api.account_id, "Conta", "checking").await.unwrap();
    let pay_off =
        json!({"billing": {"bank_account_id": account["bank_account"]["id"], "discharge_reason": "bank_deposit"}});
    api.post(&format!("/v1/billings/{settled}/pay_off"), &pay_off).await.expect(200);
    let recorded = events::recorded(store, api.account_id).await.unwrap();
    let seen: Vec<(i64, &str)> = recorded
        .iter()
        .filter(|e| e["type"] == "billing.updated")
        .map(|e| (e["data"]["billing"]["id"].as_i64().unwrap(), e["data"]["billing"]["status"].as_str().unwrap()))
        .collect();
    // Updated; both billets registered (in either order); cancelled; settled.
    assert_eq!(seen.len(), 5, "{seen:?}");
    assert_eq!(seen[0], (cancelled, "opened"));
    assert!(seen[1..3].contains(&(cancelled, "opened")) && seen[1..3].contains(&(settled, "opened")));
    assert_eq!(&seen[3..], [(cancelled, "canceled"), (settled, "discharged")]);
    let updates: Vec<_> = recorded.iter().filter(|e| e["type"] == "billing.updated").collect();
    assert_eq!(updates[4]["data"]["billing"]["bank_billets"][0]["status"], "discharged");
    // The pay-off's payment.applied beside them, for the receivers that ask for it.
    let applied: Vec<_> = recorded.iter().filter(|e| e["type"] == "payment.applied").collect();
    assert_eq!((recorded.len(), applied.len()), (6, 1));
}
