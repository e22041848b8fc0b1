//! §4.7 `GET /v1/bill_categories`: read-only, filter `category_type`, records created by ops.

use serde_json::Value;

use super::support::Api;

async fn seed(api: &Api, description: &str, kind: &str) -> i64 {
    let made = infra::ops::create_category(&api.server.store, api.account_id, description, kind).await.unwrap();
    made["bill_category"]["id"].as_i64().unwrap()
}

fn descriptions(body: &Value) -> Vec<String> {
    body["bill_categories"].as_array().unwrap().iter().map(|c| c["description"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn lists_the_accounts_categories_filtered_and_paginated() {
    let api = Api::start().await;
    seed(&api, "Mensalidades", "receivable").await;
    seed(&api, "Aluguel", "payable").await;
    seed(&api, "Vendas avulsas", "receivable").await;
    seed(&api.other_account().await, "Deles", "receivable").await;

    let all = api.get("/v1/bill_categories").await.expect(200);
    assert_eq!(descriptions(&all.body), ["Aluguel", "Mensalidades", "Vendas avulsas"]);
    assert_eq!(all.header("x-total-count"), Some("3"));
    let first = &all.body["bill_categories"][0];
    let mut keys: Vec<_> = first.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["category_type", "created_at", "description", "id", "updated_at"]);

    let receivable = api.get("/v1/bill_categories?category_type=receivable").await.expect(200);
    assert_eq!(descriptions(&receivable.body), ["Mensalidades", "Vendas avulsas"]);
    assert!(descriptions(&api.get("/v1/bill_categories?category_type=other").await.expect(200).body).is_empty());
    let widened = api.get("/v1/bill_categories?category_type=receivable%23CATEGORY").await.expect(200);
    assert!(descriptions(&widened.body).is_empty(), "the index separator cannot widen the filter");
    let page = api.get("/v1/bill_categories?per_page=1&page=3").await.expect(200);
    assert_eq!(descriptions(&page.body), ["Vendas avulsas"]);
    assert_eq!(page.header("x-total-pages"), Some("3"));
}

#[tokio::test]
async fn it_is_read_only_and_authenticated() {
    let api = Api::start().await;
    api.post("/v1/bill_categories", &serde_json::json!({})).await.expect(404);
    api.with_auth(None).get("/v1/bill_categories").await.expect(401);
}

#[tokio::test]
async fn ops_refuses_unknown_types_and_accounts() {
    let api = Api::start().await;
    let store = &api.server.store;
    assert!(infra::ops::create_category(store, api.account_id, "X", "expense").await.is_err());
    assert!(infra::ops::create_bank_account(store, api.account_id, "X", "gold").await.is_err());
    assert!(infra::ops::create_bank_rule(
        store,
        billing_api::values::AccountId::new(987_654_321),
        "X",
        "simulated",
        None
    )
    .await
    .is_err());
    let account = infra::ops::create_bank_account(store, api.account_id, "Caixa da loja", "service").await.unwrap();
    assert_eq!(account["bank_account"]["account_type"], "service");
    let rule = infra::ops::create_bank_rule(store, api.account_id, "Simulado", "simulated", Some("1234".into()))
        .await
        .unwrap();
    assert_eq!(rule["bank_rule"]["bank_symbol"], "simulated");
}
