//! Individual create and show (§2.1, §4.2): the single representation, the billet request,
//! references and validation.

use serde_json::{json, Value};

use super::support::Api;
use super::{body, setup};

#[tokio::test]
async fn create_answers_the_single_representation() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let b = api.post("/v1/billings", &body(&s)).await.expect(201).body;
    assert_eq!(b["amount"], "25.00", "computed from the items, the sent amount ignored");
    assert_eq!(b["due_date"], "2030-03-04", "Saturday moves to Monday");
    assert_eq!((b["status"].as_str(), b["virtual_status"].as_str()), (Some("opened"), Some("opened")));
    assert_eq!((b["billing_type"].as_str(), b["billing_issue_type"].as_str()), (Some("billing"), Some("individual")));
    assert_eq!(b["tag_id"], Value::Null, "cleared on individual billings");
    assert_eq!(
        (b["installments"].as_i64(), b["installment_type"].as_str(), b["installment"].as_i64()),
        (Some(1), Some("none"), Some(1))
    );
    assert_eq!(b["discount"], Value::Null, "the discount block cannot be set through the API");
    assert_eq!(
        b["contact"],
        json!({"id": s.contact, "description": "Maria da Silva", "email": "maria@example.com", "document": "52998224725"})
    );
    assert!(b.get("tag").is_none());
    let items = b["billing_items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert!(items[0]["id"].as_i64().is_some() && items[0]["id"] != items[1]["id"]);
    assert_eq!(items[0]["amount"], "10.25");
    assert_eq!((b["bank_billets"].clone(), b["billing_reminder_deliveries"].clone()), (json!([]), json!([])));
    assert_eq!(b["amount_payable"], "25.00");
    assert_eq!(b["display_amount_payable"], "25.00");
    assert_eq!(b["paid"], false);
    assert!(b["days_overdue"].as_i64().unwrap() < 0);
    for key in ["gw_gross_amount", "gw_net_amount", "code", "penalty", "interest_period", "return_date", "redirect_url"]
    {
        assert!(b.get(key).is_some(), "{key} missing");
    }
    let shown = api.get(&format!("/v1/billings/{}", b["id"])).await.expect(200).body;
    assert_eq!(shown, b);
    api.other_account().await.get(&format!("/v1/billings/{}", b["id"])).await.expect(404);
}

#[tokio::test]
async fn every_new_billing_asks_for_its_billet() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let b = api.post("/v1/billings", &body(&s)).await.expect(201).body;
    // Written with the billing: a task, which the outbox hands on once (the stream on AWS).
    assert_eq!(billing_api::jobs::tasks::pending_of(&api.server.store, api.account_id).await.unwrap().len(), 1);
    assert_eq!(api.server.hand_on().await, 1);
    assert!(billing_api::jobs::tasks::pending_of(&api.server.store, api.account_id).await.unwrap().is_empty());
    // The server's own queue holds exactly this billing's registration request.
    let sqs = aws_sdk_sqs::Client::new(&api.server.config);
    let received = sqs
        .receive_message()
        .queue_url(&api.server.billet_queue_url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    // One request; SQS may deliver it twice (the fault proxy's duplicates), never another.
    let mut bodies: Vec<&str> = received.iter().map(|m| m.body.as_deref().unwrap_or("{}")).collect();
    bodies.dedup();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let value: Value = serde_json::from_str(bodies[0]).unwrap();
    assert_eq!(value["kind"], "billet_registration");
    assert_eq!((&value["account_id"], &value["billing_id"]), (&json!(api.account_id), &b["id"]));
    assert_eq!(value["generation"], 1);
}

#[tokio::test]
async fn references_must_belong_to_the_account() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let mut bad = body(&s);
    bad["billing"]["bank_rule_id"] = json!(999);
    bad["billing"]["contact_id"] = json!(999);
    bad["billing"]["bill_category_id"] = json!(s.payable);
    let errors = api.post("/v1/billings", &bad).await.expect(422).errors();
    assert_eq!(
        errors,
        [
            "Regra bancária não encontrada",
            "Contato não encontrado",
            "Categoria financeira não encontrada ou não é de recebimento"
        ]
    );
    // Another account's contact is not found either; nothing was stored.
    let other = api.other_account().await;
    let theirs = setup(&other).await;
    let mut foreign = body(&s);
    foreign["billing"]["contact_id"] = json!(theirs.contact + 100);
    api.post("/v1/billings", &foreign).await.expect(422);
    assert_eq!(api.get("/v1/billings/1").await.status, 404);
}

#[tokio::test]
async fn invalid_bodies_are_422() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let errors = api.post("/v1/billings", &json!({"billing": {}})).await.expect(422).errors();
    assert_eq!(errors.len(), 4, "{errors:?}");
    let mut small = body(&s);
    small["billing"]["billing_items"] = json!([{"description": "Taxa", "quantity": 1, "amount": "4.99"}]);
    assert_eq!(api.post("/v1/billings", &small).await.expect(422).errors(), ["Valor mínimo da cobrança é 5.00"]);
    let mut bulk = body(&s);
    bulk["billing"]["billing_issue_type"] = json!("bulk");
    api.post("/v1/billings", &bulk).await.expect(422);
    api.post("/v1/billings", &json!({"name": "x"})).await.expect(422);
}
