//! Every 422 says each problem twice, as the Portuguese message of `errors` and, at the
//! same position, as `details[i] = {field, code, message}` with the field's path as sent and a
//! stable code (docs/openapi.yaml, `ValidationErrors`).

use billing_api::accounts::AccountStatus;
use serde_json::{json, Value};

use super::billings::{body, create_with, setup};
use super::support::{Answer, Api};

/// The `(field, code)` pairs of a 422, in order (checked against its `errors` by `details`).
fn problems(answer: &Answer) -> Vec<(Option<&str>, &str)> {
    answer.body["details"]
        .as_array()
        .map(|details| {
            answer.details();
            details.iter().map(|d| (d["field"].as_str(), d["code"].as_str().unwrap_or_default())).collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_billing_names_its_broken_amount_due_date_and_items() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let mut bad = body(&s);
    bad["billing"]["due_date"] = json!("04/03/2030");
    bad["billing"]["billing_items"] = json!([
        {"description": "Mensalidade", "quantity": 1, "amount": "10.00"},
        {"description": " ", "quantity": 0, "amount": "0"},
        {"description": "x".repeat(101), "quantity": 1, "amount": "100000000.00"},
    ]);
    let answer = api.post("/v1/billings", &bad).await.expect(422);
    assert_eq!(
        problems(&answer),
        [
            (Some("due_date"), "invalid"),
            (Some("billing_items[1].description"), "blank"),
            (Some("billing_items[1].quantity"), "out_of_range"),
            (Some("billing_items[1].amount"), "too_small"),
            (Some("billing_items[2].description"), "too_long"),
            (Some("billing_items[2].amount"), "too_large"),
        ]
    );
    assert_eq!(answer.errors()[1], "Item 2: descrição não pode ficar em branco", "messages count items from 1");

    // The total below the minimum: the billing's amount, computed from the items.
    let mut small = body(&s);
    small["billing"]["billing_items"] = json!([{"description": "Taxa", "quantity": 1, "amount": "4.99"}]);
    let answer = api.post("/v1/billings", &small).await.expect(422);
    assert_eq!(
        answer.body["details"],
        json!([{"field": "amount", "code": "too_small", "message": "Valor mínimo da cobrança é 5.00"}])
    );

    // What a create needs and what it names that is not there.
    let answer = api.post("/v1/billings", &json!({"billing": {}})).await.expect(422);
    assert_eq!(
        problems(&answer),
        [
            (Some("bank_rule_id"), "blank"),
            (Some("contact_id"), "blank"),
            (Some("due_date"), "blank"),
            (Some("billing_items"), "blank")
        ]
    );
    let mut unknown = body(&s);
    unknown["billing"]["bank_rule_id"] = json!(999);
    unknown["billing"]["contact_id"] = json!(999);
    let answer = api.post("/v1/billings", &unknown).await.expect(422);
    assert_eq!(problems(&answer), [(Some("bank_rule_id"), "not_found"), (Some("contact_id"), "not_found")]);
    let answer = api.post("/v1/billings", &json!({"name": "x"})).await.expect(422);
    assert_eq!(problems(&answer), [(Some("billing"), "required")]);
}

#[tokio::test]
async fn an_update_names_the_items_by_their_place_in_the_sent_list() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create_with(&api, &s, json!({})).await;
    let items = json!([{"id": 999_999, "amount": "1.00"}, {"description": "Nova", "quantity": 1, "amount": "x"}]);
    let answer = api.patch(&format!("/v1/billings/{id}"), &json!({"billing": {"billing_items": items}})).await;
    let answer = answer.expect(422);
    assert_eq!(
        problems(&answer),
        [(Some("billing_items[0].id"), "not_found"), (Some("billing_items[1].amount"), "invalid")]
    );
    assert_eq!(answer.errors()[1], "Item 2: valor deve ser de no mínimo 0.01, com até 2 casas decimais");
}

#[tokio::test]
async fn cancel_names_a_short_reason_and_a_status_refusal_names_no_field() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{id}/cancel");
    let answer = api.post(&path, &json!({"billing": {"cancellation_reason": "ab"}})).await.expect(422);
    assert_eq!(
        answer.body,
        json!({
            "status": 422,
            "errors": ["Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres"],
            "details": [{
                "field": "cancellation_reason",
                "code": "too_short",
                "message": "Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres"
            }]
        })
    );
    let answer = api.post(&path, &json!({"billing": {}})).await.expect(422);
    assert_eq!(problems(&answer), [(Some("cancellation_reason"), "blank")]);
    api.post(&path, &json!({"billing": {"cancellation_reason": "Cliente desistiu"}})).await.expect(200);
    let again = api.post(&path, &json!({"billing": {"cancellation_reason": "De novo"}})).await.expect(422);
    assert_eq!(
        again.body["details"],
        json!([{"field": null, "code": "not_allowed", "message": "Cobrança com status canceled não pode ser cancelada"}])
    );
    let pay_off = json!({"billing": {"bank_account_id": 0}});
    let answer = api.post(&format!("/v1/billings/{id}/pay_off"), &pay_off).await.expect(422);
    assert_eq!(problems(&answer), [(Some("bank_account_id"), "not_found"), (Some("discharge_reason"), "blank")]);
}

#[tokio::test]
async fn a_contact_names_its_bad_document_and_a_taken_one() {
    let api = Api::start().await;
    let maria = json!({
        "full_name": "Maria da Silva", "cpf": "529.982.247-25",
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"
    });
    let mut bad = maria.clone();
    bad["cpf"] = json!("111.111.111-11");
    bad["address_postal_code"] = json!("123");
    bad["tag_ids"] = json!([999]);
    let answer = api.post("/v1/contacts", &json!({"contact": bad})).await.expect(422);
    assert_eq!(problems(&answer), [(Some("cpf"), "invalid"), (Some("address_postal_code"), "invalid")]);
    api.post("/v1/contacts", &json!({"contact": maria})).await.expect(201);
    let answer = api.post("/v1/contacts", &json!({"contact": maria})).await.expect(422);
    assert_eq!(
        answer.body["details"],
        json!([{"field": "cpf", "code": "taken", "message": "CPF já está em uso para este tipo de contato"}])
    );
    let mut tagged = maria.clone();
    tagged["cpf"] = json!("111.444.777-35");
    tagged["tag_ids"] = json!([999]);
    tagged["group_id"] = json!(999);
    let answer = api.post("/v1/contacts", &json!({"contact": tagged})).await.expect(422);
    assert_eq!(problems(&answer), [(Some("group_id"), "not_found"), (Some("tag_ids"), "not_found")]);
}

#[tokio::test]
async fn tags_and_groups_name_a_taken_name_and_a_delete_in_use() {
    let api = Api::start().await;
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "VIP"}})).await.expect(201).body;
    let answer = api.post("/v1/tags", &json!({"tag": {"name": " vip "}})).await.expect(422);
    assert_eq!(answer.body["details"], json!([{"field": "name", "code": "taken", "message": "Nome já está em uso"}]));
    let answer = api.post("/v1/tags", &json!({"tag": {"name": "", "color": "pink"}})).await.expect(422);
    assert_eq!(problems(&answer), [(Some("name"), "blank"), (Some("color"), "invalid")]);
    let answer = api.post("/v1/groups", &json!({"group": {"contact_type": "customer"}})).await.expect(422);
    assert_eq!(problems(&answer), [(Some("contact_type"), "invalid"), (Some("description"), "blank")]);

    // A bulk billing holds its tag: deleting the tag is refused, about no one field.
    let s = setup(&api).await;
    let mut bulk = body(&s);
    bulk["billing"]["billing_issue_type"] = json!("bulk");
    bulk["billing"]["tag_id"] = tag["id"].clone();
    let answer = api.post("/v1/billings", &bulk).await.expect(422);
    assert_eq!(problems(&answer), [(Some("tag_id"), "invalid")], "no contact carries the tag yet");
    let tagged = json!({"contact": {
        "full_name": "Ana Souza", "cpf": "111.444.777-35", "tag_ids": [tag["id"]],
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    api.post("/v1/contacts", &tagged).await.expect(201);
    api.post("/v1/billings", &bulk).await.expect(202);
    let answer = api.delete(&format!("/v1/tags/{}", tag["id"])).await.expect(422);
    assert_eq!(
        answer.body["details"],
        json!([{"field": null, "code": "in_use", "message": "Etiqueta não pode ser excluída: está em uso por cobranças"}])
    );
}

#[tokio::test]
async fn query_parameters_and_the_point_of_sale_name_their_field() {
    let api = Api::start().await;
    let (account_id, auth) = infra::testing::account(&api.server.store, AccountStatus::Active, true, true).await;
    let api = Api { account_id, auth: Some(auth), ..api };
    let answer = api.get("/v1/store_credits").await.expect(422);
    assert_eq!(
        answer.body["details"],
        json!([{"field": "contact_id", "code": "required", "message": "contact_id é obrigatório"}])
    );
    let answer = api.get("/v1/sales?start_date=ontem&contact_id=x").await.expect(422);
    assert_eq!(problems(&answer), [(Some("start_date"), "invalid"), (Some("contact_id"), "invalid")]);
    let answer = api.get("/v1/receivable_settlements/preview").await.expect(422);
    assert_eq!(problems(&answer), [(Some("cutoff_at"), "required")]);
    let credit = json!({"store_credit": {"amount": "0", "description": "x".repeat(1000)}});
    let answer = api.post("/v1/store_credits", &credit).await.expect(422);
    let found: Vec<(Option<&str>, &str)> = problems(&answer);
    assert_eq!(
        found,
        [
            (Some("reference"), "blank"),
            (Some("amount"), "too_small"),
            (Some("description"), "too_long"),
            (Some("contact_id"), "blank")
        ]
    );
    let settlement = json!({"receivable_settlement": {"reference": "acerto-1", "cutoff_at": "2999-01-01"}});
    let answer = api.post("/v1/receivable_settlements", &settlement).await.expect(422);
    assert_eq!(problems(&answer), [(Some("cutoff_at"), "out_of_range")]);
}

/// The details of every 422 agree with its errors, whatever the resource: a sample of refusals
/// across the API, each checked by [`Answer::details`].
#[tokio::test]
async fn every_detail_is_the_message_at_its_place() {
    let api = Api::start().await;
    let answers: Vec<Value> = vec![
        api.post("/v1/tags", &json!({"tag": {"name": "n".repeat(41), "allows_on_account": "talvez"}})).await.body,
        api.post("/v1/groups", &json!({"group": {}})).await.body,
        api.post("/v1/contacts", &json!({"contact": {}})).await.body,
        api.post("/v1/billings", &json!({"billing": {"billing_items": "x", "penalty": "-1"}})).await.body,
    ];
    for body in answers {
        assert_eq!(body["status"], 422, "{body}");
        let details = body["details"].as_array().expect("details");
        let errors = body["errors"].as_array().expect("errors");
        let messages: Vec<&Value> = details.iter().map(|d| &d["message"]).collect();
        assert_eq!(messages, errors.iter().collect::<Vec<_>>(), "{body}");
        assert!(details.iter().all(|d| d["field"].is_string()), "every problem here is about a field: {body}");
    }
}
