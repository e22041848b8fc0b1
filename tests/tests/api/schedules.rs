//! Schedules (`POST /v1/schedules`, beyond the spec): a schedule is the spec's `billing_type:
//! schedule` record; the daily run issues each cycle's billing on its issue day, once, with its
//! billet and `billing.updated` event; an edit of its terms or calendar reaches the next cycle; a
//! deleted one issues nothing; bad input is a 422 naming each field.
//!
//! Each test has a table of its own: a day's run reads the issuing index of the whole table, so
//! another test's schedules would be issued by this test's runs.

use chrono::NaiveDate;
use serde_json::{json, Value};

use super::billings::{setup, Setup};
use super::support::Api;

async fn start() -> Api {
    Api::on(infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await).await
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

/// A monthly schedule of 150.00 due on the 10th from January 2031, three cycles, issued ten days
/// before each due date.
fn schedule_body(s: &Setup) -> Value {
    json!({"schedule": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact, "bill_category_id": s.receivable,
        "penalty": "2", "penalty_type": "percentage", "interest": "1", "interest_type": "percentage",
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}],
        "period": "monthly", "due_day": 10, "start_date": "2031-01-01", "cycles": 3
    }})
}

/// The billings the schedule's cycles made, oldest first.
async fn cycles_of(api: &Api, schedule: i64) -> Vec<Value> {
    let listed = api.get(&format!("/v1/billings?billing_id={schedule}&per_page=100")).await.expect(200).body;
    let mut billings = listed["billings"].as_array().unwrap().clone();
    billings.sort_by_key(|b| b["id"].as_i64());
    billings
}

#[tokio::test]
async fn a_schedule_issues_each_cycle_once_on_its_issue_day() {
    let api = start().await;
    let s = setup(&api).await;
    let made = api.post("/v1/schedules", &schedule_body(&s)).await.expect(201).body;
    let id = made["id"].as_i64().unwrap();
    assert_eq!((made["billing_type"].as_str(), made["status"].as_str()), (Some("schedule"), Some("opened")), "{made}");
    assert_eq!(made["due_date"], "2031-01-10", "the next cycle's due date");
    assert!(made["bank_billets"].as_array().unwrap().is_empty(), "a schedule has no billet of its own");
    let recurrence = &made["recurrence"];
    assert_eq!(recurrence["period"], "monthly");
    assert_eq!((recurrence["every"].as_i64(), recurrence["due_day"].as_i64()), (Some(1), Some(10)));
    assert_eq!((recurrence["cycles"].as_i64(), recurrence["lead_days"].as_i64()), (Some(3), Some(10)));
    assert_eq!(recurrence["next_issue_date"], "2031-01-01", "never before the start");
    assert_eq!(recurrence["cycles_issued"], 0);
    let listed = api.get("/v1/billings?billing_type=schedule").await.expect(200).body;
    assert_eq!(listed["billings"].as_array().unwrap().len(), 1, "{listed}");

    assert_eq!(api.server.issue_schedules(day("2030-12-31")).await, 0, "nothing is due the day before");
    assert!(cycles_of(&api, id).await.is_empty());
    assert_eq!(api.server.issue_schedules(day("2031-01-01")).await, 1);
    let cycles = cycles_of(&api, id).await;
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let first = &cycles[0];
    assert_eq!((first["billing_type"].as_str(), first["due_date"].as_str()), (Some("billing"), Some("2031-01-10")));
    assert_eq!(first["amount"], "150.00");
    // Its billet is registered as any billing's, and its `billing.updated` event was sent.
    assert_eq!(api.server.register_billets().await, 1);
    let shown = api.get(&format!("/v1/billings/{}", first["id"])).await.expect(200).body;
    let billet = &shown["bank_billets"][0];
    assert!(billet["barcode"].as_str().is_some_and(|b| b.len() == 44), "{shown}");
    assert_eq!(shown["penalty"], "2.00", "the schedule's terms: {shown}");
    let events = api.get("/v1/events?per_page=100").await.expect(200).body;
    let announced = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|event| event["type"] == "billing.updated" && event["data"]["billing"]["id"] == first["id"]);
    assert!(announced, "{events}");

    // The same day again, and a day later: nothing new.
    api.server.issue_schedules(day("2031-01-01")).await;
    api.server.issue_schedules(day("2031-01-02")).await;
    assert_eq!(cycles_of(&api, id).await.len(), 1);
    let schedule = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!(schedule["due_date"], "2031-02-10", "{schedule}");
    assert_eq!(schedule["recurrence"]["cycles_issued"], 1);
    assert_eq!(schedule["recurrence"]["last_billing_id"], first["id"]);

    // The two cycles left, and then no more.
    api.server.issue_schedules(day("2031-02-01")).await;
    api.server.issue_schedules(day("2031-03-01")).await;
    api.server.issue_schedules(day("2031-04-01")).await;
    let due: Vec<_> = cycles_of(&api, id).await.iter().map(|b| b["due_date"].as_str().unwrap().to_owned()).collect();
    assert_eq!(due, ["2031-01-10", "2031-02-10", "2031-03-10"]);
    let schedule = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert!(schedule["recurrence"]["next_due_date"].is_null(), "{schedule}");
}

#[tokio::test]
async fn a_first_cycle_due_to_be_billed_today_is_billed_by_the_create() {
    let api = start().await;
    let s = setup(&api).await;
    let due = billing_api::values::today() + chrono::Duration::days(5);
    let mut body = schedule_body(&s);
    body["schedule"]["start_date"] = json!(billing_api::values::today().to_string());
    body["schedule"]["due_day"] = json!(chrono::Datelike::day(&due));
    let made = api.post("/v1/schedules", &body).await.expect(201).body;
    assert_eq!(made["recurrence"]["cycles_issued"], 1, "{made}");
    let cycles = cycles_of(&api, made["id"].as_i64().unwrap()).await;
    assert_eq!(cycles.len(), 1);
    assert_eq!(made["recurrence"]["last_billing_id"], cycles[0]["id"]);
    // The day's run finds nothing more.
    api.server.issue_schedules(billing_api::values::today()).await;
    assert_eq!(cycles_of(&api, made["id"].as_i64().unwrap()).await.len(), 1);
}

#[tokio::test]
async fn two_runs_at_once_issue_a_cycle_once() {
    let api = start().await;
    let s = setup(&api).await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(api.post("/v1/schedules", &schedule_body(&s)).await.expect(201).body["id"].as_i64().unwrap());
    }
    let store = &api.server.store;
    let on = day("2031-01-02");
    let (a, b) = tokio::join!(
        Box::pin(billing_api::schedules::run::run_day(store, on, 4)),
        Box::pin(billing_api::schedules::run::run_day(store, on, 4))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.failed + b.failed, 0, "{a:?} {b:?}");
    let again = billing_api::schedules::run::run_day(store, on, 4).await.unwrap();
    assert_eq!(again.issued, 0, "{again:?}");
    for id in ids {
        assert_eq!(cycles_of(&api, id).await.len(), 1, "schedule {id}");
    }
}

#[tokio::test]
async fn an_edited_schedule_issues_its_new_terms_and_a_deleted_one_nothing() {
    let api = start().await;
    let s = setup(&api).await;
    let id = api.post("/v1/schedules", &schedule_body(&s)).await.expect(201).body["id"].as_i64().unwrap();
    api.server.issue_schedules(day("2031-01-01")).await;

    // Its terms through the spec's route; its calendar through its own. Cycle 0 keeps its own.
    let terms = json!({"billing": {"billing_items": [{"description": "Mensalidade 2031", "quantity": 1, "amount": "180.00"}],
        "due_date": "2040-01-01"}});
    let edited = api.patch(&format!("/v1/billings/{id}"), &terms).await.expect(200).body;
    assert_eq!((edited["amount"].as_str(), edited["due_date"].as_str()), (Some("180.00"), Some("2031-02-10")));
    let calendar = json!({"schedule": {"due_day": 20, "lead_days": 5}});
    let moved = api.patch(&format!("/v1/schedules/{id}"), &calendar).await.expect(200).body;
    assert_eq!(moved["due_date"], "2031-02-20", "{moved}");
    assert_eq!(moved["recurrence"]["next_issue_date"], "2031-02-15");
    assert_eq!(api.server.issue_schedules(day("2031-02-14")).await, 0);
    api.server.issue_schedules(day("2031-02-15")).await;
    let cycles = cycles_of(&api, id).await;
    assert_eq!(cycles.len(), 2);
    assert_eq!((cycles[0]["amount"].as_str(), cycles[0]["due_date"].as_str()), (Some("150.00"), Some("2031-01-10")));
    assert_eq!((cycles[1]["amount"].as_str(), cycles[1]["due_date"].as_str()), (Some("180.00"), Some("2031-02-20")));

    // Deleted: nothing more, and its billings stay.
    api.delete(&format!("/v1/billings/{id}")).await.expect(204);
    assert_eq!(api.server.issue_schedules(day("2031-03-30")).await, 0);
    assert_eq!(cycles_of(&api, id).await.len(), 2);
    api.patch(&format!("/v1/schedules/{id}"), &json!({"schedule": {"due_day": 5}})).await.expect(404);
}

#[tokio::test]
async fn a_schedule_deleted_or_edited_while_its_cycle_is_billed_gives_one_outcome() {
    let api = start().await;
    let s = setup(&api).await;
    let (mut deleted, mut edited) = (Vec::new(), Vec::new());
    for _ in 0..4 {
        deleted.push(api.post("/v1/schedules", &schedule_body(&s)).await.expect(201).body["id"].as_i64().unwrap());
        edited.push(api.post("/v1/schedules", &schedule_body(&s)).await.expect(201).body["id"].as_i64().unwrap());
    }
    let store = &api.server.store;
    let terms = json!({"billing": {"billing_items": [{"description": "Nova", "quantity": 1, "amount": "99.00"}]}});
    let changes = async {
        for (gone, changed) in deleted.iter().zip(&edited) {
            api.delete(&format!("/v1/billings/{gone}")).await.expect(204);
            api.patch(&format!("/v1/billings/{changed}"), &terms).await.expect(200);
        }
    };
    let (report, ()) =
        tokio::join!(Box::pin(billing_api::schedules::run::run_day(store, day("2031-01-01"), 2)), changes);
    let report = report.unwrap();
    assert_eq!(report.failed, 0, "{report:?}");
    // A deleted schedule billed its cycle if the run came first, and nothing if the delete did.
    for id in &deleted {
        assert!(cycles_of(&api, *id).await.len() <= 1, "schedule {id}");
    }
    // An edited one billed its cycle once, with the terms of whichever came first.
    billing_api::schedules::run::run_day(store, day("2031-01-02"), 2).await.unwrap();
    for id in &edited {
        let cycles = cycles_of(&api, *id).await;
        assert_eq!(cycles.len(), 1, "schedule {id}: {cycles:?}");
        assert!(["150.00", "99.00"].contains(&cycles[0]["amount"].as_str().unwrap()), "{:?}", cycles[0]);
    }
}

#[tokio::test]
async fn a_bad_schedule_is_refused_naming_each_field() {
    let api = start().await;
    let s = setup(&api).await;
    let mut bad = schedule_body(&s);
    let fields = bad["schedule"].as_object_mut().unwrap();
    fields.remove("due_day");
    fields.insert("end_date".into(), json!("2031-06-30"));
    fields.insert("period".into(), json!("daily"));
    fields.insert("lead_days".into(), json!(90));
    fields.insert("start_date".into(), json!("2020-01-01"));
    fields.remove("billing_items");
    let refused = api.post("/v1/schedules", &bad).await.expect(422);
    let named: Vec<_> = refused.details().into_iter().filter_map(|(field, _)| field).collect();
    for field in ["cycles", "period", "lead_days", "start_date", "billing_items"] {
        assert!(named.iter().any(|n| n == field), "{field} in {named:?}");
    }
    api.post("/v1/schedules", &json!({"billing": {}})).await.expect(422);
    let mut bulk = schedule_body(&s);
    bulk["schedule"]["contact_id"] = Value::Null;
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "Turma A"}})).await.expect(201).body["id"].clone();
    bulk["schedule"]["tag_id"] = tag;
    api.post("/v1/schedules", &bulk).await.expect(422);
    assert_eq!(
        api.get("/v1/billings?billing_type=schedule").await.expect(200).body["billings"],
        json!([]),
        "none saved"
    );

    // A billing is no schedule: its calendar cannot be changed.
    let billing = json!({"billing": {"bank_rule_id": s.bank_rule, "contact_id": s.contact, "due_date": "2031-03-03",
        "billing_items": [{"description": "Avulsa", "quantity": 1, "amount": "50.00"}]}});
    let id = api.post("/v1/billings", &billing).await.expect(201).body["id"].as_i64().unwrap();
    api.patch(&format!("/v1/schedules/{id}"), &json!({"schedule": {"due_day": 5}})).await.expect(422);
    api.patch("/v1/schedules/999999", &json!({"schedule": {"due_day": 5}})).await.expect(404);
}
