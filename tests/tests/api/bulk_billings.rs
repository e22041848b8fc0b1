//! Bulk billings (§2.1, §4.2): `202` at once, then one bulk billing per reached contact (its payer),
//! made by the bulk-expansion worker in chunks, each registering its billet like any billing; the
//! tag stays in use (§4.5) from acceptance on.

use std::collections::BTreeSet;

use billing_api::billings::bulk::{self, CHUNK, MSG_NO_CONTACTS};
use billing_api::jobs::BulkExpansion;
use infra::testing::cpf;
use serde_json::{json, Value};

use crate::billings::{body, setup, Setup};
use crate::support::Api;

async fn tag(api: &Api, name: &str) -> i64 {
    api.post("/v1/tags", &json!({"tag": {"name": name}})).await.expect(201).body["id"].as_i64().unwrap()
}

/// A contact with these tags; `n` makes its name and CPF unique in the test.
async fn contact(api: &Api, n: u64, contact_type: &str, active: bool, tag_ids: &[i64]) -> i64 {
    // Names take letters only: n written in letters.
    let surname: String = format!("{n:03}").bytes().map(|d| char::from(b'a' + (d - b'0'))).collect();
    let sent = json!({"contact": {
        "contact_type": contact_type, "full_name": format!("Cliente Z{surname}"), "cpf": cpf(200_000_000 + n),
        "active": active, "tag_ids": tag_ids,
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    api.post("/v1/contacts", &sent).await.expect(201).body["id"].as_i64().unwrap()
}

fn bulk_body(s: &Setup, tag: i64, excluded: &[i64]) -> Value {
    let mut sent = body(s);
    sent["billing"]["billing_issue_type"] = json!("bulk");
    sent["billing"]["tag_id"] = json!(tag);
    sent["billing"]["excluded_tag_ids"] = json!(excluded);
    sent
}

async fn billings(api: &Api) -> Vec<Value> {
    let answer = api.get("/v1/billings?per_page=100").await.expect(200);
    answer.body["billings"].as_array().unwrap().clone()
}

fn contacts_of(billings: &[Value]) -> BTreeSet<i64> {
    billings.iter().map(|b| b["contact_id"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn a_bulk_billing_reaches_the_active_customers_of_its_tag() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let (target, excluded) = (tag(&api, "Mensalistas").await, tag(&api, "Bolsistas").await);
    let reached = contact(&api, 1, "customer", true, &[target]).await;
    contact(&api, 2, "customer", true, &[target, excluded]).await; // holds an excluded tag
    contact(&api, 3, "customer", false, &[target]).await; // inactive
    contact(&api, 4, "supplier", true, &[target]).await; // supplier
    contact(&api, 5, "customer", true, &[]).await; // without the tag
    let also_reached = contact(&api, 6, "customer", true, &[target]).await;

    let answer = api.post("/v1/billings", &bulk_body(&s, target, &[excluded])).await.expect(202);
    assert_eq!(answer.body, json!({"status": 202, "enqueued": true, "contacts_count": 2}));
    assert_eq!(billings(&api).await.len(), 0, "no billing exists at response time");

    assert_eq!(api.server.expand_bulk().await, 1);
    let made = billings(&api).await;
    assert_eq!(contacts_of(&made), BTreeSet::from([reached, also_reached]));
    for b in &made {
        assert_eq!((b["billing_issue_type"].as_str(), b["status"].as_str()), (Some("bulk"), Some("opened")));
        assert_eq!((b["tag_id"].as_i64(), b["tag"]["name"].as_str()), (Some(target), Some("Mensalistas")));
        assert_eq!((b["amount"].as_str(), b["due_date"].as_str()), (Some("25.00"), Some("2030-03-04")));
        assert_eq!(b["your_code"], "ERP-77");
    }
    // Each registers its billet like any billing.
    assert_eq!(api.server.register_billets().await, 2);
    for b in &made {
        let shown = api.get(&format!("/v1/billings/{}", b["id"])).await.expect(200).body;
        assert_eq!(shown["bank_billets"][0]["status"], "opened", "{shown}");
        assert_eq!(shown["billing_items"].as_array().unwrap().len(), 2);
    }
}

#[tokio::test]
async fn a_message_delivered_twice_creates_nothing_twice() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let target = tag(&api, "Turma A").await;
    contact(&api, 1, "customer", true, &[target]).await;
    contact(&api, 2, "customer", true, &[target]).await;
    let message = |expansion: &str| BulkExpansion {
        account_id: api.account_id,
        expansion_id: expansion.into(),
        billing: bulk_body(&s, target, &[])["billing"].clone(),
        after_contact_id: None,
        requested_at: String::new(),
    };
    let (store, queues) = (&api.server.store, &api.server.queues);
    let first = bulk::expand(store, queues, &message("expansao-1")).await.unwrap();
    assert_eq!((first.created.len(), first.next_after), (2, None));
    let again = bulk::expand(store, queues, &message("expansao-1")).await.unwrap();
    assert!(again.created.is_empty(), "the redelivery finds both billings made");
    assert_eq!(billings(&api).await.len(), 2);
    // The rerun asks again for the registrations it cannot know were sent (a crash may have come
    // before them); the registrar makes one billet per billing all the same.
    assert!(api.server.register_billets().await >= 2);
    for made in billings(&api).await {
        let shown = api.get(&format!("/v1/billings/{}", made["id"])).await.expect(200).body;
        assert_eq!(shown["bank_billets"].as_array().map(Vec::len), Some(1), "{shown}");
    }
    // Another expansion of the same body is another request: it bills again.
    let other = bulk::expand(store, queues, &message("expansao-2")).await.unwrap();
    assert_eq!(other.created.len(), 2);
}

#[tokio::test]
async fn a_rerun_after_a_crash_before_the_postings_lists_every_billing() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let target = tag(&api, "Turma C").await;
    let payer = contact(&api, 7, "customer", true, &[target]).await;
    let message = BulkExpansion {
        account_id: api.account_id,
        expansion_id: "expansao-crash".into(),
        billing: bulk_body(&s, target, &[])["billing"].clone(),
        after_contact_id: None,
        requested_at: String::new(),
    };
    let (store, queues) = (&api.server.store, &api.server.queues);
    let first = bulk::expand(store, queues, &message).await.unwrap();
    assert_eq!(first.created.len(), 1);
    // As if the worker had stopped after the billings' transaction, before their postings.
    let postings = billing_api::billings::postings::items(api.account_id, &first.created[0]);
    let keys = postings.iter().map(|i| (i["pk"].as_s().unwrap().clone(), i["sk"].as_s().unwrap().clone())).collect();
    store.delete_all(keys).await.unwrap();
    let path = format!("/v1/billings?contact_id={payer}");
    assert!(api.get(&path).await.expect(200).body["billings"].as_array().unwrap().is_empty());
    // The redelivery follows the chunk's plan: nothing made again, the billing listed again.
    let again = bulk::expand(store, queues, &message).await.unwrap();
    assert!(again.created.is_empty());
    let listed = api.get(&path).await.expect(200).body;
    assert_eq!(listed["billings"][0]["id"].as_i64(), Some(first.created[0].id.get()), "{listed}");
}

#[tokio::test]
async fn long_tags_are_expanded_chunk_after_chunk() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let target = tag(&api, "Todos").await;
    let count = CHUNK as u64 + 3;
    let mut ids = BTreeSet::new();
    for n in 0..count {
        ids.insert(contact(&api, n, "customer", true, &[target]).await);
    }
    let answer = api.post("/v1/billings", &bulk_body(&s, target, &[])).await.expect(202);
    assert_eq!(answer.body["contacts_count"], count);
    assert_eq!(api.server.expand_bulk().await, 2, "two chunks, the second enqueued by the first");
    let mut made = BTreeSet::new();
    let mut page = 1;
    loop {
        let listed = api.get(&format!("/v1/billings?per_page=25&page={page}")).await.expect(200);
        let rows = listed.body["billings"].as_array().unwrap().clone();
        if rows.is_empty() {
            break;
        }
        made.extend(contacts_of(&rows));
        page += 1;
    }
    assert_eq!(made, ids);
}

#[tokio::test]
async fn a_tag_is_in_use_from_acceptance_and_its_billings_keep_it() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let (target, excluded) = (tag(&api, "Turma B").await, tag(&api, "Isentos").await);
    let payer = contact(&api, 1, "customer", true, &[target]).await;
    api.post("/v1/billings", &bulk_body(&s, target, &[excluded])).await.expect(202);
    // Still expanding: neither tag can be deleted.
    for used in [target, excluded] {
        let answer = api.delete(&format!("/v1/tags/{used}")).await.expect(422);
        assert_eq!(answer.errors(), [billing_api::tags::MSG_IN_USE]);
    }
    assert_eq!(api.server.expand_bulk().await, 1);
    // Expanded: the billing it made keeps the tags in use, and stays a bulk billing of its payer.
    api.delete(&format!("/v1/tags/{target}")).await.expect(422);
    api.delete(&format!("/v1/tags/{excluded}")).await.expect(422);
    let made = billings(&api).await;
    let id = made[0]["id"].as_i64().unwrap();
    // Renaming the tag does not change the billing: it keeps the same tag_id (§4.5).
    api.patch(&format!("/v1/tags/{target}"), &json!({"tag": {"name": "Turma B 2031"}})).await.expect(200);
    let shown = api.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!((shown["tag_id"].as_i64(), shown["contact_id"].as_i64()), (Some(target), Some(payer)));
    assert_eq!(shown["tag"]["name"], "Turma B 2031");
    // An update keeps its payer and tags; the payer cannot be deleted while it exists.
    let change = json!({"billing": {"observation": "Turma da manhã", "tag_id": excluded}});
    let updated = api.patch(&format!("/v1/billings/{id}"), &change).await.expect(200).body;
    assert_eq!(
        (updated["billing_issue_type"].as_str(), updated["tag_id"].as_i64(), updated["contact_id"].as_i64()),
        (Some("bulk"), Some(target), Some(payer))
    );
    assert_eq!(updated["observation"], "Turma da manhã");
    api.delete(&format!("/v1/contacts/{payer}")).await.expect(422);
}

#[tokio::test]
async fn bulk_refusals_are_422_and_enqueue_nothing() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let empty = tag(&api, "Vazia").await;
    contact(&api, 1, "supplier", true, &[empty]).await;
    let answer = api.post("/v1/billings", &bulk_body(&s, empty, &[])).await.expect(422);
    assert_eq!(answer.errors(), [MSG_NO_CONTACTS]);
    // Ids are per account: another account's tag is one this account does not have.
    let theirs = 999;
    let answer = api.post("/v1/billings", &bulk_body(&s, theirs, &[])).await.expect(422);
    assert_eq!(answer.errors(), ["Etiqueta não encontrada"]);
    let mine = tag(&api, "Minha").await;
    contact(&api, 2, "customer", true, &[mine]).await;
    let answer = api.post("/v1/billings", &bulk_body(&s, mine, &[theirs])).await.expect(422);
    assert_eq!(answer.errors(), [format!("Etiquetas excluídas (excluded_tag_ids) não encontradas: {theirs}")]);
    let mut without_tag = body(&s);
    without_tag["billing"]["billing_issue_type"] = json!("bulk");
    without_tag["billing"]["tag_id"] = Value::Null;
    api.post("/v1/billings", &without_tag).await.expect(422);
    assert_eq!(api.server.expand_bulk().await, 0);
}
