//! §2.4 and §4.5: tags.

use billing_api::tags::{MSG_COLOR_INVALID, MSG_NAME_BLANK, MSG_NAME_TAKEN, MSG_NAME_TOO_LONG};
use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

use super::support::{Answer, Api};

async fn create(api: &Api, name: &str) -> Value {
    api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(201).body
}

fn names(answer: &Answer) -> Vec<String> {
    answer.body["tags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn create_with_json_applies_defaults_and_ignores_foreign_fields() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let answer = api
        .post(
            "/v1/tags",
            &json!({"tag": {"name": "  Clientes   VIP ", "account_id": other.account_id, "kind": "plan", "foo": 1}}),
        )
        .await
        .expect(201);
    let tag = &answer.body;
    let mut keys: Vec<_> = tag.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["allows_on_account", "color", "created_at", "id", "name", "updated_at"]);
    assert_eq!(
        (tag["name"].as_str(), tag["color"].as_str(), tag["allows_on_account"].as_bool()),
        (Some("Clientes VIP"), Some("info"), Some(false))
    );
    assert!(tag["created_at"].as_str().unwrap().ends_with("-03:00"));
    let path = format!("/v1/tags/{}", tag["id"]);
    assert_eq!(api.get(&path).await.expect(200).body, *tag);
    other.get(&path).await.expect(404);
}

#[tokio::test]
async fn create_with_a_rails_style_form() {
    let api = Api::start().await;
    let answer = api
        .form(Method::POST, "/v1/tags", "tag%5Bname%5D=Atacado&tag[color]=warning&tag[allows_on_account]=1")
        .await
        .expect(201);
    assert_eq!(answer.body["name"], "Atacado");
    assert_eq!(answer.body["color"], "warning");
    assert_eq!(answer.body["allows_on_account"], true);
}

#[tokio::test]
async fn name_rules() {
    let api = Api::start().await;
    for tag in [json!({}), json!({"name": null}), json!({"name": "   "})] {
        let answer = api.post("/v1/tags", &json!({"tag": tag})).await.expect(422);
        assert_eq!(answer.body, json!({"status": 422, "errors": [MSG_NAME_BLANK]}));
    }
    create(&api, &"x".repeat(40)).await;
    create(&api, &"ç".repeat(40)).await;
    let answer = api.post("/v1/tags", &json!({"tag": {"name": "y".repeat(41)}})).await.expect(422);
    assert_eq!(answer.errors(), [MSG_NAME_TOO_LONG]);
}

#[tokio::test]
async fn every_error_is_reported_at_once() {
    let api = Api::start().await;
    let answer = api
        .post("/v1/tags", &json!({"tag": {"name": "", "color": "pink", "allows_on_account": "talvez"}}))
        .await
        .expect(422);
    let errors = answer.errors();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors.contains(&MSG_NAME_BLANK.to_owned()) && errors.contains(&MSG_COLOR_INVALID.to_owned()));
    assert_eq!(api.get("/v1/tags").await.expect(200).header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn names_are_unique_per_account_ignoring_case() {
    let api = Api::start().await;
    create(&api, "VIP").await;
    for name in ["vip", " Vip ", "VIP"] {
        let answer = api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(422);
        assert_eq!(answer.body, json!({"status": 422, "errors": [MSG_NAME_TAKEN]}));
    }
    create(&api.other_account().await, "vip").await;
}

#[tokio::test]
async fn twenty_parallel_creates_of_one_name_give_exactly_one_201() {
    let api = Api::start().await;
    let body = json!({"tag": {"name": "Concorrência"}});
    let answers = join_all((0..20).map(|_| api.post("/v1/tags", &body))).await;
    let created = answers.iter().filter(|a| a.status == 201).count();
    assert_eq!(created, 1);
    for answer in answers.iter().filter(|a| a.status != 201) {
        assert_eq!(answer.status, 422, "{}", answer.text);
        assert_eq!(answer.errors(), [MSG_NAME_TAKEN]);
    }
    assert_eq!(names(&api.get("/v1/tags").await.expect(200)), ["Concorrência"]);
}

#[tokio::test]
async fn list_orders_by_name_ignoring_case_and_accents_and_searches_substrings() {
    let api = Api::start().await;
    for name in ["banana", "Zebra", "Árvore", "água", "Bananada"] {
        create(&api, name).await;
    }
    let answer = api.get("/v1/tags").await.expect(200);
    assert_eq!(names(&answer), ["água", "Árvore", "banana", "Bananada", "Zebra"]);
    assert_eq!(names(&api.get("/v1/tags?s=BANANA").await.expect(200)), ["banana", "Bananada"]);
    let answer = api.get("/v1/tags?s=nad").await.expect(200);
    assert_eq!(names(&answer), ["Bananada"]);
    assert_eq!(answer.header("x-total-count"), Some("1"));
    assert_eq!(names(&api.get("/v1/tags?s=").await.expect(200)).len(), 5);
}

#[tokio::test]
async fn pagination_headers_and_clamping() {
    let api = Api::start().await;
    for i in 0..7 {
        create(&api, &format!("tag {i}")).await;
    }
    let headers = |a: &Answer| {
        ["x-total-count", "x-page", "x-per-page", "x-total-pages"].map(|h| a.header(h).unwrap_or_default().to_owned())
    };
    let page = api.get("/v1/tags?page=2&per_page=3").await.expect(200);
    assert_eq!(headers(&page), ["7", "2", "3", "3"]);
    assert_eq!(names(&page), ["tag 3", "tag 4", "tag 5"]);
    assert_eq!(names(&api.get("/v1/tags?page=3&per_page=3").await.expect(200)), ["tag 6"]);
    assert_eq!(headers(&api.get("/v1/tags").await.expect(200)), ["7", "1", "25", "1"]);
    assert_eq!(headers(&api.get("/v1/tags?per_page=500").await.expect(200)), ["7", "1", "100", "1"]);
    for bad in ["0", "-1", "abc"] {
        let answer = api.get(&format!("/v1/tags?page={bad}&per_page={bad}")).await.expect(200);
        assert_eq!(headers(&answer), ["7", "1", "25", "1"], "{bad}");
    }
    let beyond = api.get("/v1/tags?page=9&per_page=5").await.expect(200);
    assert_eq!(headers(&beyond), ["7", "9", "5", "2"]);
    assert!(names(&beyond).is_empty());
}

#[tokio::test]
async fn totals_count_the_callers_account_only() {
    let api = Api::start().await;
    let other = api.other_account().await;
    create(&api, "mine").await;
    for name in ["a", "b", "c"] {
        create(&other, name).await;
    }
    let answer = api.get("/v1/tags").await.expect(200);
    assert_eq!(answer.header("x-total-count"), Some("1"));
    assert_eq!(names(&answer), ["mine"]);
}

#[tokio::test]
async fn another_accounts_tag_is_not_found_and_untouched() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let tag = create(&other, "Deles").await;
    let path = format!("/v1/tags/{}", tag["id"]);
    let not_found = json!({"status": 404, "message": "Não encontrado"});
    assert_eq!(api.get(&path).await.expect(404).body, not_found);
    assert_eq!(api.patch(&path, &json!({"tag": {"name": "Meu"}})).await.expect(404).body, not_found);
    assert_eq!(api.delete(&path).await.expect(404).body, not_found);
    assert_eq!(other.get(&path).await.expect(200).body, tag);
}

#[tokio::test]
async fn update_keeps_omitted_fields_and_guards_the_name() {
    let api = Api::start().await;
    let vip = create(&api, "VIP").await;
    create(&api, "Atacado").await;
    let path = format!("/v1/tags/{}", vip["id"]);

    let updated =
        api.patch(&path, &json!({"tag": {"color": "danger", "allows_on_account": true}})).await.expect(200).body;
    assert_eq!(
        (updated["name"].as_str(), updated["color"].as_str(), updated["allows_on_account"].as_bool()),
        (Some("VIP"), Some("danger"), Some(true))
    );

    for taken in ["Atacado", "ATACADO"] {
        let answer = api.patch(&path, &json!({"tag": {"name": taken}})).await.expect(422);
        assert_eq!(answer.errors(), [MSG_NAME_TAKEN]);
    }
    assert_eq!(api.get(&path).await.expect(200).body, updated);
    api.patch(&path, &json!({"tag": {"name": ""}})).await.expect(422);

    // A case-only rename keeps its own name; a real rename frees the old one.
    assert_eq!(api.patch(&path, &json!({"tag": {"name": "vip"}})).await.expect(200).body["name"], "vip");
    assert_eq!(api.patch(&path, &json!({"tag": {"name": "Premium"}})).await.expect(200).body["name"], "Premium");
    create(&api, "VIP").await;
    api.post("/v1/tags", &json!({"tag": {"name": "premium"}})).await.expect(422);
}

#[tokio::test]
async fn an_update_that_changes_nothing_keeps_updated_at() {
    let api = Api::start().await;
    let tag = create(&api, "VIP").await;
    let path = format!("/v1/tags/{}", tag["id"]);
    let same = api.patch(&path, &json!({"tag": {"name": "VIP", "color": "info"}})).await.expect(200).body;
    assert_eq!(same, tag);
    let empty = api.patch(&path, &json!({"tag": {}})).await.expect(200).body;
    assert_eq!(empty, tag);
}

#[tokio::test]
async fn delete_answers_204_and_frees_the_name() {
    let api = Api::start().await;
    let tag = create(&api, "Temporária").await;
    let path = format!("/v1/tags/{}", tag["id"]);
    let answer = api.delete(&path).await.expect(204);
    assert!(answer.text.is_empty());
    api.get(&path).await.expect(404);
    api.delete(&path).await.expect(404);
    create(&api, "temporária").await;
}
