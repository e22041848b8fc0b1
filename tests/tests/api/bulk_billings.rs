//! Bulk billings (§2.1, §4.2): `202` at once, then one bulk billing per reached contact (its payer),
//! made by the bulk-expansion worker in chunks, each registering its billet like any billing; the
//! tag stays in use (§4.5) from acceptance on.

use std::collections::BTreeSet;

use billing_api::billings::bulk::{self, CHUNK, MSG_NO_CONTACTS};
use billing_api::jobs::BulkExpansion;
use billing_api::values::ContactId;
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

/// The `contacts_count` of a bulk billing on `tag` (without excluded tags: the tag's reach counter;
/// with `excluded`: read from the holders).
async fn counted(api: &Api, s: &Setup, tag: i64, excluded: &[i64]) -> i64 {
    let answer = api.post("/v1/billings", &bulk_body(s, tag, excluded)).await;
    match answer.status.as_u16() {
        422 => 0,
        _ => answer.expect(202).body["contacts_count"].as_i64().unwrap(),
    }
}

#[tokio::test]
async fn the_count_without_excluded_tags_follows_every_write_of_the_tags_holders() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let (target, nobodys) = (tag(&api, "Mensalistas").await, tag(&api, "Ninguém").await);
    let other = tag(&api, "Outra").await;
    let first = contact(&api, 11, "customer", true, &[target]).await;
    let inactive = contact(&api, 12, "customer", false, &[target]).await;
    contact(&api, 13, "supplier", true, &[target]).await;
    let untagged = contact(&api, 14, "customer", true, &[]).await;
    // A tag that reaches more contacts than the target ever does, none of them the target's.
    let elsewhere = tag(&api, "Outros clientes").await;
    for n in 15..18 {
        contact(&api, n, "customer", true, &[elsewhere]).await;
    }
    // The three ways of counting agree after every change: the counter (no excluded tag), the
    // counter less the reached holders of an excluded tag that reaches fewer (nobody), and the
    // tag's holders read one by one (an excluded tag that reaches more).
    let both = |expected: i64| {
        let api = &api;
        let s = &s;
        async move {
            assert_eq!(counted(api, s, target, &[]).await, expected, "the tag's reach counter");
            assert_eq!(counted(api, s, target, &[nobodys]).await, expected, "the counter less the excluded");
            assert_eq!(counted(api, s, target, &[elsewhere]).await, expected, "the holders read");
        }
    };
    both(1).await;
    api.patch(&format!("/v1/contacts/{inactive}"), &json!({"contact": {"active": true}})).await.expect(200);
    both(2).await;
    api.patch(&format!("/v1/contacts/{untagged}"), &json!({"contact": {"tag_ids": [target, other]}})).await.expect(200);
    both(3).await;
    // A change that moves nothing of the count (another tag added), then one that does.
    api.patch(&format!("/v1/contacts/{first}"), &json!({"contact": {"tag_ids": [target, other]}})).await.expect(200);
    both(3).await;
    api.patch(&format!("/v1/contacts/{first}"), &json!({"contact": {"tag_ids": []}})).await.expect(200);
    both(2).await;
    api.patch(&format!("/v1/contacts/{inactive}"), &json!({"contact": {"active": false}})).await.expect(200);
    both(1).await;
    api.delete(&format!("/v1/contacts/{untagged}")).await.expect(204);
    both(0).await;
    // Nobody reached: refused, as before (422).
    let refused = api.post("/v1/billings", &bulk_body(&s, target, &[])).await.expect(422);
    assert!(refused.text.contains(MSG_NO_CONTACTS), "{}", refused.text);
}

#[tokio::test]
async fn a_reach_counter_left_behind_is_counted_again_by_the_ops_command() {
    use billing_api::contacts::counts::reach_added;
    use billing_api::values::TagId;
    let api = Api::start().await;
    let s = setup(&api).await;
    let target = tag(&api, "Mensalistas").await;
    contact(&api, 31, "customer", true, &[target]).await;
    contact(&api, 32, "customer", true, &[target]).await;
    contact(&api, 33, "customer", false, &[target]).await;
    let (store, account, tag_id) = (&api.server.store, api.account_id, TagId::new(target));
    // Contacts written around the service left the counter 5 too high.
    store.write(vec![reach_added(account, tag_id, ContactId::new(1), 5)]).await.unwrap();
    assert_eq!(counted(&api, &s, target, &[]).await, 7);
    let fixed = infra::ops::recount_reach(store, account, tag_id).await.unwrap();
    assert_eq!(fixed, json!({"tag_id": target, "reach_was": 7, "reach": 2}));
    assert_eq!(counted(&api, &s, target, &[]).await, 2);
    // Below zero too (a 422 meanwhile: nobody reached); a second run finds nothing to move.
    store.write(vec![reach_added(account, tag_id, ContactId::new(2), -9)]).await.unwrap();
    assert_eq!(counted(&api, &s, target, &[]).await, 0);
    let fixed = infra::ops::recount_reach(store, account, tag_id).await.unwrap();
    assert_eq!(fixed, json!({"tag_id": target, "reach_was": -7, "reach": 2}));
    let again = infra::ops::recount_reach(store, account, tag_id).await.unwrap();
    assert_eq!(again, json!({"tag_id": target, "reach_was": 2, "reach": 2}));
    assert_eq!(counted(&api, &s, target, &[]).await, 2);
}

#[tokio::test]
async fn a_contacts_tags_all_replaced_at_once_are_refused_whole_not_half_written() {
    let api = Api::start().await;
    let mut tags = Vec::new();
    for n in 0..2 * billing_api::contacts::input::MAX_TAGS {
        tags.push(tag(&api, &format!("Etiqueta {n}")).await);
    }
    let (old, new) = tags.split_at(billing_api::contacts::input::MAX_TAGS);
    let id = contact(&api, 21, "customer", true, old).await;
    let path = format!("/v1/contacts/{id}");
    // Every tag's link, posting and count move: more than one transaction holds.
    let refused = api.patch(&path, &json!({"contact": {"tag_ids": new}})).await.expect(422);
    assert!(refused.text.contains(billing_api::editing::MSG_TOO_MANY_CHANGES), "{}", refused.text);
    let shown = api.get(&path).await.expect(200).body;
    let kept: Vec<i64> = shown["tags"].as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect();
    assert_eq!(kept, old, "nothing written");
    // In parts it goes through.
    let half = [&old[..20], &new[..20]].concat();
    api.patch(&path, &json!({"contact": {"tag_ids": half}})).await.expect(200);
    api.patch(&path, &json!({"contact": {"tag_ids": new}})).await.expect(200);
    let listed = api.get(&format!("/v1/contacts?tag_id={}", new[39])).await.expect(200).body;
    assert_eq!(listed["contacts"][0]["id"].as_i64(), Some(id));
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

/// The first chunk's message of the account's latest bulk create: the task it wrote, read without
/// handing it on.
async fn first_message(api: &Api) -> BulkExpansion {
    let mut found = None;
    for task in infra::tampering::pending_tasks(&api.server.store, api.account_id).await {
        if task.queue == "bulk_expansion" {
            found = Some(billing_api::jobs::parse::<BulkExpansion>(&task.messages[0]).unwrap());
        }
    }
    found.expect("the bulk create's task")
}

#[tokio::test]
async fn a_message_delivered_twice_creates_nothing_twice() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let target = tag(&api, "Turma A").await;
    let first_contact = contact(&api, 1, "customer", true, &[target]).await;
    contact(&api, 2, "customer", true, &[target]).await;
    api.post("/v1/billings", &bulk_body(&s, target, &[])).await.expect(202);
    let message = first_message(&api).await;
    assert_eq!((message.after_contact_id, message.billing.as_ref()), (None, None), "the body stays in the table");
    let store = &api.server.store;
    let first = bulk::expand(store, &message).await.unwrap();
    assert_eq!((first.created.len(), first.next_after), (2, None));
    let again = bulk::expand(store, &message).await.unwrap();
    assert!(again.created.is_empty() && again.skipped.is_some(), "the copy finds the expansion over: {again:?}");
    // A message written by hand to start after the first contact is no chunk of the expansion.
    let elsewhere = BulkExpansion { after_contact_id: Some(ContactId::new(first_contact)), ..message.clone() };
    assert!(bulk::expand(store, &elsewhere).await.unwrap().created.is_empty());
    assert_eq!(billings(&api).await.len(), 2);
    // One registration each, asked for once.
    assert_eq!(api.server.register_billets().await, 2);
    for made in billings(&api).await {
        let shown = api.get(&format!("/v1/billings/{}", made["id"])).await.expect(200).body;
        assert_eq!(shown["bank_billets"].as_array().map(Vec::len), Some(1), "{shown}");
    }
    // Another bulk create of the same body is another request: it bills again.
    api.post("/v1/billings", &bulk_body(&s, target, &[])).await.expect(202);
    api.server.expand_bulk().await;
    assert_eq!(billings(&api).await.len(), 4);
}

#[tokio::test]
async fn copies_of_a_message_running_at_once_bill_each_contact_once() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let target = tag(&api, "Turma C").await;
    let mut ids = BTreeSet::new();
    for n in 0..(CHUNK as u64 + 5) {
        ids.insert(contact(&api, n, "customer", true, &[target]).await);
    }
    api.post("/v1/billings", &bulk_body(&s, target, &[])).await.expect(202);
    let message = first_message(&api).await;
    let store = &api.server.store;
    // Three copies of the first chunk's message at once: one plan, each contact billed once, one
    // of them moves the cursor and records the next chunk.
    let (a, b, c) =
        tokio::join!(bulk::expand(store, &message), bulk::expand(store, &message), bulk::expand(store, &message));
    let made: usize = [a, b, c].into_iter().map(|done| done.unwrap().created.len()).sum();
    assert_eq!(made, CHUNK);
    // The rest through the queue (the copies' tasks included): nothing doubled.
    api.server.expand_bulk().await;
    let listed = api.get("/v1/billings?per_page=100").await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some(&*ids.len().to_string()));
    assert_eq!(contacts_of(listed.body["billings"].as_array().unwrap()), ids);
    assert_eq!(api.server.register_billets().await, ids.len(), "one registration per billing");
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
