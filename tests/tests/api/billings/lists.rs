//! The list (§4.2): filters, order, the list representation, paging and the search.

use serde_json::json;

use super::support::Api;
use super::{body, create_with, ids, setup};

/// The billings of the test below: one past due with a code and no category, one due in 2030
/// with an `evincive`, and a company's (a payer of its own) due in 2031.
struct Three {
    company: i64,
    late: i64,
    future: i64,
    companys: i64,
}

/// The ids a list answers; `query` is all that follows `/v1/billings`.
async fn listed(api: &Api, query: &str) -> Vec<i64> {
    ids(&api.get(&format!("/v1/billings{query}")).await.expect(200))
}

#[tokio::test]
async fn list_filters_order_and_representation() {
    let api = Api::start().await;
    let s = setup(&api).await;
    let three = three_billings(&api, &s).await;
    filters_and_order(&api, &three).await;
    a_value_with_a_status_or_due_dates(&api, &s, &three).await;
    a_page_and_the_list_representation(&api, &three).await;
}

async fn three_billings(api: &Api, s: &super::Setup) -> Three {
    let other_contact = json!({"contact": {
        "legal_entity": true, "company_name": "Exemplo Comércio Ltda", "cnpj": "11.222.333/0001-81",
        "address_postal_code": "20040-002", "address_street": "Rua da Assembleia", "address_number": "10",
        "address_district": "Centro", "address_city": "Rio de Janeiro", "address_state": "RJ"}});
    let company = api.post("/v1/contacts", &other_contact).await.expect(201).body["id"].as_i64().unwrap();
    let late =
        create_with(api, s, json!({"due_date": "2020-01-06", "your_code": "A-1", "bill_category_id": null})).await;
    let future = create_with(api, s, json!({"due_date": "2030-03-04", "evincive": "Contrato de locação 2030"})).await;
    let companys = create_with(api, s, json!({"contact_id": company, "due_date": "2031-05-05"})).await;
    Three { company, late, future, companys }
}

/// Each filter alone, the order (id descending) and the search.
async fn filters_and_order(api: &Api, three: &Three) {
    let Three { late, future, companys, .. } = *three;
    assert_eq!(listed(api, "").await, [companys, future, late], "id descending");
    assert_eq!(listed(api, "?status=expired").await, [late]);
    assert_eq!(listed(api, "?status=opened").await, [companys, future]);
    assert_eq!(listed(api, "?status=opened%20expired").await, [companys, future, late]);
    assert!(listed(api, "?status=paid").await.is_empty());
    assert!(listed(api, "?status=bogus").await.is_empty());
    assert_eq!(listed(api, "?your_code=A-1").await, [late]);
    assert!(listed(api, "?your_code=A").await.is_empty());
    assert_eq!(listed(api, "?start_due_date=2030-01-01&end_due_date=2030-12-31").await, [future]);
    assert_eq!(listed(api, "?start_due_date=2030-01-01").await.len(), 3, "one end only: no filter");
    assert!(listed(api, "?start_created_at=2000-01-01&end_created_at=2000-12-31").await.is_empty());
    assert_eq!(listed(api, "?s=locação").await, [future], "evincive substring");
    assert_eq!(listed(api, "?s=exemplo").await, [companys], "contact description substring");
    assert_eq!(listed(api, "?s=529.982.247-25").await, [future, late], "contact document, digits only");
    assert!(listed(api, "?s=529982").await.is_empty(), "the document must match exactly");
    assert_eq!(listed(api, "?billing_type=schedule").await.len(), 0);
    assert!(
        listed(api, "?billing_type=billing%23BILLING").await.is_empty(),
        "the index separator cannot widen the filter"
    );
    assert!(listed(api, "?contact_id=abc").await.is_empty());
}

/// A payer, a bank rule or a code with a status or due dates: read from the value's postings,
/// which carry both, and move with a change of status.
async fn a_value_with_a_status_or_due_dates(api: &Api, s: &super::Setup, three: &Three) {
    let Three { company, late, future, companys } = *three;
    let contact_q = format!("/v1/billings?contact_id={company}");
    assert_eq!(ids(&api.get(&contact_q).await.expect(200)), [companys]);
    let rule_q = format!("/v1/billings?bank_rule_id={}&bill_category_id={}", s.bank_rule, s.receivable);
    assert_eq!(ids(&api.get(&rule_q).await.expect(200)), [companys, future]);
    // A value with a status or a due date: read from the value's postings, which carry both.
    let payer = s.contact;
    assert_eq!(listed(api, &format!("?contact_id={payer}&status=expired")).await, [late]);
    assert_eq!(listed(api, &format!("?contact_id={payer}&status=opened")).await, [future]);
    assert!(listed(api, &format!("?contact_id={payer}&status=paid")).await.is_empty());
    assert_eq!(
        listed(api, &format!("?contact_id={payer}&start_due_date=2030-01-01&end_due_date=2030-12-31")).await,
        [future]
    );
    assert_eq!(
        listed(
            api,
            &format!("?bank_rule_id={}&status=opened&start_due_date=2031-01-01&end_due_date=2031-12-31", s.bank_rule)
        )
        .await,
        [companys]
    );
    assert_eq!(listed(api, "?your_code=A-1&status=expired").await, [late]);
    assert!(listed(api, "?your_code=A-1&status=opened").await.is_empty());
    // A change of status moves the state the value's postings carry.
    api.post(
        &format!("/v1/billings/{future}/cancel"),
        &json!({"billing": {"cancellation_reason": "Cliente desistiu"}}),
    )
    .await
    .expect(200);
    assert!(listed(api, &format!("?contact_id={payer}&status=opened")).await.is_empty());
    assert_eq!(listed(api, &format!("?contact_id={payer}&status=canceled")).await, [future]);
    assert_eq!(listed(api, "?status=canceled").await, [future]);
}

/// A page's headers, what the list representation holds and leaves out, an expired billing's
/// single representation, and another account's total.
async fn a_page_and_the_list_representation(api: &Api, three: &Three) {
    let Three { late, future, .. } = *three;
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
