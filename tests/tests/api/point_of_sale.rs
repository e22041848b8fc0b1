//! §4.7, the on-account rule of §2.4, §5 item 6: sales recorded at the counter (the ops
//! operations) and read through the API, customer credits, and settlements by transfer run by
//! their worker.

use billing_api::accounts::AccountStatus;
use billing_api::jobs::ReceivableSettlement;
use billing_api::pos::settlements::{self, Outcome, CHUNK_RUN};
use billing_api::values::{today, ContactId, Money, PaymentKind, RefundTo};
use infra::ops::sale as sales_ops;
use serde_json::{json, Value};

use super::support::Api;

/// A store with the point-of-sale module on, on a server of its own.
async fn store() -> Api {
    let api = Api::start().await;
    let (account_id, auth) = infra::testing::account(&api.server.store, AccountStatus::Active, true, true).await;
    Api { account_id, auth: Some(auth), ..api }
}

fn money(text: &str) -> Money {
    Money::parse(text).unwrap()
}

/// A customer of the store.
async fn customer(api: &Api, name: &str, cpf: &str, tags: &[i64]) -> ContactId {
    let contact = json!({"contact": {"full_name": name, "cpf": cpf, "tag_ids": tags,
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    ContactId::new(api.post("/v1/contacts", &contact).await.expect(201).body["id"].as_i64().unwrap())
}

/// A sale of `total` with `on_account` left open (the rest in cash).
async fn sell(api: &Api, contact: ContactId, total: &str, on_account: Option<&str>) -> Result<Value, String> {
    sales_ops::create_sale(
        &api.server.store,
        api.account_id,
        contact,
        money(total),
        on_account.map(money),
        vec![],
        vec![],
    )
    .await
    .map(|v| {
        super::support::assert_amounts_are_text(&v);
        v["sale"].clone()
    })
    .map_err(|e| format!("{e:#}"))
}

#[tokio::test]
async fn every_point_of_sale_route_needs_the_module() {
    let api = Api::start().await;
    let routes = [
        ("GET", "/v1/sales"),
        ("GET", "/v1/sales/000001"),
        ("GET", "/v1/store_credits?contact_id=1"),
        ("POST", "/v1/store_credits"),
        ("GET", "/v1/receivable_settlements/preview?cutoff_at=2026-01-01"),
        ("POST", "/v1/receivable_settlements"),
        ("GET", "/v1/receivable_settlements/acerto-1"),
    ];
    for (method, path) in routes {
        let method: reqwest::Method = method.parse().unwrap();
        let answer = api.send(method.clone(), path, Some(("application/json", b"{}".to_vec()))).await.expect(403);
        assert_eq!(answer.body["message"], "Módulo de ponto de venda não habilitado para a conta", "{path}");
        // Without a token: 401 first.
        api.with_auth(None).send(method, path, None).await.expect(401);
    }
    // Categories are not a point-of-sale route.
    api.get("/v1/bill_categories").await.expect(200);
    // The account's own gate comes before the module's.
    let (locked, auth) = infra::testing::account(&api.server.store, AccountStatus::Locked, true, true).await;
    let locked = Api { account_id: locked, auth: Some(auth), ..api.with_auth(None) };
    let answer = locked.get("/v1/sales").await.expect(403);
    assert!(answer.body["message"].as_str().unwrap().contains("locked"), "{}", answer.body);
}

#[tokio::test]
async fn sales_are_listed_newest_first_and_shown_by_code() {
    let api = store().await;
    let maria = customer(&api, "Maria da Silva", "529.982.247-25", &[]).await;
    let joao = customer(&api, "João Souza", "111.444.777-35", &[]).await;
    let items = vec![("Camiseta".to_owned(), 2, money("39.90")), ("Boné".to_owned(), 1, money("20.20"))];
    let payments = vec![billing_api::pos::sales::Payment { kind: PaymentKind::Card, amount: money("50.00") }];
    let first = sales_ops::create_sale(
        &api.server.store,
        api.account_id,
        maria,
        money("100.00"),
        Some(money("50.00")),
        items,
        payments,
    )
    .await
    .unwrap()["sale"]
        .clone();
    assert_eq!((first["code"].as_str(), first["status"].as_str()), (Some("000001"), Some("completed")));
    assert_eq!((first["on_account_amount"].as_str(), first["due_amount"].as_str()), (Some("50.00"), Some("50.00")));
    assert_eq!(
        first["payments"],
        json!([{"kind": "card", "amount": "50.00"}, {"kind": "on_account", "amount": "50.00"}])
    );
    assert_eq!(
        first["items"][0],
        json!({"description": "Camiseta", "quantity": 2, "unit_price": "39.90", "amount": "79.80"})
    );
    sell(&api, joao, "30.00", None).await.unwrap();
    // Each sale is announced as the API shows it.
    let recorded = billing_api::events::recorded(&api.server.store, api.account_id).await.unwrap();
    assert_eq!(recorded.len(), 2);
    assert_eq!((recorded[0]["type"].as_str(), &recorded[0]["data"]["sale"]), (Some("sale.updated"), &first));
    sell(&api, maria, "12.00", Some("12.00")).await.unwrap();

    let listed = api.get("/v1/sales?per_page=2").await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some("3"));
    let codes: Vec<&str> =
        listed.body["sales"].as_array().unwrap().iter().map(|s| s["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["000003", "000002"]);
    let page2 = api.get("/v1/sales?per_page=2&page=2").await.expect(200);
    assert_eq!(page2.body["sales"][0]["code"], "000001");
    let of_maria = api.get(&format!("/v1/sales?contact_id={maria}")).await.expect(200);
    assert_eq!(of_maria.header("x-total-count"), Some("2"));
    let day = today().to_string();
    let dated = api.get(&format!("/v1/sales?start_date={day}&end_date={day}&contact_id={joao}")).await.expect(200);
    assert_eq!((dated.header("x-total-count"), dated.body["sales"][0]["code"].as_str()), (Some("1"), Some("000002")));
    let before = api.get("/v1/sales?end_date=2020-01-01").await.expect(200);
    assert_eq!((before.header("x-total-count"), before.body["sales"].as_array().map(Vec::len)), (Some("0"), Some(0)));
    let refused = api.get("/v1/sales?start_date=2026-13-01&contact_id=abc").await.expect(422);
    assert_eq!(refused.errors().len(), 2, "{:?}", refused.errors());

    // By code, with or without its zeros; another account's is a 404.
    assert_eq!(api.get("/v1/sales/000001").await.expect(200).body, first);
    assert_eq!(api.get("/v1/sales/1").await.expect(200).body["code"], "000001");
    api.get("/v1/sales/999").await.expect(404);
    api.get("/v1/sales/abc").await.expect(404);
    let other = store().await;
    other.get("/v1/sales/000001").await.expect(404);
    // The contact shows what it owes.
    let contact = api.get(&format!("/v1/contacts/{maria}")).await.expect(200).body;
    assert_eq!((contact["on_account_balance"].as_str(), contact["on_account_limit"].as_str()), (Some("62.00"), None));
    // A contact with sales cannot be deleted.
    let answer = api.delete(&format!("/v1/contacts/{joao}")).await.expect(422);
    assert_eq!(answer.errors(), ["Contato não pode ser excluído: possui vendas ou créditos no ponto de venda"]);
}

#[tokio::test]
async fn the_on_account_rule_and_the_limit_decide_what_stays_open() {
    let api = store().await;
    let store = &api.server.store;
    let tag =
        api.post("/v1/tags", &json!({"tag": {"name": "Fiado", "allows_on_account": false}})).await.expect(201).body;
    let tag = tag["id"].as_i64().unwrap();
    let holder = customer(&api, "Maria da Silva", "529.982.247-25", &[tag]).await;
    let other = customer(&api, "João Souza", "111.444.777-35", &[]).await;
    // Rule 1: no marked tag, everyone may.
    sell(&api, other, "10.00", Some("10.00")).await.unwrap();
    // Rules 2 and 6: once a tag is marked, only its holders, all at once.
    api.patch(&format!("/v1/tags/{tag}"), &json!({"tag": {"allows_on_account": true}})).await.expect(200);
    let refused = sell(&api, other, "20.00", Some("5.00")).await.unwrap_err();
    assert!(refused.contains("não tem etiqueta que permita venda a prazo"), "{refused}");
    assert_eq!(api.get(&format!("/v1/contacts/{other}")).await.expect(200).body["on_account_allowed"], false);
    let paid = sell(&api, other, "20.00", None).await.expect("a sale paid at once is always allowed");
    assert_eq!(paid["code"], "000002", "a refused sale takes no number");
    sell(&api, holder, "20.00", Some("20.00")).await.unwrap();
    // Rule 3: the limit still caps a holder.
    let limited = infra::ops::set_on_account_limit(store, api.account_id, holder, Some(money("100.00"))).await.unwrap();
    super::support::assert_amounts_are_text(&limited);
    sell(&api, holder, "80.00", Some("80.00")).await.unwrap();
    let refused = sell(&api, holder, "5.00", Some("5.00")).await.unwrap_err();
    assert!(refused.contains("Limite de venda a prazo excedido: limite 100.00, em aberto 100.00"), "{refused}");
    // Rule 4: receipts (and returns) go on for anyone; they make room under the limit.
    let sales = api.get(&format!("/v1/sales?contact_id={other}")).await.expect(200).body;
    let open_one = sales["sales"].as_array().unwrap().iter().find(|s| s["due_amount"] == "10.00").unwrap().clone();
    let code = open_one["code"].as_str().unwrap();
    let received = sales_ops::receive(store, api.account_id, code, money("4.00"), PaymentKind::Pix).await.unwrap();
    assert_eq!(received["sale"]["due_amount"], "6.00");
    assert!(sales_ops::receive(store, api.account_id, code, money("7.00"), PaymentKind::Cash).await.is_err());
    let returned = sales_ops::give_back(store, api.account_id, code, money("10.00"), RefundTo::Cash).await.unwrap();
    let returned = &returned["sale"];
    assert_eq!((returned["due_amount"].as_str(), returned["status"].as_str()), (Some("0.00"), Some("returned")));
    assert_eq!(returned["returns"][0]["off_due_amount"], "6.00");
    assert_eq!(returned["returns"][0]["refunded_amount"], "4.00");
    let holder_sales = api.get(&format!("/v1/sales?contact_id={holder}")).await.expect(200).body;
    let code = holder_sales["sales"][0]["code"].as_str().unwrap().to_owned();
    sales_ops::receive(store, api.account_id, &code, money("30.00"), PaymentKind::Card).await.unwrap();
    sell(&api, holder, "25.00", Some("25.00")).await.unwrap();
    let contact = api.get(&format!("/v1/contacts/{holder}")).await.expect(200).body;
    assert_eq!(
        (contact["on_account_balance"].as_str(), contact["on_account_limit"].as_str()),
        (Some("95.00"), Some("100.00"))
    );
    assert_eq!(contact["on_account_allowed"], true);
    // Amounts that do not add up are refused clearly.
    let refused = sales_ops::create_sale(
        store,
        api.account_id,
        holder,
        money("10.00"),
        None,
        vec![("Item".into(), 1, money("9.00"))],
        vec![],
    )
    .await
    .unwrap_err();
    assert!(format!("{refused:#}").contains("A soma dos itens (9.00) difere do total da venda (10.00)"));
    assert!(sell(&api, ContactId::new(999), "10.00", None).await.unwrap_err().contains("Cliente"));
}

#[tokio::test]
async fn credits_are_added_once_per_reference() {
    let api = store().await;
    let maria = customer(&api, "Maria da Silva", "529.982.247-25", &[]).await;
    let body = json!({"store_credit": {"reference": "devolucao-77", "contact_id": maria, "amount": "50.00", "description": "Troca"}});
    let created = api.post("/v1/store_credits", &body).await.expect(201).body;
    assert_eq!((created["amount"].as_str(), created["balance"].as_str()), (Some("50.00"), Some("50.00")));
    assert_eq!(created["reference"], "devolucao-77");
    let again = api.post("/v1/store_credits", &body).await.expect(200).body;
    assert_eq!(again, created);
    // One store_credit.created event, for the credit added (not for the repeat).
    let recorded = billing_api::events::recorded(&api.server.store, api.account_id).await.unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        (recorded[0]["type"].as_str(), &recorded[0]["data"]["store_credit"]),
        (Some("store_credit.created"), &created)
    );
    let mut other = body.clone();
    other["store_credit"]["amount"] = json!("60.00");
    let conflict = api.post("/v1/store_credits", &other).await.expect(409).body;
    assert_eq!(conflict["code"], "reference_reused");
    assert!(conflict["message"].is_string());
    for contact in [json!(999), json!("abc")] {
        let mut unknown = body.clone();
        unknown["store_credit"]["contact_id"] = contact;
        unknown["store_credit"]["reference"] = json!("x-1");
        let answer = api.post("/v1/store_credits", &unknown).await.expect(422).body;
        assert_eq!(answer["code"], "contact_not_found", "{answer}");
    }
    // Another account's contact is unknown here.
    let stranger = store().await;
    customer(&stranger, "Ana Lima", "529.982.247-25", &[]).await;
    let theirs = customer(&stranger, "Rui Alves", "111.444.777-35", &[]).await;
    assert_ne!(theirs, maria, "an id this account does not have");
    let mut foreign = body.clone();
    foreign["store_credit"]["contact_id"] = json!(theirs);
    foreign["store_credit"]["reference"] = json!("x-2");
    assert_eq!(api.post("/v1/store_credits", &foreign).await.expect(422).body["code"], "contact_not_found");
    for amount in [json!("0"), json!("-5.00"), json!("abc"), json!("1.005"), json!(null)] {
        let mut bad = body.clone();
        bad["store_credit"]["amount"] = amount.clone();
        bad["store_credit"]["reference"] = json!("x-3");
        let answer = api.post("/v1/store_credits", &bad).await.expect(422);
        assert_eq!(answer.errors().len(), 1, "{amount}: {:?}", answer.errors());
    }
    let mut no_reference = body.clone();
    no_reference["store_credit"].as_object_mut().unwrap().remove("reference");
    assert_eq!(api.post("/v1/store_credits", &no_reference).await.expect(422).errors(), ["reference é obrigatório"]);
    api.post("/v1/store_credits", &json!({"credit": {}})).await.expect(422);
}

#[tokio::test]
async fn thirty_parallel_posts_of_one_reference_make_one_credit() {
    let api = store().await;
    let maria = customer(&api, "Maria da Silva", "529.982.247-25", &[]).await;
    let body = json!({"store_credit": {"reference": "lote-1", "contact_id": maria, "amount": "10.00"}});
    let answers = futures::future::join_all((0..30).map(|_| api.post("/v1/store_credits", &body))).await;
    let mut statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses[0], 200);
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 29, "{statuses:?}");
    let ids: Vec<&Value> = answers.iter().map(|a| &a.body["id"]).collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "the same credit every time");
    let contact = api.get(&format!("/v1/contacts/{maria}")).await.expect(200).body;
    assert_eq!(contact["store_credit_balance"], "10.00");
    let listed = api.get(&format!("/v1/store_credits?contact_id={maria}")).await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some("1"));
}

#[tokio::test]
async fn credit_movements_follow_the_rule_and_keep_a_running_balance() {
    let api = store().await;
    let store = &api.server.store;
    let tag =
        api.post("/v1/tags", &json!({"tag": {"name": "Crediário", "allows_on_account": true}})).await.expect(201).body
            ["id"]
            .as_i64()
            .unwrap();
    let holder = customer(&api, "Maria da Silva", "529.982.247-25", &[tag]).await;
    let other = customer(&api, "João Souza", "111.444.777-35", &[]).await;
    for (contact, reference) in [(holder, "c-1"), (other, "c-2")] {
        // Adding credit is accepted whatever the rule says (rule 5).
        let body = json!({"store_credit": {"reference": reference, "contact_id": contact, "amount": "40.00"}});
        api.post("/v1/store_credits", &body).await.expect(201);
    }
    let with_credit =
        |amount: &str| vec![billing_api::pos::sales::Payment { kind: PaymentKind::StoreCredit, amount: money(amount) }];
    let refused =
        sales_ops::create_sale(store, api.account_id, other, money("15.00"), None, vec![], with_credit("15.00"))
            .await
            .unwrap_err();
    assert!(format!("{refused:#}").contains("Crédito do cliente não pode ser usado"), "{refused:#}");
    let sale =
        sales_ops::create_sale(store, api.account_id, holder, money("15.00"), None, vec![], with_credit("15.00"))
            .await
            .unwrap()["sale"]
            .clone();
    let too_much =
        sales_ops::create_sale(store, api.account_id, holder, money("30.00"), None, vec![], with_credit("30.00"))
            .await
            .unwrap_err();
    assert!(format!("{too_much:#}").contains("Saldo de crédito insuficiente: saldo 25.00"), "{too_much:#}");
    // A return as credit needs the rule too; the holder gets it back.
    let code = sale["code"].as_str().unwrap();
    sales_ops::give_back(store, api.account_id, code, money("5.00"), RefundTo::StoreCredit).await.unwrap();
    let other_sale = sell(&api, other, "8.00", None).await.unwrap();
    let refused = sales_ops::give_back(
        store,
        api.account_id,
        other_sale["code"].as_str().unwrap(),
        money("8.00"),
        RefundTo::StoreCredit,
    )
    .await
    .unwrap_err();
    assert!(format!("{refused:#}").contains("Crédito do cliente não pode ser usado"));

    let listed = api.get(&format!("/v1/store_credits?contact_id={holder}")).await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some("3"));
    let moves: Vec<(&str, &str, &str)> = listed.body["store_credits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["kind"].as_str().unwrap(), m["amount"].as_str().unwrap(), m["balance"].as_str().unwrap()))
        .collect();
    assert_eq!(moves, [("returned", "5.00", "30.00"), ("used", "-15.00", "25.00"), ("added", "40.00", "40.00")]);
    assert_eq!(listed.body["store_credits"][1]["sale_code"], code);
    let page2 = api.get(&format!("/v1/store_credits?contact_id={holder}&per_page=2&page=2")).await.expect(200);
    assert_eq!(page2.body["store_credits"][0]["kind"], "added");
    api.get("/v1/store_credits").await.expect(422);
    assert_eq!(api.get("/v1/store_credits?contact_id=999").await.expect(422).body["code"], "contact_not_found");
}

/// Three customers with open balances and a payer contact for the store's settlements.
async fn settlement_setup(api: &Api) -> (ContactId, Vec<Value>) {
    let store = &api.server.store;
    infra::ops::create_bank_rule(store, api.account_id, "Banco simulado", "simulated", None).await.unwrap();
    let maria = customer(api, "Maria da Silva", "529.982.247-25", &[]).await;
    let joao = customer(api, "João Souza", "111.444.777-35", &[]).await;
    let payer = customer(api, "Financeira Parceira", "390.533.447-05", &[]).await;
    let mut sold = Vec::new();
    for (contact, total, open) in
        [(maria, "100.00", "60.00"), (joao, "45.50", "45.50"), (maria, "20.00", "20.00"), (joao, "10.00", "10.00")]
    {
        sold.push(sell(api, contact, total, Some(open)).await.unwrap());
    }
    (payer, sold)
}

async fn set_payer(api: &Api, payer: Option<ContactId>) {
    let changes = billing_api::accounts::AccountChanges { settlement_contact_id: Some(payer), ..Default::default() };
    infra::ops::update_account(&api.server.store, &api.server.flusher(), api.account_id, changes).await.unwrap();
}

#[tokio::test]
async fn balances_are_previewed_and_settled_into_one_billing() {
    let api = store().await;
    let (payer, sold) = settlement_setup(&api).await;
    let day = today().to_string();
    let request = json!({"receivable_settlement": {"reference": "acerto-nov", "cutoff_at": day}});
    let missing = api.post("/v1/receivable_settlements", &request).await.expect(422).body;
    assert_eq!(missing["code"], "settlement_contact_missing");
    set_payer(&api, Some(payer)).await;

    let preview = api.get(&format!("/v1/receivable_settlements/preview?cutoff_at={day}")).await.expect(200).body;
    assert_eq!((preview["total"].as_str(), preview["sales_count"].as_u64()), (Some("135.50"), Some(4)));
    assert_eq!(
        (preview["contacts_count"].as_u64(), preview["payer_contact_id"].as_i64()),
        (Some(2), Some(payer.get()))
    );
    let maria = &preview["contacts"][0];
    assert_eq!(
        (maria["name"].as_str(), maria["amount"].as_str(), maria["sales_count"].as_u64()),
        (Some("Maria da Silva"), Some("80.00"), Some(2))
    );
    let earlier = api.get("/v1/receivable_settlements/preview?cutoff_at=2020-01-01").await.expect(200).body;
    assert_eq!(earlier["total"], "0.00");
    api.get("/v1/receivable_settlements/preview").await.expect(422);
    api.get("/v1/receivable_settlements/preview?cutoff_at=2999-01-01").await.expect(422);
    assert_eq!(
        api.get("/v1/sales").await.expect(200).body["sales"].as_array().unwrap().len(),
        4,
        "a preview writes nothing"
    );

    let created = api.post("/v1/receivable_settlements", &request).await.expect(201).body;
    assert_eq!((created["state"].as_str(), created["reference"].as_str()), (Some("pending"), Some("acerto-nov")));
    assert_eq!(api.post("/v1/receivable_settlements", &request).await.expect(200).body["state"], "pending");
    let other_cutoff = json!({"receivable_settlement": {"reference": "acerto-nov", "cutoff_at": "2026-01-01"}});
    assert_eq!(
        api.post("/v1/receivable_settlements", &other_cutoff).await.expect(409).body["code"],
        "reference_reused"
    );
    let nothing = json!({"receivable_settlement": {"reference": "vazio", "cutoff_at": "2020-01-01"}});
    api.post("/v1/receivable_settlements", &nothing).await.expect(422);

    assert!(api.server.settle().await >= 1);
    let done = api.get("/v1/receivable_settlements/acerto-nov").await.expect(200).body;
    assert_eq!((done["state"].as_str(), done["amount"].as_str()), (Some("completed"), Some("135.50")), "{done}");
    assert_eq!((done["sales_count"].as_u64(), done["contacts_count"].as_u64()), (Some(4), Some(2)));
    let billing_id = done["billing_id"].as_i64().expect("a billing");
    api.get("/v1/receivable_settlements/nao-existe").await.expect(404);
    // One billing against the payer, an item per customer, its billet registered as any other.
    let billing = api.get(&format!("/v1/billings/{billing_id}")).await.expect(200).body;
    assert_eq!((billing["contact_id"].as_i64(), billing["amount"].as_str()), (Some(payer.get()), Some("135.50")));
    let items = billing["billing_items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert!(
        items[0]["description"].as_str().unwrap().starts_with("Maria da Silva - vendas 000001, 000003 até "),
        "{}",
        items[0]
    );
    api.server.register_billets().await;
    let billets = api.get(&format!("/v1/billings/{billing_id}/bank_billets")).await.expect(200).body;
    assert_eq!(billets["bank_billets"][0]["status"], "opened");
    // The sales are settled and the customers owe nothing.
    for sale in &sold {
        let shown = api.get(&format!("/v1/sales/{}", sale["code"].as_str().unwrap())).await.expect(200).body;
        assert_eq!(
            (shown["due_amount"].as_str(), shown["settlement_reference"].as_str()),
            (Some("0.00"), Some("acerto-nov"))
        );
        assert_eq!(shown["settled_amount"], sale["due_amount"]);
    }
    let customer_id = sold[0]["contact_id"].as_i64().unwrap();
    assert_eq!(api.get(&format!("/v1/contacts/{customer_id}")).await.expect(200).body["on_account_balance"], "0.00");
    // Asked again, it answers its state; its messages again change nothing.
    assert_eq!(
        api.post("/v1/receivable_settlements", &request).await.expect(200).body["billing_id"],
        json!(billing_id)
    );
    for chunk in [0, 1] {
        let message = ReceivableSettlement::new(api.account_id, "acerto-nov", chunk);
        let outcome = settlements::run(&api.server.store, &message, 50).await.unwrap();
        assert_eq!(outcome, Outcome::Skipped("already completed"));
    }
}

#[tokio::test]
async fn a_settlement_stopped_half_way_resumes_without_settling_twice() {
    let api = store().await;
    let store = &api.server.store;
    let (payer, sold) = settlement_setup(&api).await;
    set_payer(&api, Some(payer)).await;
    let day = today().to_string();
    let request = json!({"receivable_settlement": {"reference": "parcial", "cutoff_at": day}});
    api.post("/v1/receivable_settlements", &request).await.expect(201);
    // A worker that settles two sales and stops, as if its process died before the next message.
    let first = ReceivableSettlement::new(api.account_id, "parcial", 0);
    let outcome = settlements::run(store, &first, 2).await.unwrap();
    assert_eq!(outcome, Outcome::Continued(2));
    let half = settlements::find(store, api.account_id, "parcial").await.unwrap().unwrap();
    assert_eq!((half.sales_count, half.amount, half.chunk), (2, half.amount, 1));
    assert_eq!(half.state, billing_api::values::SettlementState::Processing);
    // A copy of that message, or one written to run the chunk after next, does nothing.
    assert_eq!(settlements::run(store, &first, 2).await.unwrap(), Outcome::Skipped(CHUNK_RUN));
    let ahead = ReceivableSettlement::new(api.account_id, "parcial", 2);
    assert_eq!(settlements::run(store, &ahead, 2).await.unwrap(), Outcome::Skipped(CHUNK_RUN));
    // The next chunk's message (recorded with the first chunk's count): the rest, once each, and
    // one billing.
    let next = ReceivableSettlement::new(api.account_id, "parcial", 1);
    settlements::run(store, &next, 2).await.unwrap();
    api.server.settle().await;
    let done = api.get("/v1/receivable_settlements/parcial").await.expect(200).body;
    assert_eq!(
        (done["state"].as_str(), done["amount"].as_str(), done["sales_count"].as_u64()),
        (Some("completed"), Some("135.50"), Some(4))
    );
    let billings = api.get("/v1/billings").await.expect(200);
    assert_eq!(billings.header("x-total-count"), Some("1"), "one billing");
    for sale in &sold {
        let shown = api.get(&format!("/v1/sales/{}", sale["code"].as_str().unwrap())).await.expect(200).body;
        assert_eq!(shown["settled_amount"], sale["due_amount"], "settled once");
    }
}

#[tokio::test]
async fn a_failed_settlement_is_resumed_with_202() {
    let api = store().await;
    let (payer, _) = settlement_setup(&api).await;
    let fresh_payer = customer(&api, "Outra Financeira", "935.411.347-80", &[]).await;
    set_payer(&api, Some(payer)).await;
    let day = today().to_string();
    let request = json!({"receivable_settlement": {"reference": "falha", "cutoff_at": day}});
    api.post("/v1/receivable_settlements", &request).await.expect(201);
    // The payer is deleted before the worker runs: the settlement fails, saying why.
    api.delete(&format!("/v1/contacts/{payer}")).await.expect(204);
    api.server.settle().await;
    let failed = api.get("/v1/receivable_settlements/falha").await.expect(200).body;
    assert_eq!(failed["state"], "failed");
    assert!(failed["failure_reason"].as_str().unwrap().contains("pagador"), "{failed}");
    assert_eq!(
        api.post("/v1/receivable_settlements", &request).await.expect(422).body["code"],
        "settlement_contact_missing"
    );
    set_payer(&api, Some(fresh_payer)).await;
    let resumed = api.post("/v1/receivable_settlements", &request).await.expect(202).body;
    assert_eq!(
        (resumed["state"].as_str(), resumed["payer_contact_id"].as_i64()),
        (Some("pending"), Some(fresh_payer.get()))
    );
    api.server.settle().await;
    let done = api.get("/v1/receivable_settlements/falha").await.expect(200).body;
    assert_eq!(done["state"], "completed", "{done}");
    let billing = api.get(&format!("/v1/billings/{}", done["billing_id"])).await.expect(200).body;
    assert_eq!(billing["contact_id"], json!(fresh_payer));
}
