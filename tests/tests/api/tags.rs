//! §2.4, §4.5 (with §4.1 pagination and §7 error shapes): tags.

use billing_api::tags::{MSG_COLOR_INVALID, MSG_NAME_BLANK, MSG_NAME_TAKEN, MSG_NAME_TOO_LONG};
use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

use super::support::{Answer, Api};

/// Creates a tag with only a name and answers its representation.
async fn create(api: &Api, name: &str) -> Value {
    api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(201).body
}

fn path_of(tag: &Value) -> String {
    format!("/v1/tags/{}", tag["id"])
}

/// The names of a list answer, in order.
fn names(answer: &Answer) -> Vec<String> {
    answer.body["tags"]
        .as_array()
        .expect("a tags array")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// X-Total-Count, X-Page, X-Per-Page and X-Total-Pages.
fn page_headers(answer: &Answer) -> [String; 4] {
    ["x-total-count", "x-page", "x-per-page", "x-total-pages"].map(|h| answer.header(h).unwrap_or("missing").to_owned())
}

fn refused(errors: &[&str]) -> Value {
    json!({"status": 422, "errors": errors})
}

fn sorted(messages: &[&str]) -> Vec<String> {
    let mut messages: Vec<String> = messages.iter().map(|m| m.to_string()).collect();
    messages.sort();
    messages
}

fn not_found() -> Value {
    json!({"status": 404, "message": "Não encontrado"})
}

// --- create ---------------------------------------------------------------------------------

#[tokio::test]
async fn create_answers_201_with_exactly_the_spec_fields_and_the_defaults() {
    let api = Api::start().await;
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "VIP"}})).await.expect(201).body;
    let mut keys: Vec<_> = tag.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["allows_on_account", "color", "created_at", "id", "name", "updated_at"]);
    assert!(tag["id"].is_i64(), "{tag}");
    assert_eq!(
        (&tag["name"], &tag["color"], &tag["allows_on_account"]),
        (&json!("VIP"), &json!("info"), &json!(false))
    );
    assert!(tag["created_at"].is_string() && tag["updated_at"].is_string(), "{tag}");
    assert_eq!(api.get(&path_of(&tag)).await.expect(200).body, tag);
}

#[tokio::test]
async fn create_ignores_account_id_and_unknown_fields() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let body = json!({"tag": {"name": "Clientes", "account_id": other.account_id, "kind": "plan", "foo": 1}, "bar": 2});
    let tag = api.post("/v1/tags", &body).await.expect(201).body;
    assert_eq!(tag.get("account_id"), None);
    assert_eq!(tag.get("foo"), None);
    assert_eq!(api.get(&path_of(&tag)).await.expect(200).body, tag);
    assert_eq!(other.get(&path_of(&tag)).await.expect(404).body, not_found());
    assert_eq!(other.get("/v1/tags").await.expect(200).header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn create_with_a_rails_style_form() {
    let api = Api::start().await;
    let answer = api
        .form(Method::POST, "/v1/tags", "tag%5Bname%5D=Atacado&tag[color]=warning&tag[allows_on_account]=1")
        .await
        .expect(201);
    assert_eq!(
        (&answer.body["name"], &answer.body["color"], &answer.body["allows_on_account"]),
        (&json!("Atacado"), &json!("warning"), &json!(true))
    );
    assert_eq!(api.get(&path_of(&answer.body)).await.expect(200).body, answer.body);
}

#[tokio::test]
async fn every_listed_color_is_accepted() {
    let api = Api::start().await;
    for color in ["default", "info", "primary", "success", "warning", "danger", "purple"] {
        let tag = api.post("/v1/tags", &json!({"tag": {"name": color, "color": color}})).await.expect(201).body;
        assert_eq!(tag["color"], color);
    }
}

#[tokio::test]
async fn an_unknown_color_is_refused() {
    let api = Api::start().await;
    for color in ["pink", "Info", "red"] {
        let answer = api.post("/v1/tags", &json!({"tag": {"name": "VIP", "color": color}})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_COLOR_INVALID]), "{color}");
    }
    assert_eq!(api.get("/v1/tags").await.expect(200).header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn a_blank_missing_or_null_name_is_refused() {
    let api = Api::start().await;
    for tag in [json!({}), json!({"name": null}), json!({"name": ""}), json!({"name": "   "}), json!({"color": "info"})]
    {
        let answer = api.post("/v1/tags", &json!({"tag": tag})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_NAME_BLANK]), "{tag}");
    }
    let answer = api.form(Method::POST, "/v1/tags", "tag[name]=&tag[color]=info").await.expect(422);
    assert_eq!(answer.without_details(), refused(&[MSG_NAME_BLANK]));
}

#[tokio::test]
async fn names_of_40_characters_are_accepted_even_when_multibyte() {
    let api = Api::start().await;
    for name in ["x".repeat(40), "ç".repeat(40), "ã".repeat(39) + "z"] {
        assert_eq!(create(&api, &name).await["name"], name);
    }
}

#[tokio::test]
async fn a_41_character_name_is_too_long() {
    let api = Api::start().await;
    for name in ["y".repeat(41), "é".repeat(41)] {
        let answer = api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_NAME_TOO_LONG]));
    }
}

#[tokio::test]
async fn names_are_stored_trimmed_with_whitespace_collapsed() {
    let api = Api::start().await;
    let tag = create(&api, "  Clientes \t  VIP \n").await;
    assert_eq!(tag["name"], "Clientes VIP");
    assert_eq!(api.get(&path_of(&tag)).await.expect(200).body["name"], "Clientes VIP");
    assert_eq!(names(&api.get("/v1/tags").await.expect(200)), ["Clientes VIP"]);
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
    assert!(errors.contains(&MSG_NAME_BLANK.to_owned()), "{errors:?}");
    assert!(errors.contains(&MSG_COLOR_INVALID.to_owned()), "{errors:?}");
    let answer = api.post("/v1/tags", &json!({"tag": {"name": "z".repeat(41), "color": "pink"}})).await.expect(422);
    let mut errors = answer.errors();
    errors.sort();
    assert_eq!(errors, sorted(&[MSG_NAME_TOO_LONG, MSG_COLOR_INVALID]));
    assert_eq!(api.get("/v1/tags").await.expect(200).header("x-total-count"), Some("0"));
}

// --- uniqueness -----------------------------------------------------------------------------

#[tokio::test]
async fn names_are_unique_in_the_account_ignoring_case_and_spacing() {
    let api = Api::start().await;
    create(&api, "VIP").await;
    for name in ["vip", " Vip ", "VIP", "vIp"] {
        let answer = api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_NAME_TAKEN]), "{name:?}");
    }
    create(&api, "Ação Social").await;
    let answer = api.post("/v1/tags", &json!({"tag": {"name": "AÇÃO  social"}})).await.expect(422);
    assert_eq!(answer.without_details(), refused(&[MSG_NAME_TAKEN]));
    assert_eq!(names(&api.get("/v1/tags").await.expect(200)), ["Ação Social", "VIP"]);
}

#[tokio::test]
async fn the_same_name_in_another_account_is_fine() {
    let api = Api::start().await;
    let other = api.other_account().await;
    create(&api, "VIP").await;
    create(&other, "vip").await;
    create(&other, "Atacado").await;
    create(&api, "Atacado").await;
}

#[tokio::test]
async fn twenty_parallel_creates_of_one_name_give_exactly_one_201() {
    let api = Api::start().await;
    let body = json!({"tag": {"name": "Concorrência"}});
    let answers = join_all((0..20).map(|_| api.post("/v1/tags", &body))).await;
    let created = answers.iter().filter(|a| a.status == 201).count();
    assert_eq!(created, 1, "{:?}", answers.iter().map(|a| &a.text).collect::<Vec<_>>());
    for answer in answers.iter().filter(|a| a.status != 201) {
        assert_eq!(answer.status, 422, "{}", answer.text);
        assert_eq!(answer.without_details(), refused(&[MSG_NAME_TAKEN]));
    }
    let list = api.get("/v1/tags").await.expect(200);
    assert_eq!(names(&list), ["Concorrência"]);
    assert_eq!(list.header("x-total-count"), Some("1"));
}

// --- list -----------------------------------------------------------------------------------

#[tokio::test]
async fn list_orders_by_name_ignoring_case_and_accents() {
    let api = Api::start().await;
    for name in ["banana", "Zebra", "Árvore", "água"] {
        create(&api, name).await;
    }
    let answer = api.get("/v1/tags").await.expect(200);
    assert_eq!(names(&answer), ["água", "Árvore", "banana", "Zebra"]);
    assert_eq!(answer.body.as_object().unwrap().keys().collect::<Vec<_>>(), ["tags"]);
    assert_eq!(page_headers(&answer), ["4", "1", "25", "1"]);
}

#[tokio::test]
async fn search_is_a_case_insensitive_substring_of_the_name() {
    let api = Api::start().await;
    for name in ["banana", "Bananada", "Zebra", "Cabana"] {
        create(&api, name).await;
    }
    assert_eq!(names(&api.get("/v1/tags?s=BANANA").await.expect(200)), ["banana", "Bananada"]);
    let answer = api.get("/v1/tags?s=ana").await.expect(200);
    assert_eq!(names(&answer), ["banana", "Bananada", "Cabana"]);
    assert_eq!(page_headers(&answer), ["3", "1", "25", "1"]);
    let answer = api.get("/v1/tags?s=nad").await.expect(200);
    assert_eq!(names(&answer), ["Bananada"]);
    assert_eq!(answer.header("x-total-count"), Some("1"));
    let none = api.get("/v1/tags?s=xyz").await.expect(200);
    assert!(names(&none).is_empty());
    assert_eq!(page_headers(&none), ["0", "1", "25", "0"]);
    assert_eq!(names(&api.get("/v1/tags?s=").await.expect(200)).len(), 4);
}

#[tokio::test]
async fn pages_follow_the_order_and_carry_the_headers() {
    let api = Api::start().await;
    for i in [3, 0, 6, 1, 5, 2, 4] {
        create(&api, &format!("tag {i}")).await;
    }
    let page = api.get("/v1/tags?page=2&per_page=3").await.expect(200);
    assert_eq!(page_headers(&page), ["7", "2", "3", "3"]);
    assert_eq!(names(&page), ["tag 3", "tag 4", "tag 5"]);
    let last = api.get("/v1/tags?page=3&per_page=3").await.expect(200);
    assert_eq!(page_headers(&last), ["7", "3", "3", "3"]);
    assert_eq!(names(&last), ["tag 6"]);
    let filtered = api.get("/v1/tags?s=tag&per_page=2&page=4").await.expect(200);
    assert_eq!(page_headers(&filtered), ["7", "4", "2", "4"]);
    assert_eq!(names(&filtered), ["tag 6"]);
}

#[tokio::test]
async fn per_page_and_page_are_clamped() {
    let api = Api::start().await;
    for name in ["a", "b", "c"] {
        create(&api, name).await;
    }
    // (query, headers, how many tags the page shows)
    let cases = [
        ("", ["3", "1", "25", "1"], 3),
        ("?per_page=500", ["3", "1", "100", "1"], 3),
        ("?per_page=100", ["3", "1", "100", "1"], 3),
        ("?per_page=101", ["3", "1", "100", "1"], 3),
        ("?per_page=0", ["3", "1", "25", "1"], 3),
        ("?per_page=-1", ["3", "1", "25", "1"], 3),
        ("?per_page=abc", ["3", "1", "25", "1"], 3),
        ("?page=0", ["3", "1", "25", "1"], 3),
        ("?page=-3", ["3", "1", "25", "1"], 3),
        ("?page=abc", ["3", "1", "25", "1"], 3),
        ("?page=abc&per_page=abc", ["3", "1", "25", "1"], 3),
        ("?page=0&per_page=1", ["3", "1", "1", "3"], 1),
    ];
    for (query, headers, shown) in cases {
        let answer = api.get(&format!("/v1/tags{query}")).await.expect(200);
        assert_eq!(page_headers(&answer), headers, "{query}");
        assert_eq!(names(&answer), ["a", "b", "c"][..shown], "{query}");
    }
}

#[tokio::test]
async fn a_page_beyond_the_end_is_an_empty_array_with_the_headers() {
    let api = Api::start().await;
    for name in ["a", "b", "c"] {
        create(&api, name).await;
    }
    for (query, expected) in [("?page=2", ["3", "2", "25", "1"]), ("?page=9&per_page=2", ["3", "9", "2", "2"])] {
        let answer = api.get(&format!("/v1/tags{query}")).await.expect(200);
        assert_eq!(answer.body, json!({"tags": []}), "{query}");
        assert_eq!(page_headers(&answer), expected, "{query}");
    }
}

#[tokio::test]
async fn lists_and_totals_cover_the_callers_account_only() {
    let api = Api::start().await;
    let other = api.other_account().await;
    create(&api, "mine").await;
    for name in ["a", "b", "c", "mine too"] {
        create(&other, name).await;
    }
    let answer = api.get("/v1/tags").await.expect(200);
    assert_eq!(names(&answer), ["mine"]);
    assert_eq!(page_headers(&answer), ["1", "1", "25", "1"]);
    let search = api.get("/v1/tags?s=mine").await.expect(200);
    assert_eq!(names(&search), ["mine"]);
    assert_eq!(search.header("x-total-count"), Some("1"));
    assert_eq!(other.get("/v1/tags").await.expect(200).header("x-total-count"), Some("4"));
}

// --- show, tenancy --------------------------------------------------------------------------

#[tokio::test]
async fn show_answers_the_own_tag() {
    let api = Api::start().await;
    let tag = api
        .post("/v1/tags", &json!({"tag": {"name": "Atacado", "color": "success", "allows_on_account": true}}))
        .await
        .expect(201)
        .body;
    assert_eq!(api.get(&path_of(&tag)).await.expect(200).body, tag);
}

#[tokio::test]
async fn another_accounts_tag_is_not_found_for_show_patch_and_delete() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let theirs = create(&other, "Deles").await;
    let path = path_of(&theirs);
    assert_eq!(api.get(&path).await.expect(404).body, not_found());
    assert_eq!(
        api.patch(&path, &json!({"tag": {"name": "Meu", "color": "danger"}})).await.expect(404).body,
        not_found()
    );
    assert_eq!(api.delete(&path).await.expect(404).body, not_found());
    assert_eq!(other.get(&path).await.expect(200).body, theirs);
    assert_eq!(names(&other.get("/v1/tags").await.expect(200)), ["Deles"]);
    assert_eq!(api.get("/v1/tags").await.expect(200).header("x-total-count"), Some("0"));
}

// --- update ---------------------------------------------------------------------------------

#[tokio::test]
async fn patch_keeps_the_omitted_fields() {
    let api = Api::start().await;
    let tag = api
        .post("/v1/tags", &json!({"tag": {"name": "VIP", "color": "warning", "allows_on_account": true}}))
        .await
        .expect(201)
        .body;
    let path = path_of(&tag);

    let renamed = api.patch(&path, &json!({"tag": {"name": "Premium"}})).await.expect(200).body;
    assert_eq!(
        (&renamed["id"], &renamed["name"], &renamed["color"], &renamed["allows_on_account"]),
        (&tag["id"], &json!("Premium"), &json!("warning"), &json!(true))
    );
    assert_eq!(renamed["created_at"], tag["created_at"]);

    let recolored = api.patch(&path, &json!({"tag": {"color": "danger"}})).await.expect(200).body;
    assert_eq!(
        (&recolored["name"], &recolored["color"], &recolored["allows_on_account"]),
        (&json!("Premium"), &json!("danger"), &json!(true))
    );

    let flag = api.form(Method::PATCH, &path, "tag[allows_on_account]=0").await.expect(200).body;
    assert_eq!(
        (&flag["name"], &flag["color"], &flag["allows_on_account"]),
        (&json!("Premium"), &json!("danger"), &json!(false))
    );
    assert_eq!(api.get(&path).await.expect(200).body, flag);
}

#[tokio::test]
async fn renaming_onto_another_tags_name_is_refused_and_changes_nothing() {
    let api = Api::start().await;
    let vip = create(&api, "VIP").await;
    create(&api, "Atacado").await;
    let path = path_of(&vip);
    for taken in ["Atacado", "ATACADO", " atacado "] {
        let answer = api.patch(&path, &json!({"tag": {"name": taken, "color": "danger"}})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&[MSG_NAME_TAKEN]), "{taken:?}");
    }
    assert_eq!(api.get(&path).await.expect(200).body, vip);
    assert_eq!(names(&api.get("/v1/tags").await.expect(200)), ["Atacado", "VIP"]);
}

#[tokio::test]
async fn a_case_only_rename_of_itself_is_accepted() {
    let api = Api::start().await;
    let tag = create(&api, "VIP").await;
    let path = path_of(&tag);
    assert_eq!(api.patch(&path, &json!({"tag": {"name": "vip"}})).await.expect(200).body["name"], "vip");
    assert_eq!(api.get(&path).await.expect(200).body["name"], "vip");
    // The name stays taken under its new spelling.
    let answer = api.post("/v1/tags", &json!({"tag": {"name": "Vip"}})).await.expect(422);
    assert_eq!(answer.without_details(), refused(&[MSG_NAME_TAKEN]));
}

#[tokio::test]
async fn after_a_rename_the_old_name_is_free_and_the_new_one_taken() {
    let api = Api::start().await;
    let tag = create(&api, "VIP").await;
    let renamed = api.patch(&path_of(&tag), &json!({"tag": {"name": "Premium"}})).await.expect(200).body;
    assert_eq!(renamed["name"], "Premium");
    create(&api, "vip").await;
    let answer = api.post("/v1/tags", &json!({"tag": {"name": "PREMIUM"}})).await.expect(422);
    assert_eq!(answer.without_details(), refused(&[MSG_NAME_TAKEN]));
}

#[tokio::test]
async fn a_patch_that_changes_nothing_answers_200_with_the_same_updated_at() {
    let api = Api::start().await;
    let tag = create(&api, "VIP").await;
    let path = path_of(&tag);
    for body in [
        json!({"tag": {}}),
        json!({"tag": {"name": "VIP"}}),
        json!({"tag": {"name": " VIP ", "color": "info", "allows_on_account": false}}),
        json!({"tag": {"unknown": 1}}),
    ] {
        assert_eq!(api.patch(&path, &body).await.expect(200).body, tag, "{body}");
    }
    assert_eq!(api.get(&path).await.expect(200).body, tag);
}

#[tokio::test]
async fn patch_with_a_blank_or_invalid_value_is_refused_and_changes_nothing() {
    let api = Api::start().await;
    let tag = create(&api, "VIP").await;
    let path = path_of(&tag);
    let cases = [
        (json!({"name": ""}), vec![MSG_NAME_BLANK]),
        (json!({"name": null}), vec![MSG_NAME_BLANK]),
        (json!({"name": "  "}), vec![MSG_NAME_BLANK]),
        (json!({"name": "n".repeat(41)}), vec![MSG_NAME_TOO_LONG]),
        (json!({"name": "Novo", "color": "pink"}), vec![MSG_COLOR_INVALID]),
    ];
    for (fields, errors) in cases {
        let answer = api.patch(&path, &json!({"tag": fields})).await.expect(422);
        assert_eq!(answer.without_details(), refused(&errors), "{fields}");
    }
    assert_eq!(api.get(&path).await.expect(200).body, tag);
}

#[tokio::test]
async fn parallel_renames_of_two_tags_to_one_name_let_exactly_one_through() {
    let api = Api::start().await;
    let first = create(&api, "Primeira").await;
    let second = create(&api, "Segunda").await;
    let body = json!({"tag": {"name": "Disputada"}});
    let (first_path, second_path) = (path_of(&first), path_of(&second));
    let answers = join_all([api.patch(&first_path, &body), api.patch(&second_path, &body)]).await;
    let mut statuses: Vec<_> = answers.iter().map(|a| a.status.as_u16()).collect();
    statuses.sort();
    assert_eq!(statuses, [200, 422]);
    let loser = answers.iter().find(|a| a.status == 422).unwrap();
    assert_eq!(loser.without_details(), refused(&[MSG_NAME_TAKEN]));
    let mut listed = names(&api.get("/v1/tags").await.expect(200));
    listed.sort();
    assert!(listed == ["Disputada", "Segunda"] || listed == ["Disputada", "Primeira"], "{listed:?}");
}

// --- delete ---------------------------------------------------------------------------------

#[tokio::test]
async fn delete_answers_204_with_an_empty_body_and_the_tag_is_gone() {
    let api = Api::start().await;
    let tag = create(&api, "Temporária").await;
    create(&api, "Fica").await;
    let path = path_of(&tag);
    let answer = api.delete(&path).await.expect(204);
    assert!(answer.text.is_empty(), "{}", answer.text);
    assert_eq!(api.get(&path).await.expect(404).body, not_found());
    assert_eq!(api.patch(&path, &json!({"tag": {"color": "danger"}})).await.expect(404).body, not_found());
    let list = api.get("/v1/tags").await.expect(200);
    assert_eq!(names(&list), ["Fica"]);
    assert_eq!(list.header("x-total-count"), Some("1"));
}

#[tokio::test]
async fn deleting_twice_is_404() {
    let api = Api::start().await;
    let path = path_of(&create(&api, "Uma vez").await);
    api.delete(&path).await.expect(204);
    assert_eq!(api.delete(&path).await.expect(404).body, not_found());
}

#[tokio::test]
async fn a_deleted_tags_name_can_be_used_again() {
    let api = Api::start().await;
    let tag = create(&api, "Temporária").await;
    api.delete(&path_of(&tag)).await.expect(204);
    let again = create(&api, "TEMPORÁRIA").await;
    assert_ne!(again["id"], tag["id"]);
    assert_eq!(names(&api.get("/v1/tags").await.expect(200)), ["TEMPORÁRIA"]);
}

#[tokio::test]
async fn a_search_that_stops_at_its_bound_says_so() {
    let api = Api::start().await;
    for n in 1..=5 {
        create(&api, &format!("Alfa {n}")).await;
    }
    // Read whole: no header.
    let answer = api.get("/v1/tags?s=alfa").await.expect(200);
    assert_eq!(answer.header("x-total-count"), Some("5"));
    assert_eq!(answer.header("x-search-partial"), None);
    // The same search stopped after 3 postings: 3 found, and it says it stopped.
    let store = &api.server.store;
    assert_eq!(infra::tampering::tags_named_within(store, api.account_id, "alfa", 3).await, (3, true));
    assert_eq!(infra::tampering::tags_named_within(store, api.account_id, "alfa", 5).await, (5, false));
}
