//! §2.3, §2.4 (tag assignment, on-account rule) and §4.4: contacts.

use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

use super::support::{Answer, Api};

const CPF: &str = "529.982.247-25";
const CPF_DIGITS: &str = "52998224725";
const OTHER_CPF: &str = "111.444.777-35";

fn person(name: &str, cpf: &str) -> Value {
    json!({
        "full_name": name, "cpf": cpf, "email": "Pessoa.Teste@Example.com",
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "sp"
    })
}

fn company(name: &str, cnpj: &str) -> Value {
    json!({
        "legal_entity": true, "company_name": name, "cnpj": cnpj,
        "address_postal_code": "20040-002", "address_street": "Rua da Assembleia", "address_number": "10",
        "address_district": "Centro", "address_city": "Rio de Janeiro", "address_state": "RJ"
    })
}

async fn create(api: &Api, contact: Value) -> Value {
    api.post("/v1/contacts", &json!({"contact": contact})).await.expect(201).body
}

async fn tag(api: &Api, name: &str, allows: bool) -> i64 {
    let body = json!({"tag": {"name": name, "allows_on_account": allows}});
    api.post("/v1/tags", &body).await.expect(201).body["id"].as_i64().unwrap()
}

fn ids(answer: &Answer) -> Vec<i64> {
    answer.body["contacts"].as_array().unwrap().iter().map(|c| c["id"].as_i64().unwrap()).collect()
}

fn tag_ids(contact: &Value) -> Vec<i64> {
    contact["tags"].as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn an_individual_is_created_normalized_with_every_field() {
    let api = Api::start().await;
    let mut body = person("  Maria   da Silva ", CPF);
    body["cell_phone_area"] = json!("11");
    body["cell_phone_number"] = json!("98765-4321");
    body["birth_date"] = json!("1990-05-17");
    body["account_id"] = json!(999);
    body["unknown"] = json!("x");
    let c = create(&api, body).await;
    assert_eq!(c["full_name"], "Maria da Silva");
    assert_eq!(c["cpf"], CPF_DIGITS);
    assert_eq!(c["cnpj"], Value::Null);
    assert_eq!(c["email"], "pessoa.teste@example.com");
    assert_eq!(c["address_state"], "SP");
    assert_eq!(c["cell_phone_number"], "987654321");
    assert_eq!(c["description"], "Maria da Silva");
    assert_eq!(c["document"], CPF_DIGITS);
    assert_eq!(
        (c["contact_type"].as_str(), c["active"].as_bool(), c["legal_entity"].as_bool()),
        (Some("customer"), Some(true), Some(false))
    );
    assert_eq!(c["tags"], json!([]));
    assert_eq!(c["on_account_allowed"], true);
    assert_eq!(c["birth_date"], "1990-05-17");
    for key in
        ["group_id", "code", "trademark", "company_name", "observation", "business_phone_area", "address_complement"]
    {
        assert!(c.get(key).is_some_and(Value::is_null), "{key} should be present and null");
    }
    assert_eq!(api.get(&format!("/v1/contacts/{}", c["id"])).await.expect(200).body, c);
}

#[tokio::test]
async fn a_company_with_the_official_alphanumeric_cnpj() {
    let api = Api::start().await;
    let c = create(&api, company("Exemplo  Comércio Ltda", "12.abc.345/01de-35")).await;
    assert_eq!(c["cnpj"], "12ABC34501DE35");
    assert_eq!(c["document"], "12ABC34501DE35");
    assert_eq!(c["description"], "Exemplo Comércio Ltda");
    assert_eq!(c["cpf"], Value::Null);
}

#[tokio::test]
async fn validation_reports_every_broken_rule_and_saves_nothing() {
    let api = Api::start().await;
    let answer = api.post("/v1/contacts", &json!({"contact": {"email": "not-an-email"}})).await.expect(422);
    let errors = answer.errors();
    for expected in [
        "CPF não pode ficar em branco",
        "Nome completo não pode ficar em branco",
        "CEP não pode ficar em branco",
        "E-mail não é válido",
    ] {
        assert!(errors.contains(&expected.to_owned()), "{expected} missing from {errors:?}");
    }
    let mut bad = person("Maria", "529.982.247-24");
    bad["birth_date"] = json!("2015-01-01");
    bad["address_postal_code"] = json!("123");
    let errors = api.post("/v1/contacts", &json!({"contact": bad})).await.expect(422).errors();
    assert_eq!(errors.len(), 4, "{errors:?}");
    let answer =
        api.post("/v1/contacts", &json!({"contact": company("X Ltda", "12.ABC.345/01DE-36")})).await.expect(422);
    assert_eq!(answer.errors(), ["CNPJ não é válido"]);
    let answer =
        api.post("/v1/contacts", &json!({"contact": person("Maria da Silva", "000.000.000-00")})).await.expect(422);
    assert_eq!(answer.errors(), ["CPF não é válido"]);
    assert_eq!(api.get("/v1/contacts").await.expect(200).header("x-total-count"), Some("0"));
}

#[tokio::test]
async fn names_with_accents_particles_apostrophes_and_hyphens() {
    let api = Api::start().await;
    let cpfs = ["529.982.247-25", "111.444.777-35", "123.456.789-09", "935.411.347-80"];
    for (name, cpf) in ["José dos Santos", "Ana-Maria D'Ávila", "João P. Souza", "Zoë Éloá de Araújo"].iter().zip(cpfs)
    {
        let c = create(&api, person(name, cpf)).await;
        assert_eq!(c["full_name"], *name);
    }
}

#[tokio::test]
async fn the_document_is_unique_per_account_and_type() {
    let api = Api::start().await;
    create(&api, person("Maria da Silva", CPF)).await;
    let answer = api.post("/v1/contacts", &json!({"contact": person("Maria Souza", CPF_DIGITS)})).await.expect(422);
    assert_eq!(answer.errors(), ["CPF já está em uso para este tipo de contato"]);
    let mut supplier = person("Maria da Silva", CPF);
    supplier["contact_type"] = json!("supplier");
    create(&api, supplier).await;
    create(&api.other_account().await, person("Maria da Silva", CPF)).await;
}

#[tokio::test]
async fn twenty_parallel_creates_of_one_cpf_give_exactly_one_201() {
    let api = Api::start().await;
    let body = json!({"contact": person("Maria da Silva", CPF)});
    let answers = join_all((0..20).map(|_| api.post("/v1/contacts", &body))).await;
    assert_eq!(answers.iter().filter(|a| a.status == 201).count(), 1);
    assert!(
        answers.iter().filter(|a| a.status != 201).all(|a| a.status == 422),
        "{:?}",
        answers.iter().map(|a| &a.text).collect::<Vec<_>>()
    );
    assert_eq!(api.get("/v1/contacts").await.expect(200).header("x-total-count"), Some("1"));
}

#[tokio::test]
async fn patch_keeps_omitted_fields_and_validates_the_whole_contact() {
    let api = Api::start().await;
    let c = create(&api, person("Maria da Silva", CPF)).await;
    let path = format!("/v1/contacts/{}", c["id"]);
    let updated =
        api.patch(&path, &json!({"contact": {"email": "MARIA@EXEMPLO.COM.BR", "code": "C-1"}})).await.expect(200).body;
    assert_eq!(
        (updated["email"].as_str(), updated["code"].as_str(), updated["full_name"].as_str()),
        (Some("maria@exemplo.com.br"), Some("C-1"), Some("Maria da Silva"))
    );
    // Turning it into a company needs the company's fields.
    let answer = api.patch(&path, &json!({"contact": {"legal_entity": true}})).await.expect(422);
    assert!(answer.errors().contains(&"CNPJ não pode ficar em branco".to_owned()));
    api.patch(&path, &json!({"contact": {"address_city": ""}})).await.expect(422);
    assert_eq!(api.get(&path).await.expect(200).body, updated);
    let unchanged = api.patch(&path, &json!({"contact": {"email": "maria@exemplo.com.br"}})).await.expect(200).body;
    assert_eq!(unchanged["updated_at"], updated["updated_at"]);
}

#[tokio::test]
async fn tag_ids_replace_the_set_and_unknown_ids_save_nothing() {
    let api = Api::start().await;
    let (a, b, c) = (tag(&api, "A", false).await, tag(&api, "B", false).await, tag(&api, "C", false).await);
    // Ids are per account: the other account's fifth tag has an id this account does not have.
    let other = api.other_account().await;
    let mut foreign = 0;
    for name in ["1", "2", "3", "4", "5"] {
        foreign = tag(&other, name, false).await;
    }
    let mut body = person("Maria da Silva", CPF);
    body["tag_ids"] = json!([a, b, "x"]);
    let contact = create(&api, body).await;
    assert_eq!(tag_ids(&contact), [a, b]);
    assert_eq!(contact["tags"][0], json!({"id": a, "name": "A", "color": "info"}));
    let path = format!("/v1/contacts/{}", contact["id"]);

    // Omitted keeps; a list replaces.
    let kept = api.patch(&path, &json!({"contact": {"observation": "VIP"}})).await.expect(200).body;
    assert_eq!(tag_ids(&kept), [a, b]);
    let replaced = api.patch(&path, &json!({"contact": {"tag_ids": [c, b]}})).await.expect(200).body;
    assert_eq!(tag_ids(&replaced), [c, b]);

    // An unknown or foreign id fails everything, other fields included.
    for bad in [json!([a, 999_999]), json!([foreign])] {
        let answer =
            api.patch(&path, &json!({"contact": {"observation": "changed", "tag_ids": bad}})).await.expect(422);
        assert!(answer.errors()[0].starts_with("Etiquetas não encontradas"), "{}", answer.text);
        let now = api.get(&path).await.expect(200).body;
        assert_eq!((tag_ids(&now), now["observation"].as_str()), (vec![c, b], Some("VIP")));
    }

    // JSON [] and null remove all.
    assert_eq!(
        tag_ids(&api.patch(&path, &json!({"contact": {"tag_ids": []}})).await.expect(200).body),
        Vec::<i64>::new()
    );
    api.patch(&path, &json!({"contact": {"tag_ids": [a]}})).await.expect(200);
    assert_eq!(
        tag_ids(&api.patch(&path, &json!({"contact": {"tag_ids": null}})).await.expect(200).body),
        Vec::<i64>::new()
    );
}

#[tokio::test]
async fn form_posts_with_nested_keys_and_the_empty_tag_marker() {
    let api = Api::start().await;
    let a = tag(&api, "A", false).await;
    let form = format!(
        "contact[full_name]=Maria+da+Silva&contact[cpf]=529.982.247-25&contact[address_postal_code]=01310100\
         &contact[address_street]=Avenida+Paulista&contact[address_number]=1000&contact[address_district]=Bela+Vista\
         &contact[address_city]=S%C3%A3o+Paulo&contact[address_state]=SP&contact[active]=1&contact[tag_ids][]={a}"
    );
    let created = api.form(Method::POST, "/v1/contacts", &form).await.expect(201).body;
    assert_eq!(tag_ids(&created), [a]);
    assert_eq!(created["address_postal_code"], "01310-100");
    let path = format!("/v1/contacts/{}", created["id"]);
    let cleared = api.form(Method::PATCH, &path, "contact[tag_ids][]=").await.expect(200).body;
    assert_eq!(tag_ids(&cleared), Vec::<i64>::new());
}

#[tokio::test]
async fn the_on_account_rule_follows_the_marked_tags() {
    let api = Api::start().await;
    let plain = tag(&api, "Comum", false).await;
    let mut holder = person("Maria da Silva", CPF);
    holder["tag_ids"] = json!([plain]);
    let holder = create(&api, holder).await;
    let other = create(&api, person("João Souza", OTHER_CPF)).await;
    let allowed = |c: &Value| c["on_account_allowed"].as_bool().unwrap();
    assert!(allowed(&holder) && allowed(&other), "rule 1: no marked tag, everyone");

    // Marking the first tag applies to everyone at once.
    api.patch(&format!("/v1/tags/{plain}"), &json!({"tag": {"allows_on_account": true}})).await.expect(200);
    let holder_path = format!("/v1/contacts/{}", holder["id"]);
    let other_path = format!("/v1/contacts/{}", other["id"]);
    assert!(allowed(&api.get(&holder_path).await.expect(200).body));
    assert!(!allowed(&api.get(&other_path).await.expect(200).body));
    let list = api.get("/v1/contacts").await.expect(200).body;
    let flags: Vec<bool> = list["contacts"].as_array().unwrap().iter().map(allowed).collect();
    assert_eq!(flags, [false, true], "João Souza then Maria da Silva");

    // Unmarking (or deleting) the only marked tag opens it to everyone again.
    api.delete(&format!("/v1/tags/{plain}")).await.expect(204);
    assert!(allowed(&api.get(&other_path).await.expect(200).body));
}

#[tokio::test]
async fn groups_of_the_account_only_and_released_on_group_delete() {
    let api = Api::start().await;
    let group = api
        .post("/v1/groups", &json!({"group": {"contact_type": "customers", "description": "Mensal"}}))
        .await
        .expect(201)
        .body["id"]
        .as_i64()
        .unwrap();
    // Ids are per account: the other account's second group has an id this account does not have.
    let other = api.other_account().await;
    let mut theirs = 0;
    for description in ["Deles", "Deles 2"] {
        let body = json!({"group": {"contact_type": "customers", "description": description}});
        theirs = other.post("/v1/groups", &body).await.expect(201).body["id"].as_i64().unwrap();
    }
    let mut body = person("Maria da Silva", CPF);
    body["group_id"] = json!(theirs);
    let answer = api.post("/v1/contacts", &json!({"contact": body.clone()})).await.expect(422);
    assert_eq!(answer.errors(), ["Grupo não encontrado"]);
    body["group_id"] = json!(group);
    let contact = create(&api, body).await;
    assert_eq!(contact["group_id"], group);

    api.delete(&format!("/v1/groups/{group}")).await.expect(204);
    // At once, before the cascade has run: no reader shows the group.
    let after = api.get(&format!("/v1/contacts/{}", contact["id"])).await.expect(200).body;
    assert_eq!(after["group_id"], Value::Null);
    assert_eq!(after["updated_at"], contact["updated_at"]);
    assert!(ids(&api.get(&format!("/v1/contacts?group_id={group}")).await.expect(200)).is_empty());
    // The cascade clears the stored contact, once; a second run finds nothing.
    assert_eq!(api.server.cascade().await, 1);
    let id = billing_api::values::ContactId::new(contact["id"].as_i64().unwrap());
    let stored = infra::tampering::stored_contact(&api.server.store, api.account_id, id).await;
    assert_eq!(stored.group_id, None);
    assert_eq!(api.server.cascade().await, 0);
    let after = api.get(&format!("/v1/contacts/{}", contact["id"])).await.expect(200).body;
    assert_eq!(after["updated_at"], contact["updated_at"]);
}

#[tokio::test]
async fn deleting_a_tag_removes_its_links_and_leaves_the_contacts() {
    let api = Api::start().await;
    let (a, b) = (tag(&api, "A", false).await, tag(&api, "B", false).await);
    let mut body = person("Maria da Silva", CPF);
    body["tag_ids"] = json!([a, b]);
    let contact = create(&api, body).await;
    api.delete(&format!("/v1/tags/{a}")).await.expect(204);
    let after = api.get(&format!("/v1/contacts/{}", contact["id"])).await.expect(200).body;
    assert_eq!(tag_ids(&after), [b]);
    assert_eq!(after["updated_at"], contact["updated_at"]);
    assert!(ids(&api.get(&format!("/v1/contacts?tag_id={a}")).await.expect(200)).is_empty());
    // The cascade takes the tag out of the stored contact; the view and its order stay.
    assert_eq!(api.server.cascade().await, 1);
    let id = billing_api::values::ContactId::new(contact["id"].as_i64().unwrap());
    let stored = infra::tampering::stored_contact(&api.server.store, api.account_id, id).await;
    assert_eq!(stored.tag_ids, vec![billing_api::values::TagId::new(b)]);
    let after = api.get(&format!("/v1/contacts/{}", contact["id"])).await.expect(200).body;
    assert_eq!((tag_ids(&after), &after["updated_at"]), (vec![b], &contact["updated_at"]));
}

#[tokio::test]
async fn a_tag_on_many_contacts_is_deleted_at_once_and_cleared_in_chunks() {
    let api = Api::start().await;
    let (doomed, kept) = (tag(&api, "Doomed", false).await, tag(&api, "Kept", false).await);
    let holders = billing_api::contacts::cascade::CHUNK + 20;
    let made = join_all((0..holders).map(|n| {
        let api = &api;
        async move {
            // Names are letters only: the number spelled in them.
            let letters: String = format!("{n:03}").bytes().map(|d| char::from(b'a' + d - b'0')).collect();
            let mut body = person(&format!("Maria Ab{letters}"), &infra::testing::cpf(300_000_000 + n as u64));
            body["tag_ids"] = json!([doomed, kept]);
            create(api, body).await["id"].as_i64().unwrap()
        }
    }))
    .await;
    api.delete(&format!("/v1/tags/{doomed}")).await.expect(204);
    assert!(ids(&api.get(&format!("/v1/contacts?tag_id={doomed}")).await.expect(200)).is_empty());
    // Two messages: the first chunk, then the rest.
    assert_eq!(api.server.cascade().await, 2);
    for id in [made[0], made[holders - 1]] {
        let id = billing_api::values::ContactId::new(id);
        let stored = infra::tampering::stored_contact(&api.server.store, api.account_id, id).await;
        assert_eq!(stored.tag_ids, vec![billing_api::values::TagId::new(kept)]);
    }
    let listed = api.get(&format!("/v1/contacts?tag_id={kept}&per_page=1")).await.expect(200);
    assert_eq!(listed.header("x-total-count"), Some(holders.to_string().as_str()));
}

#[tokio::test]
async fn list_filters_and_order() {
    let api = Api::start().await;
    let group = api
        .post("/v1/groups", &json!({"group": {"contact_type": "customers", "description": "G"}}))
        .await
        .expect(201)
        .body["id"]
        .as_i64()
        .unwrap();
    let t = tag(&api, "T", false).await;
    let mut zeca = person("Zeca Pagodinho", CPF);
    zeca["code"] = json!("Z1");
    zeca["email"] = json!("zeca@samba.com");
    zeca["tag_ids"] = json!([t]);
    let zeca = create(&api, zeca).await["id"].as_i64().unwrap();
    let mut alvaro = person("Álvaro de Campos", OTHER_CPF);
    alvaro["group_id"] = json!(group);
    alvaro["active"] = json!(false);
    alvaro["email"] = json!("alvaro@poesia.pt");
    let alvaro = create(&api, alvaro).await["id"].as_i64().unwrap();
    let mut supplier = company("Beta Fornecedora Ltda", "11.222.333/0001-81");
    supplier["contact_type"] = json!("supplier");
    let beta = create(&api, supplier).await["id"].as_i64().unwrap();

    let get = |q: &str| {
        let api = &api;
        let q = q.to_owned();
        async move { ids(&api.get(&format!("/v1/contacts{q}")).await.expect(200)) }
    };
    assert_eq!(get("").await, [alvaro, beta, zeca]);
    assert_eq!(get("?contact_type=customer").await, [alvaro, zeca]);
    assert_eq!(get("?contact_type=supplier").await, [beta]);
    assert!(get("?contact_type=customers").await.is_empty());
    assert!(get("?contact_type=customer%23CONTACT").await.is_empty(), "the index separator cannot widen the filter");
    assert_eq!(get(&format!("?group_id={group}")).await, [alvaro]);
    assert_eq!(get("?group_id=0").await, [beta, zeca]);
    assert_eq!(get(&format!("?tag_id={t}")).await, [zeca]);
    assert_eq!(get("?active=false").await, [alvaro]);
    assert_eq!(get("?active=true").await, [beta, zeca]);
    assert_eq!(get("?s=PAGO").await, [zeca]);
    assert_eq!(get("?filter=contact&s=campos").await, [alvaro]);
    assert_eq!(get("?filter=document&s=529.982").await, [zeca]);
    assert_eq!(get("?filter=document&s=0001-81").await, [beta]);
    assert!(get("?filter=document&s=abc").await.is_empty());
    assert_eq!(get("?filter=email&s=ALVARO@").await, [alvaro]);
    assert!(get("?filter=email&s=poesia").await.is_empty());
    assert_eq!(get("?filter=code&s=Z1").await, [zeca]);
    assert!(get("?filter=code&s=Z").await.is_empty());
    let page = api.get("/v1/contacts?per_page=2&page=2").await.expect(200);
    assert_eq!(ids(&page), [zeca]);
    assert_eq!(
        ["x-total-count", "x-page", "x-per-page", "x-total-pages"].map(|h| page.header(h).unwrap().to_owned()),
        ["3", "2", "2", "2"]
    );
    // Totals count the caller's account only.
    create(&api.other_account().await, person("Maria da Silva", CPF)).await;
    assert_eq!(api.get("/v1/contacts").await.expect(200).header("x-total-count"), Some("3"));
}

#[tokio::test]
async fn delete_and_foreign_contacts() {
    let api = Api::start().await;
    let other = api.other_account().await;
    let theirs = create(&other, person("Maria da Silva", CPF)).await;
    let path = format!("/v1/contacts/{}", theirs["id"]);
    api.get(&path).await.expect(404);
    api.patch(&path, &json!({"contact": {"code": "x"}})).await.expect(404);
    api.delete(&path).await.expect(404);
    let answer = other.delete(&path).await.expect(204);
    assert!(answer.text.is_empty());
    other.get(&path).await.expect(404);
    // The document is free again.
    create(&other, person("Maria da Silva", CPF)).await;
}

/// Surnames in alphabetical order.
const NATO: [&str; 8] = ["Alfa", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"];

#[tokio::test]
async fn a_list_by_one_group_tag_or_activity_counts_its_total_and_reads_its_page() {
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let group_body = json!({"group": {"contact_type": "customers", "description": "Turma A"}});
    let group = api.post("/v1/groups", &group_body).await.expect(201).body["id"].as_i64().unwrap();
    let t = tag(&api, "Bolsa", false).await;
    let mut customers = Vec::new();
    for n in 0..8u64 {
        let mut body = person(&format!("Cliente {}", NATO[n as usize]), &infra::testing::cpf(300_000_000 + n));
        if n % 2 == 0 {
            body["group_id"] = json!(group);
            body["tag_ids"] = json!([t]);
        }
        body["active"] = json!(n != 5);
        customers.push(create(&api, body).await["id"].as_i64().unwrap());
    }
    let mut supplier = company("Beta Fornecedora Ltda", "11.222.333/0001-81");
    supplier["contact_type"] = json!("supplier");
    supplier["tag_ids"] = json!([t]);
    let beta = create(&api, supplier).await["id"].as_i64().unwrap();
    let listed = |q: String| {
        let api = &api;
        async move {
            let answer = api.get(&format!("/v1/contacts?{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        }
    };
    let c = |n: usize| customers[n];
    assert_eq!(listed(format!("group_id={group}")).await, (4, vec![c(0), c(2), c(4), c(6)]));
    assert_eq!(listed("group_id=0".to_owned()).await, (5, vec![beta, c(1), c(3), c(5), c(7)]));
    assert_eq!(listed(format!("tag_id={t}")).await, (5, vec![beta, c(0), c(2), c(4), c(6)]));
    assert_eq!(listed(format!("tag_id={t}&contact_type=customer")).await, (4, vec![c(0), c(2), c(4), c(6)]));
    assert_eq!(listed("active=false".to_owned()).await, (1, vec![c(5)]));
    assert_eq!(listed("active=true&contact_type=customer&per_page=2&page=4".to_owned()).await, (7, vec![c(7)]));
    // Each change moves the counts with the postings, in its transaction.
    let changed = json!({"contact": {"group_id": null, "tag_ids": [], "active": false}});
    api.patch(&format!("/v1/contacts/{}", c(0)), &changed).await.expect(200);
    api.delete(&format!("/v1/contacts/{}", c(7))).await.expect(204);
    assert_eq!(listed(format!("group_id={group}")).await, (3, vec![c(2), c(4), c(6)]));
    assert_eq!(listed("group_id=0".to_owned()).await, (5, vec![beta, c(0), c(1), c(3), c(5)]));
    assert_eq!(listed(format!("tag_id={t}")).await, (4, vec![beta, c(2), c(4), c(6)]));
    assert_eq!(listed("active=false".to_owned()).await, (2, vec![c(0), c(5)]));
    assert_eq!(listed("active=true".to_owned()).await.0, 6, "five customers and the supplier");

    // A page by the tag reads the same whatever the tag holds.
    let cost = |q: String| {
        let (api, meter) = (&api, &meter);
        async move { super::support::fewest_reads(api, meter, &format!("/v1/contacts?{q}")).await }
    };
    let page = format!("tag_id={t}&per_page=2");
    let before = cost(page.clone()).await;
    for n in 0..20u64 {
        let mut body = person(&format!("Zélia {}b", char::from(b'A' + n as u8)), &infra::testing::cpf(310_000_000 + n));
        body["tag_ids"] = json!([t]);
        create(&api, body).await;
    }
    let after = cost(page.clone()).await;
    assert_eq!(listed(page).await.0, 24);
    assert_eq!((after.round_trips, after.read_units), (before.round_trips, before.read_units), "{before:?} {after:?}");
    // A deleted group's contacts, released by its cascade, count among those without a group.
    assert_eq!(listed("group_id=0".to_owned()).await.0, 25);
    api.delete(&format!("/v1/groups/{group}")).await.expect(204);
    api.server.cascade().await;
    assert_eq!(listed("group_id=0".to_owned()).await.0, 28);
    // Counts left wrong (as contacts written around the service would leave them) are counted
    // again from the contacts by the operator's command; a second run moves nothing.
    let store = &api.server.store;
    let customer = billing_api::values::ContactType::Customer;
    infra::tampering::miscount_contacts(store, api.account_id, customer, 3, -2, 7).await;
    let tag = billing_api::values::TagId::new(t);
    infra::tampering::miscount_tag(store, api.account_id, tag, customer, 4, -1).await;
    assert_eq!(listed(format!("tag_id={t}")).await.0, 28);
    let fixed = infra::ops::recount_contacts(store, api.account_id).await.unwrap();
    assert_eq!(fixed["moved"].as_array().unwrap().len(), 5, "{fixed}");
    assert_eq!(listed(format!("tag_id={t}")).await.0, 24);
    assert_eq!(listed("group_id=0".to_owned()).await.0, 28);
    assert_eq!(listed("active=false".to_owned()).await.0, 2);
    assert_eq!(api.get("/v1/contacts").await.expect(200).header("x-total-count"), Some("28"));
    let again = infra::ops::recount_contacts(store, api.account_id).await.unwrap();
    assert_eq!(again["moved"], json!([]));
}

/// Contacts stored before their names were renamed (a tag `T`, a code `K`, the document `d`)
/// are read under both names by every list and search, move to today's on their next write, and
/// all at once by `ops contact rename-stored`, after which nothing is left under the names before,
/// the counts need no repair, and a list by the tag reads what it read before any was stored so.
#[tokio::test]
async fn contacts_stored_under_the_names_before_are_read_and_renamed() {
    use billing_api::values::{ContactId, TagId};
    let meter = std::sync::Arc::new(crate::support::ReadMeter::default());
    let api = Api::on(infra::testing::DevServer::start_metered(meter.clone()).await).await;
    let s = super::billings::setup(&api).await;
    let (t, yearly) = (tag(&api, "Mensalistas", false).await, tag(&api, "Anuais", false).await);
    let mut customers = Vec::new();
    for n in 0..5u64 {
        let mut body = person(&format!("Cliente {}", NATO[n as usize]), &infra::testing::cpf(320_000_000 + n));
        body["tag_ids"] = if n == 2 { json!([t, yearly]) } else { json!([t]) };
        body["code"] = json!(format!("ERP-{n}"));
        customers.push(create(&api, body).await["id"].as_i64().unwrap());
    }
    let mut supplier = company("Beta Fornecedora Ltda", "11.222.333/0001-81");
    supplier["contact_type"] = json!("supplier");
    supplier["tag_ids"] = json!([t]);
    let beta = create(&api, supplier).await["id"].as_i64().unwrap();
    let c = |n: usize| customers[n];
    let billed = super::billings::create_with(&api, &s, json!({"contact_id": c(1)})).await;
    let page = format!("/v1/contacts?tag_id={t}&per_page=2");
    let cost_before = super::support::fewest_reads(&api, &meter, &page).await;

    // Four customers and the supplier as the service stored them before; one of them deleted.
    let store = &api.server.store;
    let (account, tag_id) = (api.account_id, TagId::new(t));
    for id in [c(0), c(1), c(2), c(4), beta] {
        infra::tampering::store_under_legacy_names(store, account, ContactId::new(id)).await;
    }
    api.delete(&format!("/v1/contacts/{}", c(4))).await.expect(204);
    let legacy_postings = || infra::tampering::legacy_contact_postings(store, account, tag_id, "ERP-1");
    assert_eq!(legacy_postings().await, (4, 1, 4), "the tag's, the code's, documents");
    let every = Listed { tag: t, beta, customers: customers[..4].to_vec(), billed };
    every.read_under_both_names(&api).await;
    let reach = infra::ops::recount_reach(store, account, tag_id).await.unwrap();
    assert_eq!((reach["reach_was"].as_i64(), reach["reach"].as_i64()), (Some(4), Some(4)), "{reach}");

    // A tag deleted while a contact stored so holds it is taken out of it by the cascade.
    api.delete(&format!("/v1/tags/{yearly}")).await.expect(204);
    assert_eq!(api.server.cascade().await, 1);
    let charlie = infra::tampering::stored_contact(store, account, ContactId::new(c(2))).await;
    assert_eq!((charlie.legacy_names(), charlie.tag_ids), (true, vec![tag_id]));
    let yearly = infra::tampering::legacy_contact_postings(store, account, TagId::new(yearly), "ERP-1").await;
    assert_eq!(yearly, (0, 1, 4));

    // A write renames the contact it writes.
    let renamed = json!({"contact": {"full_name": "Cliente Alfa Renomeado"}});
    api.patch(&format!("/v1/contacts/{}", c(0)), &renamed).await.expect(200);
    assert_eq!(legacy_postings().await, (3, 1, 3));
    every.read_under_both_names(&api).await;

    // The operator's command moves the rest; a second run moves nothing.
    let done = infra::ops::rename_stored_contacts(store, account).await.unwrap();
    assert_eq!(
        done,
        json!({"renamed": 3, "already": 3, "left": []}),
        "Bravo, Charlie and Beta moved; Maria, Alfa and Delta were already"
    );
    assert_eq!(legacy_postings().await, (0, 0, 0));
    every.read_under_both_names(&api).await;
    let again = infra::ops::rename_stored_contacts(store, account).await.unwrap();
    assert_eq!(again, json!({"renamed": 0, "already": 6, "left": []}));
    assert_eq!(infra::ops::recount_contacts(store, account).await.unwrap()["moved"], json!([]), "counts moved whole");
    let cost_after = super::support::fewest_reads(&api, &meter, &page).await;
    assert_eq!((cost_after.round_trips, cost_after.read_units), (cost_before.round_trips, cost_before.read_units));
}

/// What the lists of [`contacts_stored_under_the_names_before_are_read_and_renamed`] find.
struct Listed {
    tag: i64,
    beta: i64,
    customers: Vec<i64>,
    /// A billing of the second customer.
    billed: i64,
}

impl Listed {
    async fn read_under_both_names(&self, api: &Api) {
        let listed = |q: String| async move {
            let answer = api.get(&format!("/v1/contacts?{q}")).await.expect(200);
            (answer.header("x-total-count").unwrap().parse::<usize>().unwrap(), ids(&answer))
        };
        let (t, c) = (self.tag, |n: usize| self.customers[n]);
        let every = vec![self.beta, c(0), c(1), c(2), c(3)];
        assert_eq!(listed(format!("tag_id={t}")).await, (5, every), "by the tag");
        assert_eq!(listed(format!("tag_id={t}&per_page=2&page=2")).await.1, vec![c(1), c(2)], "a page by the tag");
        let among = listed(format!("tag_id={t}&contact_type=customer&active=true")).await;
        assert_eq!(among.0, 4, "the tag among other filters");
        assert_eq!(listed("s=ERP-1&filter=code".to_owned()).await.1, vec![c(1)], "by the code");
        let digits: String = infra::testing::cpf(320_000_001).chars().filter(char::is_ascii_digit).collect();
        assert_eq!(listed(format!("s={digits}&filter=document")).await.1, vec![c(1)], "by the document");
        let billings = api.get(&format!("/v1/billings?s={digits}")).await.expect(200);
        let found: Vec<i64> =
            billings.body["billings"].as_array().unwrap().iter().map(|b| b["id"].as_i64().unwrap()).collect();
        assert_eq!(found, vec![self.billed], "billings by the payer's document");
    }
}
