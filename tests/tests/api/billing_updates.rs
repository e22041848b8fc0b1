//! §4.2 Update (editability, implicit item destruction), the health module (rule 2), legacy
//! `schedule`/`carne` records created by operators, and the tag/group/contact delete refusals that
//! billings cause.

use billing_api::accounts::{self, AccountChanges};
use billing_api::billings::legacy::LegacyBilling;
use billing_api::billings::model::Billing;
use billing_api::values::{BankRuleId, BillingId, ContactId, GroupId, TagId};
use serde_json::{json, Value};

use super::billings::{body, create_with, ids, setup, Setup};
use super::support::Api;

fn item_ids(b: &Value) -> Vec<i64> {
    b["billing_items"].as_array().unwrap().iter().map(|i| i["id"].as_i64().unwrap()).collect()
}

async fn contact(api: &Api, name: &str, cpf: &str) -> i64 {
    let body = json!({"contact": {"full_name": name, "cpf": cpf,
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    api.post("/v1/contacts", &body).await.expect(201).body["id"].as_i64().unwrap()
}

fn legacy(s: &Setup, billing_type: &str) -> LegacyBilling {
    LegacyBilling {
        billing_type: billing_type.parse().unwrap(),
        bank_rule_id: BankRuleId::new(s.bank_rule),
        contact_id: Some(ContactId::new(s.contact)),
        tag_id: None,
        excluded_tag_ids: Vec::new(),
        group_id: None,
        description: "Mensalidade".into(),
        amount: "50.00".parse().unwrap(),
        due_date: "2030-01-10".parse().unwrap(),
        installments: 3,
    }
}

#[tokio::test]
async fn update_changes_fields_and_replaces_the_item_set() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let created = api.post("/v1/billings", &body(&s)).await.expect(201).body;
    let path = format!("/v1/billings/{}", created["id"]);
    let [first, second] = item_ids(&created)[..] else { panic!("two items") };

    let change = json!({"billing": {
        "observation": "Vencimento renegociado", "due_date": "2030-03-09", "status": "paid", "amount": "1",
        "billing_items": [{"id": first, "quantity": 3}, {"description": "Multa contratual", "quantity": 1, "amount": "1.00"}]
    }});
    let updated = api.patch(&path, &change).await.expect(200).body;
    assert_eq!(updated["observation"], "Vencimento renegociado");
    assert_eq!(updated["due_date"], "2030-03-11", "Saturday moves to Monday");
    assert_eq!(updated["status"], "opened", "status and amount are not fields of an update");
    let items = updated["billing_items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "the second item was left out, so it is removed");
    assert_eq!((items[0]["id"].as_i64(), items[0]["quantity"].as_i64()), (Some(first), Some(3)));
    assert_eq!(items[0]["description"], "Mensalidade", "fields an element omits keep their values");
    assert!(![first, second].contains(&items[1]["id"].as_i64().unwrap()), "an element without id is a new item");
    assert_eq!(updated["amount"], "31.75");
    assert_eq!(updated["your_code"], "ERP-77", "omitted fields keep their values");
    assert_ne!(updated["updated_at"], created["updated_at"]);
    assert_eq!(api.get(&path).await.expect(200).body, updated);

    // An update that changes nothing stores nothing.
    let same = api.patch(&path, &json!({"billing": {"observation": "Vencimento renegociado"}})).await.expect(200).body;
    assert_eq!(same["updated_at"], updated["updated_at"]);

    // Form bodies reach the same rules.
    let form = format!("billing[billing_items][0][id]={first}&billing[billing_items][0][amount]=11.00");
    let by_form = api.form(reqwest::Method::PATCH, &path, &form).await.expect(200).body;
    assert_eq!((item_ids(&by_form), by_form["amount"].as_str()), (vec![first], Some("33.00")));
}

#[tokio::test]
async fn invalid_updates_are_422_and_change_nothing() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let created = api.post("/v1/billings", &body(&s)).await.expect(201).body;
    let path = format!("/v1/billings/{}", created["id"]);
    let first = item_ids(&created)[0];
    let cases = [
        (json!({"billing_items": []}), vec!["A cobrança precisa de ao menos um item (billing_items)"]),
        (
            json!({"billing_items": [{"id": 999999, "amount": "50"}]}),
            vec![
                "Item 1: o item 999999 não pertence a esta cobrança",
                "A cobrança precisa de ao menos um item (billing_items)",
            ],
        ),
        (
            json!({"billing_items": [{"id": first, "quantity": 1, "amount": "4.99"}]}),
            vec!["Valor mínimo da cobrança é 5.00"],
        ),
        (json!({"evincive": "curto"}), vec!["evincive deve ter de 10 a 80 caracteres"]),
        (json!({"due_date": "31/12/2030"}), vec!["Vencimento (due_date) não é uma data válida (AAAA-MM-DD)"]),
        (json!({"contact_id": 999999}), vec!["Contato não encontrado"]),
        (json!({"bill_category_id": s.payable}), vec!["Categoria financeira não encontrada ou não é de recebimento"]),
        (json!({"cancel_penalty": "talvez"}), vec!["cancel_penalty não é válido"]),
    ];
    for (change, errors) in cases {
        let answer = api.patch(&path, &json!({ "billing": change })).await.expect(422);
        assert_eq!(answer.errors(), errors, "{change}");
    }
    assert_eq!(api.get(&path).await.expect(200).body, created, "nothing was saved");
    api.patch("/v1/billings/999999", &json!({"billing": {}})).await.expect(404);
    api.other_account().await.patch(&path, &json!({"billing": {"observation": "x"}})).await.expect(404);
    api.patch(&path, &json!({"observation": "sem envelope"})).await.expect(422);
}

#[tokio::test]
async fn changing_the_payer_moves_the_contact_delete_refusal() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let other = contact(&api, "João Pereira", "111.444.777-35").await;
    let id = create_with(&api, &s, json!({})).await;
    let moved = api.patch(&format!("/v1/billings/{id}"), &json!({"billing": {"contact_id": other}})).await.expect(200);
    assert_eq!(moved.body["contact"]["id"], other);
    api.delete(&format!("/v1/contacts/{other}")).await.expect(422);
    api.delete(&format!("/v1/contacts/{}", s.contact)).await.expect(204);
}

#[tokio::test]
async fn billings_past_editing_accept_only_the_due_date_or_nothing() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    // On the checkout gateway (a card payment the payer confirmed, not ended yet; a payment link
    // alone is not): only due_date and cancel_penalty.
    let id = create_with(&api, &s, json!({})).await;
    let current: Billing = infra::tampering::stored_billing(store, api.account_id, BillingId::new(id)).await;
    let mut next = current.clone();
    next.gw_payment_link = Some("https://checkout.example/p/1".into());
    next.gw_card = Some(billing_api::billings::card::Card {
        intent_id: "pi_under_way".into(),
        stage: billing_api::billings::card::Stage::Pending,
        ..Default::default()
    });
    next.version += 1;
    infra::tampering::replace_billing(store, api.account_id, &current, &next).await;
    let path = format!("/v1/billings/{id}");
    let change = json!({"billing": {"due_date": "2031-01-04", "cancel_penalty": true, "observation": "ignorada",
        "billing_items": []}});
    let b = api.patch(&path, &change).await.expect(200).body;
    assert_eq!((b["due_date"].as_str(), b["cancel_penalty"].as_bool()), (Some("2031-01-06"), Some(true)));
    assert_eq!(b["observation"], Value::Null);
    assert_eq!(item_ids(&b).len(), 2, "items are not the update's to change");
    api.patch(&path, &json!({"billing": {"due_date": ""}})).await.expect(422);

    // Cancelled: 200 and unchanged.
    let id = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{id}");
    let canceled = api
        .post(&format!("{path}/cancel"), &json!({"billing": {"cancellation_reason": "Desistência"}}))
        .await
        .expect(200);
    let after = api.patch(&path, &json!({"billing": {"due_date": "2031-02-03", "observation": "x"}})).await.expect(200);
    assert_eq!(after.body, canceled.body);

    // A booklet is never editable; a schedule always is.
    let booklet = billing_api::billings::legacy::create(store, api.account_id, &legacy(&s, "carne")).await.unwrap();
    let path = format!("/v1/billings/{}", booklet[1].id);
    let before = api.get(&path).await.expect(200).body;
    assert_eq!(api.patch(&path, &json!({"billing": {"observation": "x"}})).await.expect(200).body, before);
    let schedule = billing_api::billings::legacy::create(store, api.account_id, &legacy(&s, "schedule")).await.unwrap();
    let path = format!("/v1/billings/{}", schedule[0].id);
    let b = api.patch(&path, &json!({"billing": {"observation": "Plano anual"}})).await.expect(200).body;
    assert_eq!((b["observation"].as_str(), b["billing_type"].as_str()), (Some("Plano anual"), Some("schedule")));
}

#[tokio::test]
async fn legacy_records_are_listed_by_type_and_booklet() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let booklet = billing_api::billings::legacy::create(store, api.account_id, &legacy(&s, "carne")).await.unwrap();
    let schedule = billing_api::billings::legacy::create(store, api.account_id, &legacy(&s, "schedule")).await.unwrap();
    let own = create_with(&api, &s, json!({})).await;
    assert_eq!(booklet.len(), 4, "the booklet and its 3 instalments");
    assert_eq!(ids(&api.get("/v1/billings").await.expect(200)), [own]);
    let carne = api.get("/v1/billings?billing_type=carne").await.expect(200);
    assert_eq!(carne.header("x-total-count"), Some("4"));
    let parent = booklet[0].id;
    let children = api.get(&format!("/v1/billings?billing_type=carne&billing_id={parent}")).await.expect(200);
    assert_eq!(ids(&children), [booklet[3].id.get(), booklet[2].id.get(), booklet[1].id.get()]);
    assert_eq!(children.body["billings"][0]["billing_id"], parent.get());
    assert_eq!(children.body["billings"][0]["installment"], 3);
    assert_eq!(ids(&api.get("/v1/billings?billing_type=schedule").await.expect(200)), [schedule[0].id.get()]);

    // A schedule can be deleted; the count and the payer's refusal follow.
    api.delete(&format!("/v1/billings/{}", schedule[0].id)).await.expect(204);
    let empty = api.get("/v1/billings?billing_type=schedule").await.expect(200);
    assert_eq!((ids(&empty).len(), empty.header("x-total-count")), (0, Some("0")));
    api.delete(&format!("/v1/billings/{}", booklet[0].id)).await.expect(422);
}

#[tokio::test]
async fn tags_and_groups_used_by_billings_cannot_be_deleted() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let tag = |name: &'static str| {
        let api = &api;
        async move { api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(201).body["id"].as_i64().unwrap() }
    };
    let (target, excluded, unused) = (tag("Alunos").await, tag("Bolsistas").await, tag("Outros").await);
    let group =
        api.post("/v1/groups", &json!({"group": {"contact_type": "customers", "description": "Turma A"}})).await;
    let group = group.expect(201).body["id"].as_i64().unwrap();
    let bulk = LegacyBilling {
        contact_id: None,
        tag_id: Some(TagId::new(target)),
        excluded_tag_ids: vec![TagId::new(excluded)],
        ..legacy(&s, "schedule")
    };
    let by_tag = billing_api::billings::legacy::create(store, api.account_id, &bulk).await.unwrap();
    let by_group = LegacyBilling { contact_id: None, group_id: Some(GroupId::new(group)), ..legacy(&s, "schedule") };
    let by_group = billing_api::billings::legacy::create(store, api.account_id, &by_group).await.unwrap();
    let shown = api.get(&format!("/v1/billings/{}", by_tag[0].id)).await.expect(200).body;
    assert_eq!((shown["billing_issue_type"].as_str(), shown["tag"]["id"].as_i64()), (Some("bulk"), Some(target)));

    for path in [format!("/v1/tags/{target}"), format!("/v1/tags/{excluded}")] {
        let answer = api.delete(&path).await.expect(422);
        assert_eq!(answer.errors(), ["Etiqueta não pode ser excluída: está em uso por cobranças"]);
    }
    let answer = api.delete(&format!("/v1/groups/{group}")).await.expect(422);
    assert_eq!(answer.errors(), ["Grupo não pode ser excluído: há cobranças que dependem dele"]);
    api.delete(&format!("/v1/tags/{unused}")).await.expect(204);

    // Renaming a tag keeps the billing's tag_id; deleting the billings frees the records.
    api.patch(&format!("/v1/tags/{target}"), &json!({"tag": {"name": "Alunos 2031"}})).await.expect(200);
    for id in [by_tag[0].id, by_group[0].id] {
        api.delete(&format!("/v1/billings/{id}")).await.expect(204);
    }
    api.delete(&format!("/v1/tags/{target}")).await.expect(204);
    api.delete(&format!("/v1/tags/{excluded}")).await.expect(204);
    api.delete(&format!("/v1/groups/{group}")).await.expect(204);
}

async fn health_module(api: &Api, on: bool) {
    let changes = AccountChanges { health_module: Some(on), ..AccountChanges::default() };
    accounts::update(&api.server.store, api.account_id, changes).await.unwrap();
    api.server.flusher().flush().await.unwrap();
}

#[tokio::test]
async fn the_health_module_fills_the_payer_from_the_patient() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let patient = contact(&api, "Pedro da Silva", "111.444.777-35").await;
    let without_contact = |patient: i64| {
        let mut b = body(&s);
        b["billing"]["contact_id"] = Value::Null;
        b["billing"]["patient_id"] = json!(patient);
        b
    };
    // Without the module, patient_id is ignored and the payer must be sent.
    let answer = api.post("/v1/billings", &without_contact(patient)).await.expect(422);
    assert_eq!(answer.errors(), ["Contato (contact_id) não pode ficar em branco"]);
    let mut with_both = body(&s);
    with_both["billing"]["patient_id"] = json!(patient);
    assert_eq!(api.post("/v1/billings", &with_both).await.expect(201).body["patient_id"], Value::Null);

    health_module(&api, true).await;
    // No guardian: the patient pays.
    let b = api.post("/v1/billings", &without_contact(patient)).await.expect(201).body;
    assert_eq!((b["contact_id"].as_i64(), b["patient_id"].as_i64()), (Some(patient), Some(patient)));
    // With a guardian: the guardian pays, unless a contact_id is sent.
    let (patient_id, guardian) = (ContactId::new(patient), ContactId::new(s.contact));
    infra::ops::set_financial_guardian(&api.server.store, api.account_id, patient_id, Some(guardian)).await.unwrap();
    let b = api.post("/v1/billings", &without_contact(patient)).await.expect(201).body;
    assert_eq!((b["contact_id"].as_i64(), b["patient_id"].as_i64()), (Some(s.contact), Some(patient)));
    assert_eq!(b["contact"]["description"], "Maria da Silva");
    let b = api.post("/v1/billings", &with_both).await.expect(201).body;
    assert_eq!((b["contact_id"].as_i64(), b["patient_id"].as_i64()), (Some(s.contact), Some(patient)));
    let answer = api.post("/v1/billings", &without_contact(999999)).await.expect(422);
    assert_eq!(answer.errors(), ["Paciente não encontrado"]);
    // The patient has billings too: it cannot be deleted.
    api.delete(&format!("/v1/contacts/{patient}")).await.expect(422);
}

#[tokio::test]
async fn an_amount_older_than_the_minimum_is_not_checked_again_until_it_changes() {
    let api = Api::start().await;
    let s = setup(&api).await;
    // A schedule made elsewhere before the 5.00 minimum, imported as it was.
    let old = LegacyBilling { amount: "3.00".parse().unwrap(), ..legacy(&s, "schedule") };
    let schedule = billing_api::billings::legacy::create(&api.server.store, api.account_id, &old).await.unwrap();
    let path = format!("/v1/billings/{}", schedule[0].id);
    let shown = api.get(&path).await.expect(200).body;
    assert_eq!(shown["amount"], "3.00");
    // Rule 9: an update that keeps the amount is not checked against the minimum…
    let b = api.patch(&path, &json!({"billing": {"observation": "Plano antigo", "due_date": "2030-02-11"}})).await;
    let b = b.expect(200).body;
    assert_eq!((b["amount"].as_str(), b["observation"].as_str()), (Some("3.00"), Some("Plano antigo")));
    let item = item_ids(&b)[0];
    let same = json!({"billing": {"billing_items": [{"id": item, "description": "Mensalidade antiga"}]}});
    assert_eq!(api.patch(&path, &same).await.expect(200).body["billing_items"][0]["description"], "Mensalidade antiga");
    // …one that changes it is.
    let cheaper = json!({"billing": {"billing_items": [{"id": item, "amount": "4.00"}]}});
    assert_eq!(api.patch(&path, &cheaper).await.expect(422).errors(), ["Valor mínimo da cobrança é 5.00"]);
    let dearer = json!({"billing": {"billing_items": [{"id": item, "amount": "5.00"}]}});
    assert_eq!(api.patch(&path, &dearer).await.expect(200).body["amount"], "5.00");
}
