//! Webhooks and events over the API (`/v1/webhooks`, `/v1/webhook_deliveries`,
//! `/v1/events`), with the tenancy, limits and error shapes of every `/v1` route. Receivers are
//! small HTTP servers on 127.0.0.1 (the tests' servers allow them, as the local switch does);
//! deliveries are checked with the published Standard Webhooks implementation.

use std::time::Duration;

use billing_api::events::{self, Event};
use billing_api::http::rate_limit::RateLimits;
use billing_api::webhooks::Schedule;
use infra::testing::DevServer;
use infra::webhook_receiver::{standard_webhooks_verify, Receiver};
use serde_json::{json, Value};

use super::support::{Answer, Api};

/// A dev server of its own (its outbox sweep sees only its events) with an account on it.
async fn alone() -> Api {
    Api::on(DevServer::start_alone(RateLimits::OFF).await).await
}

fn seconds(waits: &[u64]) -> Schedule {
    Schedule(waits.iter().map(|s| Duration::from_secs(*s)).collect())
}

/// Creates a webhook through the API; returns its answer's body.
async fn create(api: &Api, webhook: Value) -> Value {
    api.post("/v1/webhooks", &json!({ "webhook": webhook })).await.expect(201).body
}

fn id_of(body: &Value) -> i64 {
    body["id"].as_i64().expect("an id")
}

/// Waits until a delivery shown by the API satisfies `done`; returns it.
async fn delivery_when(api: &Api, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut shown = Value::Null;
    for _ in 0..150 {
        shown = api.get(&format!("/v1/webhook_deliveries/{id}")).await.expect(200).body;
        if done(&shown) {
            return shown;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("delivery {id} never got there: {shown}");
}

/// Records these events for the account straight in the outbox (as a change's transaction does).
async fn record(api: &Api, events: &[Event]) {
    infra::tampering::record_events(&api.server.store, events).await;
}

#[tokio::test]
async fn webhooks_are_created_listed_changed_rotated_and_removed_with_the_secret_masked() {
    let api = Api::start().await;
    let made = create(&api, json!({"url": "https://hooks.example.com/erp", "account_id": 999})).await;
    let id = id_of(&made);
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_") && secret.len() > 40, "in full on create: {secret}");
    assert_eq!(made["url"], "https://hooks.example.com/erp");
    assert_eq!(made["enabled"], true);
    assert_eq!(made["event_types"], json!(events::unasked_types()));
    assert!(made["disabled_reason"].is_null());

    // Masked everywhere else.
    let masked = format!("whsec_…{}", &secret[secret.len() - 4..]);
    let shown = api.get(&format!("/v1/webhooks/{id}")).await.expect(200).body;
    assert_eq!(shown["secret"], masked.as_str());
    let listed = api.get("/v1/webhooks").await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some("1"));
    assert_eq!(listed.body["webhooks"][0]["secret"], masked.as_str());
    assert!(!listed.text.contains(&secret));

    // PATCH: what it omits stays; event types chosen, then all again; disabled by the account.
    let changed = api
        .patch(
            &format!("/v1/webhooks/{id}"),
            &json!({"webhook": {"event_types": ["sale.updated", "billing.updated", "sale.updated"], "enabled": false}}),
        )
        .await
        .expect(200)
        .body;
    assert_eq!(changed["event_types"], json!(["billing.updated", "sale.updated"]));
    assert_eq!(
        (changed["enabled"].as_bool(), changed["url"].as_str()),
        (Some(false), Some("https://hooks.example.com/erp"))
    );
    assert!(changed["disabled_reason"].is_null() && changed["disabled_at"].is_string());
    assert_eq!(changed["secret"], masked.as_str());
    let changed = api
        .patch(
            &format!("/v1/webhooks/{id}"),
            &json!({"webhook": {"url": "https://hooks.example.com/v2", "enabled": true, "event_types": null}}),
        )
        .await
        .expect(200)
        .body;
    assert_eq!(changed["event_types"], json!(events::unasked_types()));
    assert_eq!(
        (changed["enabled"].as_bool(), changed["url"].as_str()),
        (Some(true), Some("https://hooks.example.com/v2"))
    );

    // A disabled-by-the-service receiver says why.
    api.server.webhook_ops().set_enabled(api.account_id, billing_api::values::WebhookId::new(id), false).await.unwrap();
    let shown = api.get(&format!("/v1/webhooks/{id}")).await.expect(200).body;
    assert_eq!(
        (shown["enabled"].as_bool(), shown["disabled_reason"].as_str()),
        (Some(false), Some("disabled by an operator"))
    );
    api.patch(&format!("/v1/webhooks/{id}"), &json!({"webhook": {"enabled": true}})).await.expect(200);

    // rotate_secret: a new secret, in full this once; the old one keeps signing for a day.
    let rotated = api.post(&format!("/v1/webhooks/{id}/rotate_secret"), &json!({})).await.expect(200).body;
    let new_secret = rotated["secret"].as_str().unwrap();
    assert!(new_secret.starts_with("whsec_") && new_secret != secret && !new_secret.contains('…'));
    assert!(rotated["previous_secret_signs_until"].is_string());
    let shown = api.get(&format!("/v1/webhooks/{id}")).await.expect(200).body;
    assert_eq!(shown["secret"], format!("whsec_…{}", &new_secret[new_secret.len() - 4..]).as_str());

    // Removed: gone, and its place is free again.
    assert_eq!(api.delete(&format!("/v1/webhooks/{id}")).await.expect(204).text, "");
    api.get(&format!("/v1/webhooks/{id}")).await.expect(404);
    api.delete(&format!("/v1/webhooks/{id}")).await.expect(404);
    assert_eq!(api.get("/v1/webhooks").await.expect(200).body, json!({"webhooks": []}));
}

#[tokio::test]
async fn a_fourth_webhook_and_bad_input_get_clear_422s() {
    let api = Api::start().await;
    for n in 1..=3 {
        create(&api, json!({"url": format!("https://hooks.example.com/{n}")})).await;
    }
    let fourth =
        api.post("/v1/webhooks", &json!({"webhook": {"url": "https://hooks.example.com/4"}})).await.expect(422);
    assert_eq!(fourth.body["code"], "webhook_limit_reached");
    assert!(fourth.body["message"].as_str().unwrap().contains("já tem 3 webhooks"), "{}", fourth.text);
    assert_eq!(api.get("/v1/webhooks?per_page=2").await.expect(200).header("x-total-count"), Some("3"));
    let id = id_of(&api.get("/v1/webhooks").await.body["webhooks"][0]);

    let refused = |answer: Answer| answer.expect(422).errors().join(" | ");
    let post = |body: Value| {
        let api = &api;
        async move { api.post("/v1/webhooks", &body).await }
    };
    assert!(refused(post(json!({})).await).contains("Parâmetro obrigatório ausente: webhook"));
    assert!(refused(post(json!({"webhook": {}})).await).contains("url não pode ficar em branco"));
    let patch = |body: Value| {
        let api = &api;
        async move { api.patch(&format!("/v1/webhooks/{id}"), &json!({ "webhook": body })).await }
    };
    for (body, said) in [
        (json!({"url": "ftp://hooks.example.com/"}), "https://"),
        (json!({"url": "http://10.0.0.8/hook"}), "não é público (10.0.0.8)"),
        (json!({"url": "https://169.254.169.254/latest"}), "não é público"),
        (json!({"url": "https://user:pw@hooks.example.com/"}), "usuário ou senha"),
        (json!({"url": "não é url"}), "não é um endereço válido"),
        (json!({"url": ""}), "url não pode ficar em branco"),
        (json!({"event_types": ["billing.updated", "billing.deleted"]}), "desconhecidos: billing.deleted"),
        (json!({"event_types": ["ping"]}), "desconhecidos: ping"),
        (json!({"event_types": []}), "não pode ser vazia"),
        (json!({"event_types": "a,b"}), "desconhecidos"),
        (json!({"enabled": "talvez"}), "enabled não é válido"),
    ] {
        let said_now = refused(patch(body.clone()).await);
        assert!(said_now.contains(said), "{body}: {said_now}");
    }
    // Nothing changed.
    let shown = api.get(&format!("/v1/webhooks/{id}")).await.expect(200).body;
    assert_eq!((shown["url"].as_str(), shown["enabled"].as_bool()), (Some("https://hooks.example.com/1"), Some(true)));
    // Malformed JSON is the spec's 400; a form body works as everywhere.
    api.raw(reqwest::Method::POST, "/v1/webhooks", "application/json", "{").await.expect(400);
    let form = "webhook[event_types][]=sale.updated&webhook[enabled]=false";
    let changed = api.form(reqwest::Method::PATCH, &format!("/v1/webhooks/{id}"), form).await.expect(200).body;
    assert_eq!((changed["event_types"].clone(), changed["enabled"].as_bool()), (json!(["sale.updated"]), Some(false)));
}

#[tokio::test]
async fn another_accounts_webhooks_deliveries_and_events_are_404() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 200).await;
    let id = id_of(&create(&api, json!({"url": receiver.url})).await);
    api.server.start_webhooks(seconds(&[1]));
    let ping = api.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(202).body;
    let delivery = ping["id"].as_str().unwrap().to_owned();
    let event = ping["event_id"].as_str().unwrap().to_owned();

    let other = api.other_account().await;
    for path in [
        format!("/v1/webhooks/{id}"),
        format!("/v1/webhook_deliveries/{delivery}"),
        format!("/v1/events/{event}"),
        "/v1/webhooks/abc".to_owned(),
        "/v1/webhooks/0".to_owned(),
        "/v1/webhook_deliveries/dlv_nope".to_owned(),
        "/v1/events/evt_nope".to_owned(),
    ] {
        other.get(&path).await.expect(404);
    }
    other.patch(&format!("/v1/webhooks/{id}"), &json!({"webhook": {"enabled": false}})).await.expect(404);
    other.post(&format!("/v1/webhooks/{id}/rotate_secret"), &json!({})).await.expect(404);
    other.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(404);
    other.post(&format!("/v1/webhook_deliveries/{delivery}/replay"), &json!({})).await.expect(404);
    other.delete(&format!("/v1/webhooks/{id}")).await.expect(404);
    assert_eq!(other.get("/v1/webhooks").await.expect(200).body, json!({"webhooks": []}));
    assert_eq!(other.get("/v1/events").await.expect(200).body, json!({"events": []}));
    let listed = other.get(&format!("/v1/webhook_deliveries?webhook_id={id}")).await.expect(200);
    assert_eq!(listed.body, json!({"webhook_deliveries": []}));
    assert_eq!(other.get("/v1/webhook_deliveries").await.expect(200).body, json!({"webhook_deliveries": []}));
    // Still there for its own account; without a token, 401 as everywhere.
    api.get(&format!("/v1/webhooks/{id}")).await.expect(200);
    api.with_auth(None).get("/v1/webhooks").await.expect(401);
    api.with_auth(None).get("/v1/events").await.expect(401);
}

#[tokio::test]
async fn a_test_ping_is_signed_and_delivered_to_that_receiver_only() {
    let api = alone().await;
    let (pinged, bystander) = (Receiver::start(&[], 200).await, Receiver::start(&[], 200).await);
    let made = create(&api, json!({"url": pinged.url, "event_types": ["sale.updated"]})).await;
    let (id, secret) = (id_of(&made), made["secret"].as_str().unwrap().to_owned());
    create(&api, json!({"url": bystander.url})).await;
    api.server.start_webhooks(seconds(&[1]));

    let answer = api.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(202).body;
    let delivery_id = answer["id"].as_str().unwrap().to_owned();
    assert!(delivery_id.starts_with("dlv_") && delivery_id.ends_with(&format!("_{id}")), "{answer}");
    assert_eq!((answer["event_type"].as_str(), answer["webhook_id"].as_i64()), (Some("ping"), Some(id)));
    assert_eq!(answer["status"], "pending");

    let got = pinged.wait_for("the ping", |r| r.json()["type"] == "ping").await;
    assert_eq!(got.header("webhook-id"), delivery_id);
    assert_eq!(got.header("x-service-delivery"), delivery_id);
    let body = got.json();
    assert_eq!(body["id"], answer["event_id"]);
    assert_eq!(body["data"], json!({"webhook": {"id": id, "url": pinged.url}}));
    let verdict = standard_webhooks_verify(&[(secret.as_str(), &got)]);
    assert_eq!(verdict["ok"], true, "{verdict}");

    let shown = delivery_when(&api, &delivery_id, |d| d["status"] == "delivered").await;
    assert_eq!(shown["attempts_count"], 1);
    assert_eq!(shown["last_response_status"], 200);
    assert!(shown["last_attempt_at"].is_string() && shown["last_latency_ms"].is_u64());
    let attempts = shown["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!((attempts[0]["attempt"].as_u64(), attempts[0]["response_status"].as_u64()), (Some(1), Some(200)));
    // The ping is an event of the account, listed and shown.
    let listed = api.get("/v1/events?type=ping").await.expect(200).body;
    assert_eq!(listed["events"].as_array().unwrap().len(), 1);
    assert_eq!(listed["events"][0], body);
    assert_eq!(api.get(&format!("/v1/events/{}", body["id"].as_str().unwrap())).await.expect(200).body, body);
    // The other receiver got nothing (it takes every type, but a ping is for one receiver).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(bystander.received().is_empty(), "{:?}", bystander.received());

    // A disabled receiver is not pinged.
    api.patch(&format!("/v1/webhooks/{id}"), &json!({"webhook": {"enabled": false}})).await.expect(200);
    let refused = api.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(422);
    assert_eq!(refused.body["code"], "webhook_disabled");
}

#[tokio::test]
async fn the_dispatcher_sends_a_receiver_only_the_event_types_it_takes() {
    let api = alone().await;
    let (sales, everything) = (Receiver::start(&[], 200).await, Receiver::start(&[], 200).await);
    let sales_id = id_of(&create(&api, json!({"url": sales.url, "event_types": ["sale.updated"]})).await);
    let all_id = id_of(&create(&api, json!({"url": everything.url})).await);
    api.server.start_webhooks(seconds(&[1]));

    let billing = Event::new(api.account_id, events::BILLING_UPDATED, json!({"billing": {"id": 1}}));
    let sale = Event::new(api.account_id, events::SALE_UPDATED, json!({"sale": {"code": "000001"}}));
    infra::tampering::record_event(&api.server.store, &billing).await;
    infra::tampering::record_event(&api.server.store, &sale).await;

    everything.wait_for_count(2).await;
    let got = sales.wait_for("the sale", |r| r.json()["type"] == "sale.updated").await;
    assert_eq!(got.json()["id"], sale.event_id.as_str());
    // The billing event has one delivery, to the receiver that takes every type.
    let path = format!("/v1/webhook_deliveries?event_id={}", billing.event_id);
    let of_billing = api.get(&path).await.expect(200).body["webhook_deliveries"].as_array().unwrap().clone();
    assert_eq!(of_billing.len(), 1, "{of_billing:?}");
    assert_eq!(of_billing[0]["webhook_id"], all_id);
    let path = format!("/v1/webhook_deliveries?event_id={}", sale.event_id);
    assert_eq!(api.get(&path).await.expect(200).body["webhook_deliveries"].as_array().unwrap().len(), 2);
    let of_sales = api.get(&format!("/v1/webhook_deliveries?webhook_id={sales_id}")).await.expect(200).body;
    let types: Vec<&Value> =
        of_sales["webhook_deliveries"].as_array().unwrap().iter().map(|d| &d["event_type"]).collect();
    assert_eq!(types, [&json!("sale.updated")]);
    assert!(sales.received().iter().all(|r| r.json()["type"] == "sale.updated"), "{:?}", sales.received());
}

#[tokio::test]
async fn a_failed_delivery_is_listed_and_replayed_with_its_id() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 500).await;
    let id = id_of(&create(&api, json!({"url": receiver.url})).await);
    let delivery_id = api.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(202).body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Still pending (no sender runs yet): a replay is refused, it is on its way.
    let pending = api.post(&format!("/v1/webhook_deliveries/{delivery_id}/replay"), &json!({})).await.expect(422);
    assert_eq!(pending.body["code"], "delivery_pending");
    let listed = api.get("/v1/webhook_deliveries?status=pending").await.expect(200).body;
    assert!(listed["webhook_deliveries"][0]["next_attempt_at"].is_string(), "{listed}");
    api.server.start_webhooks(seconds(&[1]));
    let failed = delivery_when(&api, &delivery_id, |d| d["status"] == "failed").await;
    assert_eq!((failed["attempts_count"].as_u64(), failed["last_response_status"].as_u64()), (Some(2), Some(500)));
    assert!(failed["next_attempt_at"].is_null() && failed["failed_at"].is_string());
    assert_eq!(failed["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(failed["attempts"][0]["error"], "answered 500 Internal Server Error");

    let listed = api.get("/v1/webhook_deliveries?status=failed").await.expect(200);
    let found = listed.body["webhook_deliveries"].as_array().unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!((found[0]["id"].as_str(), found[0]["attempts_count"].as_u64()), (Some(delivery_id.as_str()), Some(2)));
    assert!(found[0].get("attempts").is_none(), "a list shows the last attempt, not the log");
    assert_eq!(listed.header("x-per-page"), Some("25"));
    assert!(listed.header("x-next-cursor").is_none());
    assert_eq!(
        api.get("/v1/webhook_deliveries?status=delivered").await.expect(200).body,
        json!({"webhook_deliveries": []})
    );

    receiver.answer_from_now_on(200);
    let replayed = api.post(&format!("/v1/webhook_deliveries/{delivery_id}/replay"), &json!({})).await.expect(202).body;
    assert_eq!((replayed["id"].as_str(), replayed["status"].as_str()), (Some(delivery_id.as_str()), Some("pending")));
    assert!(replayed["replayed_at"].is_string());
    let got = receiver.wait_for_count(3).await;
    assert!(got.iter().all(|r| r.header("webhook-id") == delivery_id));
    let delivered = delivery_when(&api, &delivery_id, |d| d["status"] == "delivered").await;
    let statuses: Vec<&Value> =
        delivered["attempts"].as_array().unwrap().iter().map(|a| &a["response_status"]).collect();
    assert_eq!(statuses, [&json!(500), &json!(500), &json!(200)]);
    // A delivered delivery can be sent again too.
    api.post(&format!("/v1/webhook_deliveries/{delivery_id}/replay"), &json!({})).await.expect(202);
    receiver.wait_for_count(4).await;

    // Bad filters are 422s naming them.
    for (query, said) in [
        ("status=lost", "status inválido"),
        ("event_id=123", "event_id inválido"),
        ("webhook_id=abc", "webhook_id inválido"),
        ("cursor=x", "cursor inválido"),
    ] {
        let errors = api.get(&format!("/v1/webhook_deliveries?{query}")).await.expect(422).errors().join(" | ");
        assert!(errors.contains(said), "{query}: {errors}");
    }
    api.post("/v1/webhook_deliveries/dlv_nope/replay", &json!({})).await.expect(404);
}

#[tokio::test]
async fn deliveries_are_paged_by_cursor() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 200).await;
    let id = id_of(&create(&api, json!({"url": receiver.url})).await);
    let mut made = Vec::new();
    for _ in 0..5 {
        made.push(api.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(202).body["id"].clone());
        // Events of one millisecond are in the order of their random part: apart, in order made.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    made.reverse();
    let mut seen = Vec::new();
    let mut path = "/v1/webhook_deliveries?per_page=2".to_owned();
    loop {
        let page = api.get(&path).await.expect(200);
        seen.extend(page.body["webhook_deliveries"].as_array().unwrap().iter().map(|d| d["id"].clone()));
        match page.header("link") {
            // A reference of the query alone, resolved against the URL asked (RFC 3986).
            Some(link) => {
                let reference = link.trim_start_matches('<').split('>').next().unwrap();
                assert!(reference.starts_with('?'), "{link}");
                path = format!("{}{reference}", path.split('?').next().unwrap());
            }
            None => break,
        }
    }
    assert_eq!(seen, made, "newest first, each once");
    let second = api.get("/v1/webhook_deliveries?per_page=2&page=2").await.expect(200).body;
    assert_eq!(
        second["webhook_deliveries"].as_array().unwrap().iter().map(|d| d["id"].clone()).collect::<Vec<_>>(),
        made[2..4]
    );
}

/// Follows `X-Next-Cursor` from `path` to the end; returns every event id seen and how many pages.
async fn every_page(api: &Api, path: &str) -> (Vec<String>, usize) {
    let (mut ids, mut pages) = (Vec::new(), 0);
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(cursor) => format!("{path}&cursor={cursor}"),
            None => path.to_owned(),
        };
        let page = api.get(&url).await.expect(200);
        pages += 1;
        assert!(page.header("x-total-count").is_none());
        ids.extend(page.body["events"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_owned()));
        match page.header("x-next-cursor") {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (ids, pages),
        }
        assert!(pages < 100, "runaway paging");
    }
}

#[tokio::test]
async fn events_are_paged_newest_first_across_their_shards() {
    let api = Api::start().await;
    let mut made: Vec<Event> = Vec::new();
    for n in 0..60 {
        let kind = if n % 20 == 0 { events::SALE_UPDATED } else { events::BILLING_UPDATED };
        made.push(Event::new(api.account_id, kind, json!({"n": n})));
        if n % 7 == 0 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    record(&api, &made).await;
    let shards = infra::tampering::event_partitions(api.account_id, &made);
    assert!(shards.len() > 10, "spread over shards: {}", shards.len());
    let mut newest_first: Vec<&Event> = made.iter().collect();
    newest_first.sort_by_key(|e| std::cmp::Reverse((e.created_at, e.event_id.clone())));
    let expected: Vec<String> = newest_first.iter().map(|e| e.event_id.clone()).collect();

    let first = api.get("/v1/events?per_page=25").await.expect(200);
    assert_eq!((first.header("x-page"), first.header("x-per-page")), (Some("1"), Some("25")));
    let link = first.header("link").unwrap();
    // A reference of the query alone: resolved against the URL asked, it keeps the API's stage.
    assert!(link.starts_with("<?per_page=25&cursor=evt_") && link.ends_with(">; rel=\"next\""), "{link}");
    let (ids, pages) = every_page(&api, "/v1/events?per_page=25").await;
    assert_eq!(ids, expected, "every event once, newest first");
    assert_eq!(pages, 3);
    // Page numbers give the same pages as the cursor.
    let second = api.get("/v1/events?per_page=25&page=2").await.expect(200).body;
    let second: Vec<&str> = second["events"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(second, expected[25..50]);
    let shown = api.get(&format!("/v1/events/{}", expected[0])).await.expect(200).body;
    assert_eq!(shown, newest_first[0].body().unwrap(), "the body its deliveries carry");

    // By type, and by dates or moments.
    let (sales, _) = every_page(&api, "/v1/events?type=sale.updated&per_page=2").await;
    let expected_sales: Vec<String> =
        newest_first.iter().filter(|e| e.event_type == events::SALE_UPDATED).map(|e| e.event_id.clone()).collect();
    assert_eq!(sales, expected_sales);
    let today = billing_api::values::today();
    let tomorrow = today.succ_opt().unwrap();
    let in_range = |query: String| {
        let api = &api;
        async move {
            api.get(&format!("/v1/events?per_page=100&{query}")).await.expect(200).body["events"]
                .as_array()
                .unwrap()
                .len()
        }
    };
    assert_eq!(in_range(format!("start_created_at={today}&end_created_at={today}")).await, 60);
    assert_eq!(in_range(format!("start_created_at={tomorrow}")).await, 0);
    assert_eq!(in_range(format!("end_created_at={}", today.pred_opt().unwrap())).await, 0);
    let middle = &newest_first[30];
    let moment = middle.created_at.0.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let since = in_range(format!("start_created_at={}", moment.replace('+', "%2B"))).await;
    let expected_since = made.iter().filter(|e| e.created_at >= middle.created_at).count();
    assert_eq!(since, expected_since);

    // Bad filters are 422s naming them.
    for (query, said) in [
        ("type=billing.deleted", "type inválido"),
        ("start_created_at=ontem", "start_created_at inválido"),
        ("end_created_at=2026-02-30", "end_created_at inválido"),
        ("cursor=abc", "cursor inválido"),
    ] {
        let errors = api.get(&format!("/v1/events?{query}")).await.expect(422).errors().join(" | ");
        assert!(errors.contains(said), "{query}: {errors}");
    }
    // Pagination parameters are read as on every list.
    let clamped = api.get("/v1/events?per_page=500&page=-1").await.expect(200);
    assert_eq!((clamped.header("x-page"), clamped.header("x-per-page")), (Some("1"), Some("100")));
    assert_eq!(clamped.body["events"].as_array().unwrap().len(), 60);
}

#[tokio::test]
async fn a_rare_type_gives_a_short_page_and_a_cursor_rather_than_a_long_read() {
    let api = Api::start().await;
    let sale = Event::new(api.account_id, events::SALE_UPDATED, json!({}));
    tokio::time::sleep(Duration::from_millis(5)).await;
    let newer: Vec<Event> = (0..events::LIST_READ_LIMIT + 10)
        .map(|n| Event::new(api.account_id, events::BILLING_UPDATED, json!({"n": n})))
        .collect();
    record(&api, std::slice::from_ref(&sale)).await;
    record(&api, &newer).await;
    let first = api.get("/v1/events?type=sale.updated").await.expect(200);
    assert_eq!(first.body, json!({"events": []}), "no sale among the newest {} events", events::LIST_READ_LIMIT);
    let cursor = first.header("x-next-cursor").expect("a cursor to go on from").to_owned();
    let second = api.get(&format!("/v1/events?type=sale.updated&cursor={cursor}")).await.expect(200);
    assert_eq!(second.body["events"][0]["id"], sale.event_id.as_str());
}

#[tokio::test]
async fn an_idempotent_create_makes_one_webhook_and_its_replay_keeps_no_secret() {
    let api = Api::start().await;
    let keyed = api.with_header("Idempotency-Key", "erp-webhook-1");
    let body = json!({"webhook": {"url": "https://hooks.example.com/once"}});
    let first = keyed.post("/v1/webhooks", &body).await.expect(201);
    assert_eq!(first.header("cache-control"), Some("no-store"));
    let secret = first.body["secret"].as_str().unwrap().to_owned();
    let again = keyed.post("/v1/webhooks", &body).await.expect(201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body["id"], first.body["id"]);
    assert_eq!(again.body["secret"], format!("whsec_…{}", &secret[secret.len() - 4..]).as_str());
    assert_eq!(api.get("/v1/webhooks").await.expect(200).body["webhooks"].as_array().unwrap().len(), 1);
    // The kept answer holds no secret in plain.
    let stored = infra::tampering::idempotency_claim(&api.server.store, api.account_id, "erp-webhook-1");
    // The answer is kept as bytes, which the item shows in hex.
    let stored = format!("{:?}", stored.await);
    let hex = |text: &str| text.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    assert!(stored.contains(&hex("\"secret\":\"whsec_")), "the claim and its answer: {stored}");
    assert!(!stored.contains(&hex(&secret[6..])), "the kept answer shows the secret");
}

#[tokio::test]
async fn a_ping_to_a_receiver_removed_before_its_dispatch_is_settled_not_left_pending() {
    let api = alone().await;
    let receiver = Receiver::start(&[], 200).await;
    let id = id_of(&create(&api, json!({"url": receiver.url})).await);
    let ping = api.post(&format!("/v1/webhooks/{id}/test"), &json!({})).await.expect(202).body;
    let delivery = ping["id"].as_str().unwrap().to_owned();
    api.delete(&format!("/v1/webhooks/{id}")).await.expect(204);
    api.server.start_webhooks(seconds(&[1]));
    let failed = delivery_when(&api, &delivery, |d| d["status"] == "failed").await;
    assert_eq!(failed["last_error"], "receiver removed");
    assert!(receiver.received().is_empty());
    // Its replay is refused: the receiver is gone.
    let refused = api.post(&format!("/v1/webhook_deliveries/{delivery}/replay"), &json!({})).await.expect(422);
    assert_eq!(refused.body["code"], "webhook_removed");
}

#[tokio::test]
async fn the_ops_cli_and_the_api_see_the_same_receivers_and_event_types() {
    let api = Api::start().await;
    let ops = api.server.webhook_ops();
    let added =
        ops.register(api.account_id, "https://hooks.example.com/ops", Some(vec!["sale.updated".into()])).await.unwrap();
    let id = added["webhook"]["id"].as_i64().unwrap();
    assert_eq!(added["webhook"]["event_types"], json!(["sale.updated"]));
    let shown = api.get(&format!("/v1/webhooks/{id}")).await.expect(200).body;
    assert_eq!(shown["event_types"], json!(["sale.updated"]));
    let refused =
        ops.register(api.account_id, "https://hooks.example.com/x", Some(vec!["nope".into()])).await.unwrap_err();
    assert!(format!("{refused:#}").contains("unknown event types: nope"), "{refused:#}");
    api.patch(&format!("/v1/webhooks/{id}"), &json!({"webhook": {"event_types": null}})).await.expect(200);
    let listed = ops.list(api.account_id).await.unwrap();
    assert_eq!(listed["webhooks"][0]["event_types"], json!(events::unasked_types()));
}
