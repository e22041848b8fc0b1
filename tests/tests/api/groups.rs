//! §2.5, §4.6 (with §4.1 pagination and §7 error shapes): groups.

use billing_api::groups::{MSG_DESCRIPTION_BLANK, MSG_DESCRIPTION_TAKEN, MSG_DESCRIPTION_TOO_LONG, MSG_TYPE_INVALID};
use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

use super::support::{Answer, Api};

/// Creates a group and answers its representation.
async fn create(api: &Api, contact_type: &str, description: &str) -> Value {
    api.post("/v1/groups", &json!({"group": {"contact_type": contact_type, "description": description}}))
        .await
        .expect(201)
        .body
}

fn path_of(group: &Value) -> String {
    format!("/v1/groups/{}", group["id"])
}

/// `(contact_type, description)` of each group of a list answer, in order.
fn listed(answer: &Answer) -> Vec<(String, String)> {
    answer.body["groups"]
        .as_array()
        .expect("a groups array")
        .iter()
        .map(|g| (g["contact_type"].as_str().unwrap().to_owned(), g["description"].as_str().unwrap().to_owned()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// X-Total-Count, X-Page, X-Per-Page and X-Total-Pages.
fn page_headers(answer: &Answer) -> [String; 4] {
    ["x-total-count", "x-page", "x-per-page", "x-total-pages"].map(|h| answer.header(h).unwrap_or("missing").to_owned())
}

fn refused(errors: &[&str]) -> Value {
    json!({"status": 422, "errors": errors})
}

fn not_found() -> Value {
    json!({"status": 404, "message": "Não encontrado"})
}

/// Five groups of both types, created out of order.
async fn create_five(api: &Api) {
    for (kind, description) in [
        ("suppliers", "Atacadistas"),
        ("customers", "Zona sul"),
        ("customers", "área norte"),
        ("suppliers", "bancos"),
        ("customers", "Centro"),
    ] {
        create(api, kind, description).await;
    }
}

// --- create ---------------------------------------------------------------------------------

#[tokio::test]
async fn create_answers_201_with_exactly_the_spec_fields() {
    let api = Api::start().await;
    let group = create(&api, "customers", " Clientes   mensais ").await;
    let mut keys: Vec<_> = group.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["contact_type", "created_at", "description", "id", "updated_at"]);
    assert!(group["id"].is_i64(), "{group}");
    assert_eq!((&group["contact_type"], &group["description"]), (&json!("customers"), &json!("Clientes mensais")));
    assert!(group["created_at"].is_string() && group["updated_at"].is_string(), "{group}");
    assert_eq!(api.get(&path_of(&group)).await.expect(200).body, group);
}

#[tokio::test]
async fn create_with_a_rails_style_form() {
    let api = Api::start().await;
    let answer = api
        .form(Method::POST, "/v1/groups", "group[contact_type]=suppliers&group%5Bdescription%5D=Fornecedores+locais")
        .await
        .expect(201);
    assert_eq!(
        (&answer.body["contact_type"], &answer.body["description"]),
        (&json!("suppliers"), &json!("Fornecedores locais"))
    );
    assert_eq!(api.get(&path_of(&answer.body)).await.expect(200).body, answer.body);
}

#[tokio::test]
async fn create_ignores_account_id_and_unknown_fields() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let body =
        json!({"group": {"contact_type": "customers", "description": "Meus", "account_id": other.account_id, "x": 1}});
    let group = api.post("/v1/groups", &body).await.expect(201).body;
    assert_eq!(group.get("account_id"), None);
    assert_eq!(api.get(&path_of(&group)).await.expect(200).body, group);
    assert_eq!(other.get(&path_of(&group)).await.expect(404).body, not_found());
}

#[tokio::test]
async fn both_fields_are_required() {
    let api = Api::start().await;
    for group in [json!({}), json!({"contact_type": null, "description": null})] {
        let answer = api.post("/v1/groups", &json!({"group": group})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_TYPE_INVALID, MSG_DESCRIPTION_BLANK]), "{group}");
    }
    let answer = api.post("/v1/groups", &json!({"group": {"description": "Só descrição"}})).await.expect(422);
    assert_eq!(answer.without_details(), refused(&[MSG_TYPE_INVALID]));
    let answer = api.post("/v1/groups", &json!({"group": {"contact_type": "customers"}})).await.expect(422);
    assert_eq!(answer.without_details(), refused(&[MSG_DESCRIPTION_BLANK]));
    assert_eq!(api.get("/v1/groups").await.expect(200).header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn contact_type_must_be_customers_or_suppliers() {
    let api = Api::start().await;
    for kind in ["customer", "supplier", "Customers", "SUPPLIERS", "others", ""] {
        let answer =
            api.post("/v1/groups", &json!({"group": {"contact_type": kind, "description": "x"}})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_TYPE_INVALID]), "{kind:?}");
    }
    assert_eq!(create(&api, "customers", "Clientes").await["contact_type"], "customers");
    assert_eq!(create(&api, "suppliers", "Fornecedores").await["contact_type"], "suppliers");
}

#[tokio::test]
async fn description_is_1_to_255_characters() {
    let api = Api::start().await;
    for description in ["a".to_owned(), "d".repeat(255), "é".repeat(255)] {
        assert_eq!(create(&api, "customers", &description).await["description"], description);
    }
    for description in ["e".repeat(256), "ç".repeat(256)] {
        let answer = api
            .post("/v1/groups", &json!({"group": {"contact_type": "customers", "description": description}}))
            .await
            .expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_DESCRIPTION_TOO_LONG]));
    }
    for description in ["", "   "] {
        let answer = api
            .post("/v1/groups", &json!({"group": {"contact_type": "suppliers", "description": description}}))
            .await
            .expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_DESCRIPTION_BLANK]), "{description:?}");
    }
}

#[tokio::test]
async fn descriptions_are_unique_ignoring_case_across_contact_types() {
    let api = Api::start().await;
    create(&api, "customers", "Mensalistas").await;
    for (kind, description) in [
        ("customers", "mensalistas"),
        ("suppliers", "MENSALISTAS"),
        ("suppliers", " Mensalistas "),
        ("customers", "Mensalistas"),
    ] {
        let answer = api
            .post("/v1/groups", &json!({"group": {"contact_type": kind, "description": description}}))
            .await
            .expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_DESCRIPTION_TAKEN]), "{kind} {description:?}");
    }
    assert_eq!(listed(&api.get("/v1/groups").await.expect(200)), pairs(&[("customers", "Mensalistas")]));
}

#[tokio::test]
async fn the_same_description_in_another_account_is_fine() {
    let api = Api::start().await;
    create(&api, "customers", "Mensalistas").await;
    create(&api.other_account().await, "suppliers", "mensalistas").await;
}

#[tokio::test]
async fn twenty_parallel_creates_of_one_description_give_exactly_one_201() {
    let api = Api::start().await;
    let body = json!({"group": {"contact_type": "customers", "description": "Paralelo"}});
    let answers = join_all((0..20).map(|_| api.post("/v1/groups", &body))).await;
    assert_eq!(answers.iter().filter(|a| a.status == 201).count(), 1);
    for answer in answers.iter().filter(|a| a.status != 201) {
        assert_eq!(answer.status, 422, "{}", answer.text);
        assert_eq!(answer.without_details(), refused(&[MSG_DESCRIPTION_TAKEN]));
    }
    let list = api.get("/v1/groups").await.expect(200);
    assert_eq!(listed(&list), pairs(&[("customers", "Paralelo")]));
    assert_eq!(list.header("x-total-count"), Some("1"));
}

// --- list -----------------------------------------------------------------------------------

#[tokio::test]
async fn list_orders_by_contact_type_then_description_ignoring_case_and_accents() {
    let api = Api::start().await;
    create_five(&api).await;
    let all = api.get("/v1/groups").await.expect(200);
    assert_eq!(
        listed(&all),
        pairs(&[
            ("customers", "área norte"),
            ("customers", "Centro"),
            ("customers", "Zona sul"),
            ("suppliers", "Atacadistas"),
            ("suppliers", "bancos"),
        ])
    );
    assert_eq!(all.body.as_object().unwrap().keys().collect::<Vec<_>>(), ["groups"]);
    assert_eq!(page_headers(&all), ["5", "1", "25", "1"]);
}

#[tokio::test]
async fn the_contact_type_filter_is_exact() {
    let api = Api::start().await;
    create_five(&api).await;
    let suppliers = api.get("/v1/groups?contact_type=suppliers").await.expect(200);
    assert_eq!(listed(&suppliers), pairs(&[("suppliers", "Atacadistas"), ("suppliers", "bancos")]));
    assert_eq!(page_headers(&suppliers), ["2", "1", "25", "1"]);
    let customers = api.get("/v1/groups?contact_type=customers").await.expect(200);
    assert_eq!(
        listed(&customers),
        pairs(&[("customers", "área norte"), ("customers", "Centro"), ("customers", "Zona sul")])
    );
    assert_eq!(customers.header("x-total-count"), Some("3"));
    for unknown in ["customer", "Customers", "supp", "others"] {
        let answer = api.get(&format!("/v1/groups?contact_type={unknown}")).await.expect(200);
        assert_eq!(answer.body, json!({"groups": []}), "{unknown}");
        assert_eq!(page_headers(&answer), ["0", "1", "25", "0"], "{unknown}");
    }
}

#[tokio::test]
async fn search_is_a_case_insensitive_substring_of_the_description() {
    let api = Api::start().await;
    create_five(&api).await;
    let search = api.get("/v1/groups?s=NOR").await.expect(200);
    assert_eq!(listed(&search), pairs(&[("customers", "área norte")]));
    assert_eq!(search.header("x-total-count"), Some("1"));
    let search = api.get("/v1/groups?s=ac").await.expect(200);
    assert_eq!(listed(&search), pairs(&[("suppliers", "Atacadistas")]));
    let search = api.get("/v1/groups?s=n").await.expect(200);
    assert_eq!(
        listed(&search),
        pairs(&[
            ("customers", "área norte"),
            ("customers", "Centro"),
            ("customers", "Zona sul"),
            ("suppliers", "bancos")
        ])
    );
    let none = api.get("/v1/groups?s=xyz").await.expect(200);
    assert_eq!(none.body, json!({"groups": []}));
    assert_eq!(none.header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn filters_combine_with_pagination() {
    let api = Api::start().await;
    create_five(&api).await;
    let page = api.get("/v1/groups?contact_type=customers&s=o&per_page=1&page=2").await.expect(200);
    assert_eq!(listed(&page), pairs(&[("customers", "Centro")]));
    assert_eq!(page_headers(&page), ["3", "2", "1", "3"]);
    let page = api.get("/v1/groups?per_page=2&page=3").await.expect(200);
    assert_eq!(listed(&page), pairs(&[("suppliers", "bancos")]));
    assert_eq!(page_headers(&page), ["5", "3", "2", "3"]);
    let beyond = api.get("/v1/groups?per_page=2&page=4").await.expect(200);
    assert_eq!(beyond.body, json!({"groups": []}));
    assert_eq!(page_headers(&beyond), ["5", "4", "2", "3"]);
}

#[tokio::test]
async fn per_page_and_page_are_clamped() {
    let api = Api::start().await;
    create_five(&api).await;
    for (query, headers) in [
        ("?per_page=500", ["5", "1", "100", "1"]),
        ("?per_page=0", ["5", "1", "25", "1"]),
        ("?per_page=-1", ["5", "1", "25", "1"]),
        ("?per_page=abc", ["5", "1", "25", "1"]),
        ("?page=0", ["5", "1", "25", "1"]),
        ("?page=abc", ["5", "1", "25", "1"]),
    ] {
        let answer = api.get(&format!("/v1/groups{query}")).await.expect(200);
        assert_eq!(page_headers(&answer), headers, "{query}");
        assert_eq!(listed(&answer).len(), 5, "{query}");
    }
}

#[tokio::test]
async fn lists_and_totals_cover_the_callers_account_only() {
    let api = Api::start().await;
    let other = api.other_account().await;
    create_five(&other).await;
    create(&api, "customers", "Meu").await;
    let answer = api.get("/v1/groups").await.expect(200);
    assert_eq!(listed(&answer), pairs(&[("customers", "Meu")]));
    assert_eq!(page_headers(&answer), ["1", "1", "25", "1"]);
    let customers = api.get("/v1/groups?contact_type=customers").await.expect(200);
    assert_eq!(customers.header("x-total-count"), Some("1"));
    let suppliers = api.get("/v1/groups?contact_type=suppliers").await.expect(200);
    assert_eq!(suppliers.header("x-total-count"), Some("0"));
    assert_eq!(api.get("/v1/groups?s=a").await.expect(200).header("x-total-count"), Some("0"));
}

// --- update ---------------------------------------------------------------------------------

#[tokio::test]
async fn patch_keeps_the_omitted_fields() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Mensalistas").await;
    let path = path_of(&group);
    let patched = api.patch(&path, &json!({"group": {"contact_type": "suppliers"}})).await.expect(200).body;
    assert_eq!(
        (&patched["id"], &patched["contact_type"], &patched["description"]),
        (&group["id"], &json!("suppliers"), &json!("Mensalistas"))
    );
    assert_eq!(patched["created_at"], group["created_at"]);
    let patched = api.patch(&path, &json!({"group": {"description": "Anuais"}})).await.expect(200).body;
    assert_eq!((&patched["contact_type"], &patched["description"]), (&json!("suppliers"), &json!("Anuais")));
    assert_eq!(api.get(&path).await.expect(200).body, patched);
}

#[tokio::test]
async fn put_also_updates_and_keeps_the_omitted_fields() {
    let api = Api::start().await;
    let group = create(&api, "suppliers", "Mensalistas").await;
    let path = path_of(&group);
    let put = api.json(Method::PUT, &path, &json!({"group": {"description": "Anuais"}})).await.expect(200).body;
    assert_eq!((&put["contact_type"], &put["description"]), (&json!("suppliers"), &json!("Anuais")));
    let put = api.form(Method::PUT, &path, "group[contact_type]=customers").await.expect(200).body;
    assert_eq!((&put["contact_type"], &put["description"]), (&json!("customers"), &json!("Anuais")));
    assert_eq!(api.get(&path).await.expect(200).body, put);
}

#[tokio::test]
async fn a_changed_contact_type_moves_the_group_between_filtered_lists() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Migrante").await;
    create(&api, "suppliers", "Atacadistas").await;
    api.patch(&path_of(&group), &json!({"group": {"contact_type": "suppliers"}})).await.expect(200);
    let customers = api.get("/v1/groups?contact_type=customers").await.expect(200);
    assert_eq!(customers.body, json!({"groups": []}));
    assert_eq!(customers.header("x-total-count"), Some("0"));
    let suppliers = api.get("/v1/groups?contact_type=suppliers").await.expect(200);
    assert_eq!(listed(&suppliers), pairs(&[("suppliers", "Atacadistas"), ("suppliers", "Migrante")]));
    let all = api.get("/v1/groups").await.expect(200);
    assert_eq!(listed(&all), pairs(&[("suppliers", "Atacadistas"), ("suppliers", "Migrante")]));
    assert_eq!(all.header("x-total-count"), Some("2"));
}

#[tokio::test]
async fn an_update_that_changes_nothing_keeps_updated_at() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Mensalistas").await;
    let path = path_of(&group);
    for body in [
        json!({"group": {}}),
        json!({"group": {"contact_type": "customers"}}),
        json!({"group": {"contact_type": "customers", "description": " Mensalistas "}}),
    ] {
        assert_eq!(api.patch(&path, &body).await.expect(200).body, group, "{body}");
        assert_eq!(api.json(Method::PUT, &path, &body).await.expect(200).body, group, "{body}");
    }
}

#[tokio::test]
async fn invalid_updates_are_refused_and_change_nothing() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Mensalistas").await;
    let path = path_of(&group);
    let cases = [
        (json!({"contact_type": "customer"}), vec![MSG_TYPE_INVALID]),
        (json!({"contact_type": "others", "description": "Novo"}), vec![MSG_TYPE_INVALID]),
        (json!({"contact_type": null}), vec![MSG_TYPE_INVALID]),
        (json!({"description": ""}), vec![MSG_DESCRIPTION_BLANK]),
        (json!({"description": null}), vec![MSG_DESCRIPTION_BLANK]),
        (json!({"description": "f".repeat(256)}), vec![MSG_DESCRIPTION_TOO_LONG]),
        (json!({"contact_type": "", "description": " "}), vec![MSG_TYPE_INVALID, MSG_DESCRIPTION_BLANK]),
    ];
    for (fields, errors) in cases {
        for method in [Method::PATCH, Method::PUT] {
            let answer = api.json(method.clone(), &path, &json!({"group": fields})).await.expect(422);
            assert_eq!(answer.without_details(), refused(&errors), "{method} {fields}");
        }
    }
    assert_eq!(api.get(&path).await.expect(200).body, group);
}

#[tokio::test]
async fn renaming_onto_another_groups_description_is_refused() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Mensalistas").await;
    create(&api, "suppliers", "Fornecedores").await;
    let path = path_of(&group);
    for (method, description) in
        [(Method::PATCH, "fornecedores"), (Method::PUT, "FORNECEDORES"), (Method::PATCH, " Fornecedores ")]
    {
        let body = json!({"group": {"description": description, "contact_type": "suppliers"}});
        let answer = api.json(method.clone(), &path, &body).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_DESCRIPTION_TAKEN]), "{method} {description:?}");
    }
    assert_eq!(api.get(&path).await.expect(200).body, group);
    // A case-only rename of itself is fine; after a real rename the old description is free.
    assert_eq!(
        api.patch(&path, &json!({"group": {"description": "MENSALISTAS"}})).await.expect(200).body["description"],
        "MENSALISTAS"
    );
    api.patch(&path, &json!({"group": {"description": "Anuais"}})).await.expect(200);
    create(&api, "suppliers", "mensalistas").await;
}

// --- delete and tenancy ---------------------------------------------------------------------

#[tokio::test]
async fn delete_answers_204_with_an_empty_body_then_404() {
    let api = Api::start().await;
    let group = create(&api, "customers", "Temporário").await;
    create(&api, "suppliers", "Fica").await;
    let path = path_of(&group);
    let answer = api.delete(&path).await.expect(204);
    assert!(answer.text.is_empty(), "{}", answer.text);
    assert_eq!(api.get(&path).await.expect(404).body, not_found());
    assert_eq!(api.delete(&path).await.expect(404).body, not_found());
    let list = api.get("/v1/groups").await.expect(200);
    assert_eq!(listed(&list), pairs(&[("suppliers", "Fica")]));
    assert_eq!(list.header("x-total-count"), Some("1"));
    create(&api, "suppliers", "temporário").await;
}

#[tokio::test]
async fn another_accounts_group_is_not_found_for_show_patch_put_and_delete() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let theirs = create(&other, "customers", "Deles").await;
    let path = path_of(&theirs);
    let change = json!({"group": {"contact_type": "suppliers", "description": "Meu"}});
    assert_eq!(api.get(&path).await.expect(404).body, not_found());
    assert_eq!(api.patch(&path, &change).await.expect(404).body, not_found());
    assert_eq!(api.json(Method::PUT, &path, &change).await.expect(404).body, not_found());
    assert_eq!(api.delete(&path).await.expect(404).body, not_found());
    assert_eq!(other.get(&path).await.expect(200).body, theirs);
    assert_eq!(listed(&other.get("/v1/groups").await.expect(200)), pairs(&[("customers", "Deles")]));
}

/// `contact_type` becomes a key prefix of the listing index (`customers#GROUP#…`), so a value that
/// carries the separator must not widen the filter.
#[tokio::test]
async fn a_contact_type_filter_carrying_the_index_separator_matches_nothing() {
    let api = Api::start().await;
    create_five(&api).await;
    for unknown in ["customers%23GROUP", "suppliers%23GROUP", "customers%23"] {
        let answer = api.get(&format!("/v1/groups?contact_type={unknown}")).await.expect(200);
        assert_eq!(answer.body, json!({"groups": []}), "{unknown}");
        assert_eq!(answer.header("x-total-count"), Some("0"), "{unknown}");
    }
}
