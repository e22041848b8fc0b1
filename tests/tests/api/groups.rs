//! §2.5 and §4.6: groups.

use billing_api::groups::{MSG_DESCRIPTION_BLANK, MSG_DESCRIPTION_TAKEN, MSG_DESCRIPTION_TOO_LONG, MSG_TYPE_INVALID};
use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

use super::support::{Answer, Api};

async fn create(api: &Api, contact_type: &str, description: &str) -> Value {
    api.post("/v1/groups", &json!({"group": {"contact_type": contact_type, "description": description}}))
        .await
        .expect(201)
        .body
}

fn listed(answer: &Answer) -> Vec<(String, String)> {
    answer.body["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["contact_type"].as_str().unwrap().to_owned(), g["description"].as_str().unwrap().to_owned()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[tokio::test]
async fn create_answers_the_group() {
    let api = Api::start().await;
    let group = create(&api, "customers", " Clientes   mensais ").await;
    let mut keys: Vec<_> = group.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["contact_type", "created_at", "description", "id", "updated_at"]);
    assert_eq!(group["description"], "Clientes mensais");
    let form = api
        .form(Method::POST, "/v1/groups", "group[contact_type]=suppliers&group[description]=Fornecedores")
        .await
        .expect(201);
    assert_eq!(form.body["contact_type"], "suppliers");
}

#[tokio::test]
async fn both_fields_are_required_and_checked() {
    let api = Api::start().await;
    let answer = api.post("/v1/groups", &json!({"group": {}})).await.expect(422);
    assert_eq!(answer.body, json!({"status": 422, "errors": [MSG_TYPE_INVALID, MSG_DESCRIPTION_BLANK]}));
    for kind in ["customer", "Customers", ""] {
        let answer =
            api.post("/v1/groups", &json!({"group": {"contact_type": kind, "description": "x"}})).await.expect(422);
        assert_eq!(answer.errors(), [MSG_TYPE_INVALID]);
    }
    let answer =
        api.post("/v1/groups", &json!({"group": {"contact_type": "customers", "description": "  "}})).await.expect(422);
    assert_eq!(answer.errors(), [MSG_DESCRIPTION_BLANK]);
    create(&api, "customers", &"d".repeat(255)).await;
    let answer = api
        .post("/v1/groups", &json!({"group": {"contact_type": "customers", "description": "e".repeat(256)}}))
        .await
        .expect(422);
    assert_eq!(answer.errors(), [MSG_DESCRIPTION_TOO_LONG]);
}

#[tokio::test]
async fn descriptions_are_unique_ignoring_case_across_types() {
    let api = Api::start().await;
    create(&api, "customers", "Mensalistas").await;
    for (kind, description) in [("customers", "mensalistas"), ("suppliers", "MENSALISTAS")] {
        let answer = api
            .post("/v1/groups", &json!({"group": {"contact_type": kind, "description": description}}))
            .await
            .expect(422);
        assert_eq!(answer.body, json!({"status": 422, "errors": [MSG_DESCRIPTION_TAKEN]}));
    }
    create(&api.other_account().await, "customers", "Mensalistas").await;
}

#[tokio::test]
async fn twenty_parallel_creates_of_one_description_give_exactly_one_201() {
    let api = Api::start().await;
    let body = json!({"group": {"contact_type": "customers", "description": "Paralelo"}});
    let answers = join_all((0..20).map(|_| api.post("/v1/groups", &body))).await;
    assert_eq!(answers.iter().filter(|a| a.status == 201).count(), 1);
    assert!(answers
        .iter()
        .filter(|a| a.status != 201)
        .all(|a| a.status == 422 && a.errors() == [MSG_DESCRIPTION_TAKEN]));
    assert_eq!(api.get("/v1/groups").await.expect(200).header("x-total-count"), Some("1"));
}

#[tokio::test]
async fn list_orders_by_type_then_description_and_filters() {
    let api = Api::start().await;
    for (kind, description) in [
        ("suppliers", "Atacadistas"),
        ("customers", "Zona sul"),
        ("customers", "área norte"),
        ("suppliers", "Bancos"),
        ("customers", "Centro"),
    ] {
        create(&api, kind, description).await;
    }
    let all = api.get("/v1/groups").await.expect(200);
    assert_eq!(
        listed(&all),
        pairs(&[
            ("customers", "área norte"),
            ("customers", "Centro"),
            ("customers", "Zona sul"),
            ("suppliers", "Atacadistas"),
            ("suppliers", "Bancos")
        ])
    );
    let suppliers = api.get("/v1/groups?contact_type=suppliers").await.expect(200);
    assert_eq!(listed(&suppliers), pairs(&[("suppliers", "Atacadistas"), ("suppliers", "Bancos")]));
    assert_eq!(suppliers.header("x-total-count"), Some("2"));
    let unknown = api.get("/v1/groups?contact_type=customer").await.expect(200);
    assert!(listed(&unknown).is_empty());
    assert_eq!(unknown.header("x-total-count"), Some("0"));
    let search = api.get("/v1/groups?s=NOR").await.expect(200);
    assert_eq!(listed(&search), pairs(&[("customers", "área norte")]));
    let both = api.get("/v1/groups?contact_type=customers&s=o&per_page=1&page=2").await.expect(200);
    assert_eq!(listed(&both), pairs(&[("customers", "Centro")]));
    assert_eq!(
        ["x-total-count", "x-page", "x-per-page", "x-total-pages"].map(|h| both.header(h).unwrap().to_owned()),
        ["3", "2", "1", "3"]
    );
}

#[tokio::test]
async fn totals_count_the_callers_account_only() {
    let api = Api::start().await;
    let other = api.other_account().await;
    create(&other, "customers", "Deles").await;
    create(&api, "customers", "Meu").await;
    let answer = api.get("/v1/groups").await.expect(200);
    assert_eq!(answer.header("x-total-count"), Some("1"));
    assert_eq!(listed(&answer), pairs(&[("customers", "Meu")]));
}

#[tokio::test]
async fn patch_and_put_keep_omitted_fields() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Mensalistas").await;
    create(&api, "suppliers", "Fornecedores").await;
    let path = format!("/v1/groups/{}", group["id"]);

    let patched = api.patch(&path, &json!({"group": {"contact_type": "suppliers"}})).await.expect(200).body;
    assert_eq!(
        (patched["contact_type"].as_str(), patched["description"].as_str()),
        (Some("suppliers"), Some("Mensalistas"))
    );
    let put = api.json(Method::PUT, &path, &json!({"group": {"description": "Anuais"}})).await.expect(200).body;
    assert_eq!((put["contact_type"].as_str(), put["description"].as_str()), (Some("suppliers"), Some("Anuais")));

    api.json(Method::PUT, &path, &json!({"group": {"contact_type": "others"}})).await.expect(422);
    api.patch(&path, &json!({"group": {"description": ""}})).await.expect(422);
    let answer = api.patch(&path, &json!({"group": {"description": "fornecedores"}})).await.expect(422);
    assert_eq!(answer.errors(), [MSG_DESCRIPTION_TAKEN]);
    assert_eq!(api.get(&path).await.expect(200).body, put);
}

#[tokio::test]
async fn delete_and_foreign_groups() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let theirs = create(&other, "customers", "Deles").await;
    let path = format!("/v1/groups/{}", theirs["id"]);
    api.get(&path).await.expect(404);
    api.patch(&path, &json!({"group": {"description": "Meu"}})).await.expect(404);
    api.json(Method::PUT, &path, &json!({"group": {"description": "Meu"}})).await.expect(404);
    api.delete(&path).await.expect(404);
    assert_eq!(other.get(&path).await.expect(200).body, theirs);

    let answer = other.delete(&path).await.expect(204);
    assert!(answer.text.is_empty());
    other.get(&path).await.expect(404);
    create(&other, "suppliers", "deles").await;
}
