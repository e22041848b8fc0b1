//! §2.1 and §4.2 (so far: individual create and show) and the contact-delete refusal (§4.4).

use serde_json::{json, Value};

use super::support::Api;

pub(super) struct Setup {
    pub bank_rule: i64,
    pub contact: i64,
    pub receivable: i64,
    pub payable: i64,
}

pub(super) async fn setup(api: &Api) -> Setup {
    let store = &api.server.store;
    let rule = infra::ops::create_bank_rule(store, api.account_id, "Banco simulado", "simulated", None).await.unwrap();
    let receivable = infra::ops::create_category(store, api.account_id, "Mensalidades", "receivable").await.unwrap();
    let payable = infra::ops::create_category(store, api.account_id, "Aluguel", "payable").await.unwrap();
    let contact = json!({"contact": {
        "full_name": "Maria da Silva", "cpf": "529.982.247-25", "email": "maria@example.com",
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    let contact = api.post("/v1/contacts", &contact).await.expect(201).body["id"].as_i64().unwrap();
    Setup {
        bank_rule: rule["bank_rule"]["id"].as_i64().unwrap(),
        contact,
        receivable: receivable["bill_category"]["id"].as_i64().unwrap(),
        payable: payable["bill_category"]["id"].as_i64().unwrap(),
    }
}

pub(super) fn body(s: &Setup) -> Value {
    json!({"billing": {
        "bank_rule_id": s.bank_rule, "contact_id": s.contact, "bill_category_id": s.receivable,
        "due_date": "2030-03-02", "your_code": "ERP-77", "competence": "03/2030",
        "penalty": "2", "penalty_type": "percentage", "interest": "1", "interest_type": "percentage",
        "billing_items": [{"description": "Mensalidade", "quantity": 2, "amount": "10.25"}, {"description": "Taxa", "quantity": 1, "amount": "4.50"}],
        "amount": "1.00", "status": "paid", "billing_type": "schedule", "account_id": 999, "discount": "50", "tag_id": 1
    }})
}

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

#[tokio::test]
async fn a_contact_with_billings_cannot_be_deleted() {
    let api = Api::start().await;
    let s = setup(&api).await;
    api.post("/v1/billings", &body(&s)).await.expect(201);
    let answer = api.delete(&format!("/v1/contacts/{}", s.contact)).await.expect(422);
    assert_eq!(answer.errors(), ["Contato não pode ser excluído: possui cobranças"]);
    api.get(&format!("/v1/contacts/{}", s.contact)).await.expect(200);
}

pub(super) async fn create_with(api: &Api, s: &Setup, changes: Value) -> i64 {
    let mut b = body(s);
    for (key, value) in changes.as_object().unwrap() {
        b["billing"][key] = value.clone();
    }
    api.post("/v1/billings", &b).await.expect(201).body["id"].as_i64().unwrap()
}

/// A pay-off's body on a new checking account of the account.
pub(super) async fn pay_off_body(api: &Api) -> Value {
    let account = infra::ops::create_bank_account(&api.server.store, api.account_id, "Conta corrente", "checking");
    let checking = account.await.unwrap()["bank_account"]["id"].as_i64().unwrap();
    json!({"billing": {"bank_account_id": checking, "discharge_reason": "bank_deposit"}})
}

pub(super) fn ids(answer: &super::support::Answer) -> Vec<i64> {
    answer.body["billings"].as_array().unwrap().iter().map(|b| b["id"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn list_filters_order_and_representation() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let other_contact = json!({"contact": {
        "legal_entity": true, "company_name": "Exemplo Comércio Ltda", "cnpj": "11.222.333/0001-81",
        "address_postal_code": "20040-002", "address_street": "Rua da Assembleia", "address_number": "10",
        "address_district": "Centro", "address_city": "Rio de Janeiro", "address_state": "RJ"}});
    let company = api.post("/v1/contacts", &other_contact).await.expect(201).body["id"].as_i64().unwrap();
    let late =
        create_with(&api, &s, json!({"due_date": "2020-01-06", "your_code": "A-1", "bill_category_id": null})).await;
    let future = create_with(&api, &s, json!({"due_date": "2030-03-04", "evincive": "Contrato de locação 2030"})).await;
    let companys = create_with(&api, &s, json!({"contact_id": company, "due_date": "2031-05-05"})).await;

    let get = |q: &'static str| {
        let api = &api;
        async move { ids(&api.get(&format!("/v1/billings{q}")).await.expect(200)) }
    };
    assert_eq!(get("").await, [companys, future, late], "id descending");
    assert_eq!(get("?status=expired").await, [late]);
    assert_eq!(get("?status=opened").await, [companys, future]);
    assert_eq!(get("?status=opened%20expired").await, [companys, future, late]);
    assert!(get("?status=paid").await.is_empty());
    assert!(get("?status=bogus").await.is_empty());
    assert_eq!(get("?your_code=A-1").await, [late]);
    assert!(get("?your_code=A").await.is_empty());
    assert_eq!(get("?start_due_date=2030-01-01&end_due_date=2030-12-31").await, [future]);
    assert_eq!(get("?start_due_date=2030-01-01").await.len(), 3, "one end only: no filter");
    assert!(get("?start_created_at=2000-01-01&end_created_at=2000-12-31").await.is_empty());
    assert_eq!(get("?s=locação").await, [future], "evincive substring");
    assert_eq!(get("?s=exemplo").await, [companys], "contact description substring");
    assert_eq!(get("?s=529.982.247-25").await, [future, late], "contact document, digits only");
    assert!(get("?s=529982").await.is_empty(), "the document must match exactly");
    assert_eq!(get("?billing_type=schedule").await.len(), 0);
    assert!(get("?billing_type=billing%23BILLING").await.is_empty(), "the index separator cannot widen the filter");
    assert!(get("?contact_id=abc").await.is_empty());

    let contact_q = format!("/v1/billings?contact_id={company}");
    assert_eq!(ids(&api.get(&contact_q).await.expect(200)), [companys]);
    let rule_q = format!("/v1/billings?bank_rule_id={}&bill_category_id={}", s.bank_rule, s.receivable);
    assert_eq!(ids(&api.get(&rule_q).await.expect(200)), [companys, future]);
    // A value with a status or a due date: read from the value's postings, which carry both.
    let by = |q: String| {
        let api = &api;
        async move { ids(&api.get(&format!("/v1/billings?{q}")).await.expect(200)) }
    };
    let payer = s.contact;
    assert_eq!(by(format!("contact_id={payer}&status=expired")).await, [late]);
    assert_eq!(by(format!("contact_id={payer}&status=opened")).await, [future]);
    assert!(by(format!("contact_id={payer}&status=paid")).await.is_empty());
    assert_eq!(by(format!("contact_id={payer}&start_due_date=2030-01-01&end_due_date=2030-12-31")).await, [future]);
    assert_eq!(
        by(format!("bank_rule_id={}&status=opened&start_due_date=2031-01-01&end_due_date=2031-12-31", s.bank_rule))
            .await,
        [companys]
    );
    assert_eq!(by("your_code=A-1&status=expired".to_owned()).await, [late]);
    assert!(by("your_code=A-1&status=opened".to_owned()).await.is_empty());
    // A change of status moves the state the value's postings carry.
    api.post(
        &format!("/v1/billings/{future}/cancel"),
        &json!({"billing": {"cancellation_reason": "Cliente desistiu"}}),
    )
    .await
    .expect(200);
    assert!(by(format!("contact_id={payer}&status=opened")).await.is_empty());
    assert_eq!(by(format!("contact_id={payer}&status=canceled")).await, [future]);
    assert_eq!(get("?status=canceled").await, [future]);

    let page = api.get("/v1/billings?per_page=1&page=2").await.expect(200);
    assert_eq!(ids(&page), [future]);
    assert_eq!(
        ["x-total-count", "x-page", "x-per-page", "x-total-pages"].map(|h| page.header(h).unwrap().to_owned()),
        ["3", "2", "1", "3"]
    );
    let listed = &page.body["billings"][0];
    for absent in [
        "billing_items",
        "bank_billets",
        "billing_reminder_deliveries",
        "discount",
        "discount_type2",
        "gw_gross_amount",
        "display_amount_payable",
        "paid",
    ] {
        assert!(listed.get(absent).is_none(), "{absent} must not be in the list representation");
    }
    for present in
        ["id", "code", "virtual_status", "amount_payable", "days_overdue", "overdue", "contact", "installments"]
    {
        assert!(listed.get(present).is_some(), "{present} missing from the list representation");
    }
    let expired = api.get(&format!("/v1/billings/{late}")).await.expect(200).body;
    assert_eq!((expired["virtual_status"].as_str(), expired["overdue"].as_bool()), (Some("expired"), Some(true)));
    assert!(expired["extra_amount"].as_str().unwrap() != "0.00", "penalty and interest accrue");
    // Another account's billings are not counted.
    assert_eq!(api.other_account().await.get("/v1/billings").await.expect(200).header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn cancel_needs_a_reason_and_a_cancellable_status() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{id}/cancel");
    for reason in [json!(null), json!("ab"), json!("x".repeat(1001))] {
        let answer = api.post(&path, &json!({"billing": {"cancellation_reason": reason}})).await.expect(422);
        assert_eq!(answer.errors(), ["Motivo do cancelamento (cancellation_reason) deve ter de 3 a 1000 caracteres"]);
    }
    api.post("/v1/billings/999999/cancel", &json!({"billing": {"cancellation_reason": "Cliente desistiu"}}))
        .await
        .expect(404);
    let canceled =
        api.post(&path, &json!({"billing": {"cancellation_reason": "Cliente desistiu"}})).await.expect(200).body;
    assert_eq!(
        (canceled["status"].as_str(), canceled["virtual_status"].as_str()),
        (Some("canceled"), Some("canceled"))
    );
    assert!(canceled["billing_items"].is_array(), "full billing returned");
    let again = api.post(&path, &json!({"billing": {"cancellation_reason": "De novo"}})).await.expect(422);
    assert_eq!(again.errors(), ["Cobrança com status canceled não pode ser cancelada"]);
    let other = api.other_account().await;
    other.post(&path, &json!({"billing": {"cancellation_reason": "Não é minha"}})).await.expect(404);
}

#[tokio::test]
async fn pay_off_settles_on_a_bank_account_of_the_account() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let checking = infra::ops::create_bank_account(store, api.account_id, "Conta corrente", "checking").await.unwrap()
        ["bank_account"]["id"]
        .as_i64()
        .unwrap();
    let own = infra::ops::create_bank_account(store, api.account_id, "Conta do serviço", "service").await.unwrap()
        ["bank_account"]["id"]
        .as_i64()
        .unwrap();
    let id = create_with(&api, &s, json!({})).await;
    let path = format!("/v1/billings/{id}/pay_off");

    let answer = api
        .post(&path, &json!({"billing": {"bank_account_id": own, "discharge_reason": "bank_deposit"}}))
        .await
        .expect(422);
    assert_eq!(answer.errors(), ["Conta bancária do próprio serviço não pode receber baixa manual"]);
    api.post(&path, &json!({"billing": {"bank_account_id": 9999, "discharge_reason": "bank_deposit"}}))
        .await
        .expect(422);
    let answer = api
        .post(&path, &json!({"billing": {"bank_account_id": checking, "discharge_reason": "pix"}}))
        .await
        .expect(422);
    assert_eq!(answer.errors().len(), 1);
    api.post(&path, &json!({"billing": {"discharge_reason": "bank_deposit"}})).await.expect(422);

    let paid = api
        .post(&path, &json!({"billing": {"bank_account_id": checking, "discharge_reason": "payment_in_hand", "gw_gross_amount": "24.00"}}))
        .await
        .expect(200)
        .body;
    assert_eq!((paid["status"].as_str(), paid["paid"].as_bool()), (Some("discharged"), Some(true)));
    assert_eq!(paid["gw_gross_amount"], "24.00");
    assert_eq!(paid["display_amount_payable"], "24.00", "when paid: gross − discount + extra");
    let again = api
        .post(&path, &json!({"billing": {"bank_account_id": checking, "discharge_reason": "bank_deposit"}}))
        .await
        .expect(422);
    assert_eq!(again.errors(), ["Cobrança com status discharged não pode ser baixada"]);
    // The cash entry inherits the billing's category.
    let entry =
        store.get(format!("A#{}", api.account_id), "CASHENTRY#0000000001").await.unwrap().expect("a cash entry");
    assert_eq!(entry["bill_category_id"].as_n().unwrap(), &s.receivable.to_string());
    assert_eq!(entry["amount"].as_n().unwrap(), "24");
    assert_eq!(entry["bank_account_id"].as_n().unwrap(), &checking.to_string());
}

#[tokio::test]
async fn only_schedules_can_be_deleted() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let id = create_with(&api, &s, json!({})).await;
    let answer = api.delete(&format!("/v1/billings/{id}")).await.expect(422);
    assert_eq!(answer.errors(), ["Somente cobranças recorrentes (schedule) podem ser excluídas; cancele a cobrança"]);
    api.get(&format!("/v1/billings/{id}")).await.expect(200);
    api.delete("/v1/billings/999999").await.expect(404);
}

#[tokio::test]
async fn a_search_finds_the_billings_of_every_matching_payer_however_many() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "Lote"}})).await.expect(201).body["id"].as_i64().unwrap();
    // More matching payers than the search reads apart (100), their billings without an
    // `evincive`: found by their contact alone, from every billing's key entry.
    let payers = 130;
    let tag = billing_api::values::TagId::new(tag);
    let customers = infra::testing::listed_customers(&api.server.store, api.account_id, tag, payers).await;
    let mut sent = body(&s);
    sent["billing"]["billing_issue_type"] = json!("bulk");
    sent["billing"]["tag_id"] = json!(tag.get());
    api.post("/v1/billings", &sent).await.expect(202);
    api.server.expand_bulk().await;
    // And one billing of another payer whose text says it.
    let described = create_with(&api, &s, json!({"evincive": "Lote de março"})).await;

    let found = api.get("/v1/billings?s=cliente%20lote&per_page=1").await.expect(200);
    assert_eq!(found.header("x-total-count"), Some(&*payers.to_string()), "every payer's billing");
    assert_eq!(found.header("x-search-partial"), None, "read whole");
    let found = api.get("/v1/billings?s=lote&per_page=1").await.expect(200);
    assert_eq!(found.header("x-total-count"), Some(&*(payers + 1).to_string()), "the payers' and the text's");
    assert_eq!(ids(&found), [described], "newest first");
    // The last payer alone (`cliente lote 129`), by name and by document.
    let last = customers.last().unwrap().get();
    let named = api.get("/v1/billings?s=lote%20129").await.expect(200).body;
    assert_eq!(named["billings"].as_array().unwrap().len(), 1);
    assert_eq!(named["billings"][0]["contact_id"], last);
    let contact = api.get(&format!("/v1/contacts/{last}")).await.expect(200).body;
    let document = contact["cpf"].as_str().unwrap();
    let by_document = api.get(&format!("/v1/billings?s={document}")).await.expect(200).body;
    assert_eq!(by_document["billings"][0]["contact_id"], last);
    // A billing given to another payer is found under the new one, no longer under the old.
    assert_eq!(ids(&api.get("/v1/billings?s=maria").await.expect(200)), [described]);
    api.patch(&format!("/v1/billings/{described}"), &json!({"billing": {"contact_id": last}})).await.expect(200);
    let named = api.get("/v1/billings?s=lote%20129").await.expect(200);
    assert_eq!(named.header("x-total-count"), Some("2"));
    assert_eq!(ids(&named)[0], described);
    assert!(ids(&api.get("/v1/billings?s=maria").await.expect(200)).is_empty());
    // Past 100 payers the search reads every billing's key entry, which moved with it too.
    let found = api.get("/v1/billings?s=cliente%20lote&per_page=1").await.expect(200);
    assert_eq!(found.header("x-total-count"), Some(&*(payers + 1).to_string()));
    assert_eq!(ids(&found), [described]);
}

#[tokio::test]
async fn a_list_by_opened_expired_or_due_dates_counts_its_total_from_the_days_and_reads_its_page() {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    // 16 billings over four due dates, two past and two future; every fifth canceled.
    let days = ["2020-01-06", "2021-06-15", "2030-03-02", "2031-05-05"];
    let mut made: Vec<(i64, &str, &str)> = Vec::new();
    for n in 0..16 {
        let due = days[n % 4];
        let id = create_with(&api, &s, json!({"due_date": due})).await;
        let status = match n % 5 {
            0 => {
                api.post(&format!("/v1/billings/{id}/cancel"), &cancel).await.expect(200);
                "canceled"
            }
            _ => "opened",
        };
        made.push((id, due, status));
    }
    let today = chrono::Utc::now().date_naive().to_string();
    let today = today.as_str();
    let of = |made: &[(i64, &str, &str)], keep: &dyn Fn(&str, &str) -> bool| -> Vec<i64> {
        made.iter().rev().filter(|(_, due, status)| keep(due, status)).map(|(id, _, _)| *id).collect()
    };
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/billings?{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        }
    };
    let opened = of(&made, &|due, status| status == "opened" && due >= today);
    let expired = of(&made, &|due, status| status == "opened" && due < today);
    assert_eq!((opened.len(), expired.len()), (6, 6));
    assert_eq!(listed("status=opened&per_page=100".to_owned()).await, (6, opened.clone()));
    assert_eq!(listed("status=expired&per_page=100".to_owned()).await, (6, expired.clone()));
    // Page by page: a fair share walks the key entries, a deep page reads the postings.
    for page in 1..=6 {
        assert_eq!(listed(format!("status=opened&per_page=1&page={page}")).await, (6, vec![opened[page - 1]]));
        assert_eq!(listed(format!("status=expired&per_page=1&page={page}")).await, (6, vec![expired[page - 1]]));
    }
    assert_eq!(listed("status=expired&per_page=4&page=2".to_owned()).await, (6, expired[4..].to_vec()));
    // A due range alone (every status), with a status, and an aggregate beside a whole status.
    let ranged = of(&made, &|due, _| ("2021-01-01"..="2030-12-31").contains(&due));
    let range = "start_due_date=2021-01-01&end_due_date=2030-12-31";
    assert_eq!(listed(format!("{range}&per_page=100")).await, (8, ranged.clone()));
    assert_eq!(listed(format!("{range}&per_page=3&page=2")).await, (8, ranged[3..6].to_vec()));
    let canceled_in = of(&made, &|due, status| status == "canceled" && ("2021-01-01"..="2030-12-31").contains(&due));
    assert_eq!(listed(format!("{range}&status=canceled&per_page=100")).await, (canceled_in.len(), canceled_in));
    let expired_in = of(&made, &|due, status| status == "opened" && ("2021-01-01"..today).contains(&due));
    assert_eq!(listed(format!("{range}&status=expired&per_page=100")).await, (expired_in.len(), expired_in));
    let either = of(&made, &|due, status| status == "canceled" || due >= today);
    assert_eq!(listed("status=opened+canceled&per_page=100".to_owned()).await, (either.len(), either));
    // A due date moved into the past, a pay-off and a cancel move the days' counts.
    let moved = opened[0];
    api.patch(&format!("/v1/billings/{moved}"), &json!({"billing": {"due_date": "2021-06-15"}})).await.expect(200);
    let paid = expired[0];
    api.post(&format!("/v1/billings/{paid}/pay_off"), &pay_off_body(&api).await).await.expect(200);
    let canceled = opened[1];
    api.post(&format!("/v1/billings/{canceled}/cancel"), &cancel).await.expect(200);
    for entry in made.iter_mut() {
        match entry.0 {
            id if id == moved => entry.1 = "2021-06-15",
            id if id == paid => entry.2 = "discharged",
            id if id == canceled => entry.2 = "canceled",
            _ => {}
        }
    }
    let opened = of(&made, &|due, status| status == "opened" && due >= today);
    let expired = of(&made, &|due, status| status == "opened" && due < today);
    assert_eq!((opened.len(), expired.len()), (4, 6));
    assert_eq!(listed("status=opened&per_page=100".to_owned()).await, (4, opened.clone()));
    assert_eq!(listed("status=expired&per_page=100".to_owned()).await, (6, expired.clone()));
    let ranged = of(&made, &|due, _| ("2021-01-01"..="2030-12-31").contains(&due));
    assert_eq!(listed(format!("{range}&per_page=100")).await, (ranged.len(), ranged));
    // What a page of `expired` or of a past range reads does not grow with the opened billings
    // (both few here: read from their postings by due date, before and after).
    let cost = |path: &str| {
        let (api, meter, path) = (&api, &meter, path.to_owned());
        async move { super::support::fewest_reads(api, meter, &path).await }
    };
    let paths = [
        "/v1/billings?status=expired&per_page=2",
        "/v1/billings?start_due_date=2020-01-01&end_due_date=2021-12-31&per_page=5",
    ];
    let mut before = Vec::new();
    for path in paths {
        before.push(cost(path).await);
    }
    for _ in 0..30 {
        made.push((create_with(&api, &s, json!({"due_date": "2030-03-02"})).await, "2030-03-02", "opened"));
    }
    for (path, before) in paths.iter().zip(before) {
        let after = cost(path).await;
        assert_eq!(
            (after.round_trips, after.read_units),
            (before.round_trips, before.read_units),
            "{path}: {before:?} {after:?}"
        );
    }
    // Most billings are opened now: its pages and a range's walk the key entries.
    let opened = of(&made, &|due, status| status == "opened" && due >= today);
    assert_eq!(opened.len(), 34);
    for page in [1, 2, 17] {
        assert_eq!(
            listed(format!("status=opened&per_page=2&page={page}")).await,
            (34, opened[2 * page - 2..2 * page].to_vec())
        );
    }
    let year = of(&made, &|due, _| due.starts_with("2030"));
    let range = "start_due_date=2030-01-01&end_due_date=2030-12-31";
    assert_eq!(listed(format!("{range}&per_page=3&page=2")).await, (year.len(), year[3..6].to_vec()));
    // Days' counts left wrong are counted again by the operator's command; a second run moves
    // nothing.
    let store = &api.server.store;
    let counter = billing_api::store::keys::billing_count_shards(api.account_id, "billing");
    let day: chrono::NaiveDate = "2030-03-02".parse().unwrap();
    let wrong = [("Sopened".to_owned(), 7)];
    store.write(vec![billing_api::store::shards::add_on_day(&counter, day, 5, &wrong)]).await.unwrap();
    assert_eq!(listed("status=opened&per_page=1".to_owned()).await.0, 41);
    let billings = billing_api::values::BillingType::Billing;
    let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    let moved: Vec<&str> = fixed["moved"].as_array().unwrap().iter().map(|m| m["count"].as_str().unwrap()).collect();
    assert_eq!(moved, ["2030-03-02:Sopened"]);
    assert_eq!(listed("status=opened&per_page=1".to_owned()).await.0, 34);
    let again = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    assert_eq!(again["moved"], json!([]));
}

#[tokio::test]
async fn a_list_by_creation_dates_counts_its_total_from_the_days_and_walks_to_its_page() {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let mut made: Vec<i64> = Vec::new();
    for _ in 0..12 {
        made.push(create_with(&api, &s, json!({})).await);
    }
    made.reverse();
    let today = chrono::Utc::now().date_naive();
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/billings?{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        }
    };
    let created = format!("start_created_at={today}&end_created_at={today}");
    assert_eq!(listed(format!("{created}&per_page=100")).await, (12, made.clone()));
    for page in 1..=4 {
        let want = made[3 * page - 3..3 * page].to_vec();
        assert_eq!(listed(format!("{created}&per_page=3&page={page}")).await, (12, want));
    }
    assert_eq!(listed(format!("{created}&per_page=3&page=5")).await, (12, vec![]));
    // A range around today, one before it, one after it, and one upside down.
    let around = format!("start_created_at={}&end_created_at={}", today.pred_opt().unwrap(), today.succ_opt().unwrap());
    assert_eq!(listed(format!("{around}&per_page=5&page=2")).await, (12, made[5..10].to_vec()));
    assert_eq!(listed("start_created_at=2020-01-01&end_created_at=2020-12-31".to_owned()).await, (0, vec![]));
    assert_eq!(listed("start_created_at=2090-01-01&end_created_at=2090-12-31".to_owned()).await, (0, vec![]));
    assert_eq!(listed(format!("start_created_at={today}&end_created_at=2020-01-01")).await, (0, vec![]));
    // With another filter it reads the postings as before.
    let canceled = made[4];
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    api.post(&format!("/v1/billings/{canceled}/cancel"), &cancel).await.expect(200);
    assert_eq!(listed(format!("{created}&status=canceled")).await, (1, vec![canceled]));
    // A page of today's billings reads the same after 30 more of them: the days' counts and a
    // walk to the page, not every posting of the day (it read them all before). First every
    // shard of the counter (32) holds a billing, so that the counter's read is whole before too.
    for _ in 0..28 {
        made.insert(0, create_with(&api, &s, json!({})).await);
    }
    let path = format!("/v1/billings?{created}&per_page=2");
    let before = super::support::fewest_reads(&api, &meter, &path).await;
    for _ in 0..30 {
        made.insert(0, create_with(&api, &s, json!({})).await);
    }
    let after = super::support::fewest_reads(&api, &meter, &path).await;
    let reads = |r: &billing_api::store::meter::Reading| (r.round_trips, r.read_units, r.items);
    assert_eq!(reads(&after), reads(&before), "{before:?} {after:?}");
    assert_eq!(listed(format!("{created}&per_page=2&page=8")).await, (70, made[14..16].to_vec()));
    // A day's count left wrong is counted again by the operator's command.
    let store = &api.server.store;
    let counter = billing_api::store::keys::billing_count_shards(api.account_id, "billing");
    let wrong = [("T".to_owned(), 5)];
    store.write(vec![billing_api::store::shards::add_on_day(&counter, today, 3, &wrong)]).await.unwrap();
    assert_eq!(listed(format!("{created}&per_page=1")).await.0, 75);
    let billings = billing_api::values::BillingType::Billing;
    let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    let moved: Vec<&str> = fixed["moved"].as_array().unwrap().iter().map(|m| m["count"].as_str().unwrap()).collect();
    assert_eq!(moved, [format!("{today}:T")]);
    assert_eq!(listed(format!("{created}&per_page=1")).await.0, 70);
}

#[tokio::test]
async fn a_list_by_the_only_bank_rule_with_a_status_reads_as_the_status_alone() {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    let mut made = Vec::new();
    for n in 0..12 {
        let due = if n % 3 == 0 { "2021-06-15" } else { "2030-03-02" };
        let id = create_with(&api, &s, json!({"due_date": due})).await;
        if n % 4 == 1 {
            api.post(&format!("/v1/billings/{id}/cancel"), &cancel).await.expect(200);
        }
        made.push(id);
    }
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/billings?{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().to_owned(), ids(&answer))
        }
    };
    let (rule, category) = (s.bank_rule, s.receivable);
    // Every billing has the account's one rule and category: the same lists as without them.
    for filter in
        ["status=opened", "status=expired", "status=canceled", "start_due_date=2021-01-01&end_due_date=2021-12-31"]
    {
        let alone = listed(format!("{filter}&per_page=100")).await;
        assert!(!alone.1.is_empty(), "{filter}");
        assert_eq!(listed(format!("bank_rule_id={rule}&{filter}&per_page=100")).await, alone, "{filter}");
        assert_eq!(listed(format!("bill_category_id={category}&{filter}&per_page=100")).await, alone, "{filter}");
        let paged = listed(format!("{filter}&per_page=2&page=2")).await;
        assert_eq!(listed(format!("bank_rule_id={rule}&{filter}&per_page=2&page=2")).await, paged, "{filter}");
    }
    // What it reads does not grow with the rule's other billings (opened, due later): 40 first, so
    // that every shard of the counter and of the day exists, then 30 more.
    let expired = format!("/v1/billings?bank_rule_id={rule}&status=expired&per_page=2");
    for _ in 0..40 {
        create_with(&api, &s, json!({"due_date": "2030-03-02"})).await;
    }
    let before = super::support::fewest_reads(&api, &meter, &expired).await;
    for _ in 0..30 {
        create_with(&api, &s, json!({"due_date": "2030-03-02"})).await;
    }
    let after = super::support::fewest_reads(&api, &meter, &expired).await;
    assert_eq!((after.round_trips, after.read_units), (before.round_trips, before.read_units), "{before:?} {after:?}");
    // Not even the bytes (the rule's 30 postings more would be 1,500).
    assert!(after.bytes.abs_diff(before.bytes) < 200, "{before:?} {after:?}");
    // A billing of another rule: the rule no longer holds every billing, and filters again.
    let store = &api.server.store;
    let other = infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None).await.unwrap();
    let other = other["bank_rule"]["id"].as_i64().unwrap();
    let elsewhere = create_with(&api, &s, json!({"bank_rule_id": other, "due_date": "2021-06-15"})).await;
    let (total, all_expired) = listed("status=expired&per_page=100".to_owned()).await;
    assert!(all_expired.contains(&elsewhere));
    let ours: Vec<i64> = all_expired.iter().copied().filter(|id| *id != elsewhere).collect();
    let by_rule = listed(format!("bank_rule_id={rule}&status=expired&per_page=100")).await;
    assert_eq!(by_rule, ((total.parse::<usize>().unwrap() - 1).to_string(), ours));
    assert_eq!(listed(format!("bank_rule_id={other}&status=expired")).await, ("1".to_owned(), vec![elsewhere]));
    assert_eq!(made.len(), 12);
}

/// Whether a billing due on a day, in a status, is in a list.
type Keep<'a> = dyn Fn(&str, &str) -> bool + 'a;

#[tokio::test]
async fn a_list_by_a_bank_rule_and_statuses_counts_them_and_walks_the_rules_postings() {
    a_list_by_a_value_and_statuses_counts_them_and_walks_the_values_postings("bank_rule_id").await;
}

#[tokio::test]
async fn a_list_by_a_category_and_statuses_counts_them_and_walks_the_categorys_postings() {
    a_list_by_a_value_and_statuses_counts_them_and_walks_the_values_postings("bill_category_id").await;
}

/// A list by one bank rule (`bank_rule_id`) or category (`bill_category_id`) and statuses or due
/// dates: totals and pages right, constant reads as the value's billings grow, and counts the
/// recount agrees with.
async fn a_list_by_a_value_and_statuses_counts_them_and_walks_the_values_postings(field: &'static str) {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let (rule, other) = match field {
        "bank_rule_id" => {
            let other = infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None);
            (s.bank_rule, other.await.unwrap()["bank_rule"]["id"].as_i64().unwrap())
        }
        _ => {
            let other = infra::ops::create_category(store, api.account_id, "Outras receitas", "receivable");
            (s.receivable, other.await.unwrap()["bill_category"]["id"].as_i64().unwrap())
        }
    };
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    // 18 billings, two in three of the rule, over a past and a future due date; some canceled.
    let mut made: Vec<(i64, i64, &str, &str)> = Vec::new();
    for n in 0..18 {
        let (bank_rule, due) =
            (if n % 3 == 2 { other } else { rule }, if n % 2 == 0 { "2021-06-15" } else { "2030-03-02" });
        let id = create_with(&api, &s, json!({field: bank_rule, "due_date": due})).await;
        let status = if n % 5 == 1 { "canceled" } else { "opened" };
        if status == "canceled" {
            api.post(&format!("/v1/billings/{id}/cancel"), &cancel).await.expect(200);
        }
        made.push((id, bank_rule, due, status));
    }
    let today = chrono::Utc::now().date_naive().to_string();
    let today = today.as_str();
    let of = |made: &[(i64, i64, &str, &str)], keep: &Keep<'_>| -> Vec<i64> {
        made.iter().rev().filter(|(_, r, due, status)| *r == rule && keep(due, status)).map(|(id, ..)| *id).collect()
    };
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/billings?{field}={rule}&{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        }
    };
    let range = "start_due_date=2021-01-01&end_due_date=2021-12-31";
    let check = |made: Vec<(i64, i64, &'static str, &'static str)>| {
        let listed = &listed;
        async move {
            let filters: [(String, &Keep<'_>); 5] = [
                ("status=opened".to_owned(), &|due, status| status == "opened" && due >= today),
                ("status=expired".to_owned(), &|due, status| status == "opened" && due < today),
                ("status=canceled".to_owned(), &|_, status| status == "canceled"),
                (range.to_owned(), &|due, _| due.starts_with("2021")),
                (format!("{range}&status=expired"), &|due, status| status == "opened" && due.starts_with("2021")),
            ];
            for (filter, keep) in filters {
                let want = of(&made, keep);
                assert_eq!(listed(format!("{filter}&per_page=100")).await, (want.len(), want.clone()), "{filter}");
                let page: Vec<i64> = want.iter().skip(2).take(2).copied().collect();
                assert_eq!(listed(format!("{filter}&per_page=2&page=2")).await, (want.len(), page), "{filter}");
            }
        }
    };
    check(made.clone()).await;
    // A pay-off and a cancel move the value's counts.
    let opened: Vec<i64> = of(&made, &|_, status| status == "opened");
    api.post(&format!("/v1/billings/{}/pay_off", opened[0]), &pay_off_body(&api).await).await.expect(200);
    api.post(&format!("/v1/billings/{}/cancel", opened[1]), &cancel).await.expect(200);
    for entry in made.iter_mut() {
        if entry.0 == opened[0] {
            entry.3 = "discharged";
        } else if entry.0 == opened[1] {
            entry.3 = "canceled";
        }
    }
    check(made.clone()).await;
    if field == "bill_category_id" {
        // Billings written before the category had a counter of its own: emptied, it holds fewer
        // than the type's counter says the category has, and the lists read its postings, right
        // still; the operator's recount fills it.
        use billing_api::store::{keys, shards};
        let own = keys::billing_category_count_shards(api.account_id, "billing", rule);
        shards::recount(store, own.clone(), &Default::default()).await.unwrap();
        shards::recount_days(store, &own, &Default::default()).await.unwrap();
        check(made.clone()).await;
        let billings = billing_api::values::BillingType::Billing;
        let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
        let moved: Vec<String> =
            fixed["moved"].as_array().unwrap().iter().map(|m| m["count"].as_str().unwrap_or("").to_owned()).collect();
        assert!(!moved.is_empty() && moved.iter().all(|name| name.starts_with(&format!("K{rule}/"))), "{fixed}");
        check(made.clone()).await;
    }
    // A page of the value's opened billings reads the same after 30 more of them: 40 first, so
    // that every shard of the counter and of the day exists. (Reading the value's postings, as
    // before, it read 30 more.)
    for _ in 0..40 {
        create_with(&api, &s, json!({field: rule, "due_date": "2030-03-02"})).await;
    }
    let path = format!("/v1/billings?{field}={rule}&status=opened&per_page=2");
    let before = super::support::fewest_reads(&api, &meter, &path).await;
    for _ in 0..30 {
        create_with(&api, &s, json!({field: rule, "due_date": "2030-03-02"})).await;
    }
    let after = super::support::fewest_reads(&api, &meter, &path).await;
    let reads = |r: &billing_api::store::meter::Reading| (r.round_trips, r.read_units, r.items);
    assert_eq!(reads(&after), reads(&before), "{before:?} {after:?}");
    // The counts kept are the ones the operator's recount finds.
    let billings = billing_api::values::BillingType::Billing;
    let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    assert_eq!(fixed["moved"], json!([]));
}

#[tokio::test]
async fn an_unfiltered_page_reads_about_the_keys_before_it_not_that_many_from_each_shard() {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let mut made = Vec::new();
    for _ in 0..40 {
        made.push(create_with(&api, &s, json!({})).await);
    }
    made.reverse();
    let page = |n: usize| format!("/v1/billings?per_page=4&page={n}");
    for n in [1, 3, 5, 10] {
        assert_eq!(ids(&api.get(&page(n)).await.expect(200)), made[4 * n - 4..4 * n].to_vec(), "page {n}");
    }
    // Page 5 needs the newest 20 keys: about 20 read in all (a quarter of them from each of the
    // four shards, and a tenth more), not 20 from each shard, which is every key of these 40;
    // page 10 needs all 40. Both read 4 billings of the same payer besides.
    let middle = super::support::fewest_reads(&api, &meter, &page(5)).await;
    let last = super::support::fewest_reads(&api, &meter, &page(10)).await;
    let entry = 75;
    assert!(last.bytes > middle.bytes + 12 * entry, "{middle:?} {last:?}");
}

#[tokio::test]
async fn a_list_by_one_bank_rule_or_category_reads_its_page_not_its_matches() {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let other = infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None).await.unwrap();
    let other = other["bank_rule"]["id"].as_i64().unwrap();
    let mut ours = Vec::new();
    for n in 0..12 {
        let rule = if n % 4 == 3 { other } else { s.bank_rule };
        ours.push((create_with(&api, &s, json!({"bank_rule_id": rule})).await, rule));
    }
    let by_rule =
        |rule: i64| -> Vec<i64> { ours.iter().rev().filter(|(_, r)| *r == rule).map(|(id, _)| *id).collect() };
    let listed = |path: String| {
        let api = &api;
        async move {
            let answer = api.get(&path).await.expect(200);
            (answer.header("x-total-count").unwrap().to_owned(), ids(&answer))
        }
    };
    // The total from the rule's count, the pages in id order from its postings.
    let rule_q = |rule: i64, page: usize| format!("/v1/billings?bank_rule_id={rule}&per_page=4&page={page}");
    let expected = by_rule(s.bank_rule);
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await, ("9".to_owned(), expected[..4].to_vec()));
    assert_eq!(listed(rule_q(s.bank_rule, 3)).await, ("9".to_owned(), expected[8..].to_vec()));
    assert_eq!(listed(rule_q(s.bank_rule, 4)).await, ("9".to_owned(), vec![]));
    assert_eq!(listed(rule_q(other, 1)).await, ("3".to_owned(), by_rule(other)));
    let category_q = format!("/v1/billings?bill_category_id={}&per_page=100", s.receivable);
    assert_eq!(listed(category_q.clone()).await, ("12".to_owned(), ours.iter().rev().map(|(id, _)| *id).collect()));
    // A billing moved to the other rule counts there; one with no category leaves its count.
    let moved = ours[0].0;
    api.patch(&format!("/v1/billings/{moved}"), &json!({"billing": {"bank_rule_id": other}})).await.expect(200);
    api.patch(&format!("/v1/billings/{moved}"), &json!({"billing": {"bill_category_id": null}})).await.expect(200);
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await.0, "8");
    assert_eq!(listed(rule_q(other, 1)).await, ("4".to_owned(), [by_rule(other), vec![moved]].concat()));
    assert_eq!(listed(category_q.clone()).await.0, "11");
    // What a page reads does not grow with the rule's billings (pages of the same billings: four
    // of the same payer, newest).
    for _ in 0..4 {
        create_with(&api, &s, json!({})).await;
    }
    let cost = |path: String| {
        let (api, meter) = (&api, &meter);
        async move { super::support::fewest_reads(api, meter, &path).await }
    };
    let before = cost(rule_q(s.bank_rule, 1)).await;
    for _ in 0..30 {
        create_with(&api, &s, json!({})).await;
    }
    let after = cost(rule_q(s.bank_rule, 1)).await;
    assert_eq!((after.round_trips, after.read_units), (before.round_trips, before.read_units), "{before:?} {after:?}");
    // Once every shard holds a page's worth, not even the bytes move (at most 4 postings a shard).
    for _ in 0..30 {
        create_with(&api, &s, json!({})).await;
    }
    let later = cost(rule_q(s.bank_rule, 1)).await;
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await.0, "72");
    assert_eq!((later.round_trips, later.read_units), (after.round_trips, after.read_units));
    assert!(later.bytes.abs_diff(after.bytes) < 64, "{} then {} bytes", after.bytes, later.bytes);
    // A bulk billing's expansion counts its billings too.
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "Turma"}})).await.expect(201).body["id"].as_i64().unwrap();
    let tag = billing_api::values::TagId::new(tag);
    infra::testing::tagged_customers(store, api.account_id, tag, 3).await;
    let mut bulk = body(&s);
    bulk["billing"]["billing_issue_type"] = json!("bulk");
    bulk["billing"]["tag_id"] = json!(tag.get());
    api.post("/v1/billings", &bulk).await.expect(202);
    api.server.expand_bulk().await;
    assert_eq!(listed(rule_q(s.bank_rule, 1)).await.0, "75");
    assert_eq!(listed(category_q).await.0, "78");
}

#[tokio::test]
async fn a_list_by_status_counts_its_total_and_reads_its_page_the_cheaper_way() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let pay_off = pay_off_body(&api).await;
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    // 20 billings: 12 discharged (paid off), 3 canceled, 5 opened (ids ascending).
    let mut made = Vec::new();
    for n in 0..20 {
        let id = create_with(&api, &s, json!({})).await;
        let status = match n % 4 {
            0 if n < 12 => "canceled",
            _ if n < 16 => "discharged",
            _ => "opened",
        };
        match status {
            "discharged" => api.post(&format!("/v1/billings/{id}/pay_off"), &pay_off).await.expect(200),
            "canceled" => api.post(&format!("/v1/billings/{id}/cancel"), &cancel).await.expect(200),
            _ => api.get(&format!("/v1/billings/{id}")).await.expect(200),
        };
        made.push((id, status));
    }
    let of =
        |status: &str| -> Vec<i64> { made.iter().rev().filter(|(_, s)| *s == status).map(|(id, _)| *id).collect() };
    assert_eq!((of("discharged").len(), of("canceled").len(), of("opened").len()), (13, 3, 4));
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/billings?{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        }
    };
    // Discharged is most of them: a page of one walks the key entries; canceled is rare: its postings.
    let discharged = of("discharged");
    for page in [1, 2, 7, 13] {
        assert_eq!(listed(format!("status=discharged&per_page=1&page={page}")).await, (13, vec![discharged[page - 1]]));
    }
    assert_eq!(listed("status=discharged&per_page=5&page=3".to_owned()).await, (13, discharged[10..].to_vec()));
    assert_eq!(listed("status=discharged&per_page=5&page=4".to_owned()).await, (13, vec![]));
    assert_eq!(listed("status=canceled&per_page=2".to_owned()).await, (3, of("canceled")[..2].to_vec()));
    let both: Vec<i64> = made.iter().rev().filter(|(_, s)| *s != "opened").map(|(id, _)| *id).collect();
    assert_eq!(listed("status=canceled+discharged+discharged&per_page=100".to_owned()).await, (16, both.clone()));
    assert_eq!(listed("status=discharged+canceled&per_page=1&page=2".to_owned()).await.1, vec![both[1]]);
    // `opened` depends on the day: read from the postings by due date, as before.
    assert_eq!(listed("status=opened".to_owned()).await, (4, of("opened")));
    // A change of status moves the counts: an opened one canceled.
    let opened = of("opened")[0];
    api.post(&format!("/v1/billings/{opened}/cancel"), &cancel).await.expect(200);
    assert_eq!(listed("status=canceled&per_page=1".to_owned()).await, (4, vec![opened]));
    assert_eq!(listed("status=opened".to_owned()).await.0, 3);
    // A counter left wrong (as billings written around the service would leave it) is counted
    // again from the billings by the operator's command; a second run moves nothing.
    let store = &api.server.store;
    let counter = billing_api::store::keys::billing_count_shards(api.account_id, "billing");
    let wrong = [("value".to_owned(), 5), ("Sdischarged".to_owned(), -4), ("r999".to_owned(), 2)];
    store.write(vec![billing_api::store::shards::add_each(counter, 3, &wrong)]).await.unwrap();
    assert_eq!(listed("status=discharged&per_page=1".to_owned()).await.0, 9);
    let billings = billing_api::values::BillingType::Billing;
    let fixed = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    let moved: Vec<&str> = fixed["moved"].as_array().unwrap().iter().map(|m| m["count"].as_str().unwrap()).collect();
    assert_eq!(moved, ["Sdischarged", "r999", "value"]);
    assert_eq!(listed("status=discharged&per_page=1".to_owned()).await.0, 13);
    assert_eq!(api.get("/v1/billings").await.expect(200).header("x-total-count"), Some("20"));
    let again = infra::ops::recount_billings(store, api.account_id, billings).await.unwrap();
    assert_eq!(again["moved"], json!([]));
}

/// A billing of the test below: id, contact, rule, category, status.
type Made = (i64, i64, i64, i64, &'static str);
/// Whether a list admits one.
type Admits<'a> = dyn Fn(&Made) -> bool + 'a;

#[tokio::test]
async fn a_list_by_several_values_reads_the_postings_of_the_one_with_fewest() {
    let meter = std::sync::Arc::new(billing_api::store::meter::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = setup(&api).await;
    let store = &api.server.store;
    let other_rule =
        infra::ops::create_bank_rule(store, api.account_id, "Outro banco", "simulated", None).await.unwrap();
    let other_rule = other_rule["bank_rule"]["id"].as_i64().unwrap();
    let other_category = infra::ops::create_category(store, api.account_id, "Outras receitas", "receivable").await;
    let other_category = other_category.unwrap()["bill_category"]["id"].as_i64().unwrap();
    let payer = json!({"contact": {
        "full_name": "João Souza", "cpf": infra::testing::cpf(320_000_000), "address_postal_code": "01310-100",
        "address_street": "Avenida Paulista", "address_number": "1000", "address_district": "Bela Vista",
        "address_city": "São Paulo", "address_state": "SP"}});
    let other_payer = api.post("/v1/contacts", &payer).await.expect(201).body["id"].as_i64().unwrap();
    // 12 billings: every third of the other payer, every other one of the other rule, two in four
    // of the other category; the last with a code of its own.
    let mut made: Vec<Made> = Vec::new();
    for n in 0..12 {
        let contact = if n % 3 == 0 { other_payer } else { s.contact };
        let rule = if n % 2 == 0 { s.bank_rule } else { other_rule };
        let category = if n % 4 < 2 { s.receivable } else { other_category };
        let mut changes = json!({"contact_id": contact, "bank_rule_id": rule, "bill_category_id": category});
        if n == 11 {
            changes["your_code"] = json!("ERP-99");
        }
        let id = create_with(&api, &s, changes).await;
        made.push((id, contact, rule, category, "opened"));
    }
    let cancel = json!({"billing": {"cancellation_reason": "Cliente desistiu"}});
    api.post(&format!("/v1/billings/{}/cancel", made[6].0), &cancel).await.expect(200);
    made[6].4 = "canceled";
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/billings?per_page=100&{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        }
    };
    let expected = |made: &[Made], keep: &Admits<'_>| {
        let ids: Vec<i64> = made.iter().rev().filter(|b| keep(b)).map(|b| b.0).collect();
        (ids.len(), ids)
    };
    let today = billing_api::values::today().to_string();
    let yesterday = (billing_api::values::today() - chrono::Duration::days(1)).to_string();
    let (rule, category, contact) = (s.bank_rule, s.receivable, s.contact);
    let check = |made: Vec<Made>| {
        let (listed, today, yesterday) = (&listed, today.clone(), yesterday.clone());
        async move {
            let coded = made[11].0;
            let cases: Vec<(String, Box<Admits>)> = vec![
                (
                    format!("contact_id={other_payer}&bank_rule_id={rule}"),
                    Box::new(move |b| b.1 == other_payer && b.2 == rule),
                ),
                (
                    format!("bank_rule_id={rule}&bill_category_id={other_category}"),
                    Box::new(move |b| b.2 == rule && b.3 == other_category),
                ),
                (
                    format!("contact_id={contact}&bank_rule_id={other_rule}&bill_category_id={category}"),
                    Box::new(move |b| b.1 == contact && b.2 == other_rule && b.3 == category),
                ),
                (
                    format!("contact_id={contact}&bank_rule_id={rule}&status=opened"),
                    Box::new(move |b| b.1 == contact && b.2 == rule && b.4 == "opened"),
                ),
                (
                    format!("bank_rule_id={rule}&start_created_at={today}&end_created_at={today}"),
                    Box::new(move |b| b.2 == rule),
                ),
                (
                    format!("bank_rule_id={rule}&start_created_at={yesterday}&end_created_at={yesterday}"),
                    Box::new(|_| false),
                ),
                (
                    format!("your_code=ERP-99&bank_rule_id={other_rule}"),
                    Box::new(move |b| b.0 == coded && b.2 == other_rule),
                ),
                (format!("your_code=ERP-99&bank_rule_id={rule}"), Box::new(|_| false)),
            ];
            for (q, keep) in &cases {
                assert_eq!(listed(q.clone()).await, expected(&made, keep.as_ref()), "{q}");
            }
        }
    };
    check(made.clone()).await;
    // A billing moved to the other rule and category: the postings of its payer carry them.
    let moved = made[0].0;
    let change = json!({"billing": {"bank_rule_id": other_rule, "bill_category_id": other_category}});
    api.patch(&format!("/v1/billings/{moved}"), &change).await.expect(200);
    (made[0].2, made[0].3) = (other_rule, other_category);
    check(made.clone()).await;
    // The other payer's billings of the rule cost the same after 30 more billings of the rule
    // (another payer's): the payer's postings are read, not the rule's. (Reading both, as before,
    // it read 30 postings more.)
    let path = format!("/v1/billings?contact_id={other_payer}&bank_rule_id={rule}");
    let before = super::support::fewest_reads(&api, &meter, &path).await;
    for _ in 0..30 {
        create_with(&api, &s, json!({"bank_rule_id": rule})).await;
    }
    let after = super::support::fewest_reads(&api, &meter, &path).await;
    let reads = |r: &billing_api::store::meter::Reading| (r.round_trips, r.read_units, r.items);
    assert_eq!(reads(&after), reads(&before), "{before:?} {after:?}");
    // A posting written before the values were carried (no `f`) sends the list the long way:
    // right still.
    let first = billing_api::values::BillingId::new(made[3].0);
    let billing =
        billing_api::store::records::find::<billing_api::billings::model::Billing>(store, api.account_id, first)
            .await
            .unwrap()
            .unwrap();
    let mut items = billing_api::billings::postings::items(api.account_id, &billing);
    items.retain(|item| {
        billing_api::store::item::text(item, "pk").is_some_and(|pk| pk.contains(&format!("#C{other_payer}#")))
    });
    assert_eq!(items.len(), 1);
    items[0].remove("f");
    store.put_all(items).await.unwrap();
    assert_eq!(
        listed(format!("contact_id={other_payer}&bank_rule_id={rule}")).await,
        expected(&made, &|b| b.1 == other_payer && b.2 == rule)
    );
}
