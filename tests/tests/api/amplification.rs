//! What one request may cost, whatever its parameters: every list route gets the worst
//! query a client can write — every filter at once, every status word repeated, the longest
//! search, the last page — and the storage requests it makes are counted on the server store's
//! meter. Each bound is the one `docs/openapi.yaml` documents for that list ("Cost" in its
//! description), on an account with a few records of each kind (a query reads one page of each
//! range; more data costs more pages, not more ranges).

use std::sync::Arc;

use crate::support::ReadMeter;
use billing_api::values::BillingStatus;
use infra::testing::DevServer;
use serde_json::json;

use super::billings::{create_with, setup};
use super::support::Api;

/// The storage requests (reads and writes) `path` makes, answered 200.
async fn cost(api: &Api, meter: &ReadMeter, path: &str) -> u64 {
    meter.take();
    api.get(path).await.expect(200);
    meter.take().calls()
}

#[tokio::test]
async fn the_worst_parameters_of_every_list_cost_a_bounded_number_of_storage_requests() {
    let meter = Arc::new(ReadMeter::default());
    let api = Api::on(DevServer::start_metered(meter.clone()).await).await;
    let (account, auth) =
        infra::testing::account(&api.server.store, billing_api::accounts::AccountStatus::Active, true, true).await;
    let api = Api { account_id: account, auth: Some(auth), ..api };
    let s = setup(&api).await;
    let billing = create_with(&api, &s, json!({})).await;
    let tag = api.post("/v1/tags", &json!({"tag": {"name": "VIP"}})).await.expect(201).body["id"].clone();
    api.post("/v1/groups", &json!({"group": {"description": "Sócios", "contact_type": "customers"}})).await.expect(201);
    // The token is looked up once; every later request finds it in the authorizer's cache.
    api.get("/v1/tags").await.expect(200);

    let every_status: Vec<&str> =
        BillingStatus::ALL.iter().map(|s| s.as_str()).chain(["opened", "expired", "paid", "nonsense"]).collect();
    let status_words = every_status.iter().cycle().take(2_000).copied().collect::<Vec<_>>().join("+");
    let term = "a".repeat(200);
    let too_long = "a".repeat(201);
    let c = s.contact;
    let yesterday = billing_api::values::today().pred_opt().unwrap();
    let worst: Vec<(String, u64)> = vec![
        // Every status range (the collectable ones twice: due before and from today) in 4 shards,
        // created and due ranges, 5 value filters of 4 shards, the search (2 contact scans, 4
        // evincive shards, 4 shards of each matched contact), the page and its contacts and tags.
        (
            format!(
                "/v1/billings?status={status_words}&start_created_at=2000-01-01&end_created_at=2100-01-01\
                 &start_due_date=2000-01-01&end_due_date=2100-01-01&s=Maria&page=999999&per_page=100"
            ),
            70,
        ),
        (
            format!(
                "/v1/billings?contact_id={c}&billing_id=1&bank_rule_id={}&bill_category_id={}&your_code=x\
                 &status={status_words}&start_created_at=2000-01-01&end_created_at=2100-01-01&s={term}",
                s.bank_rule, s.receivable
            ),
            40,
        ),
        (format!("/v1/billings?s={too_long}&status={status_words}"), 3),
        (format!("/v1/contacts?contact_type=customer&group_id=1&tag_id={tag}&active=true&s={term}&page=99999"), 12),
        (format!("/v1/contacts?s={term}&filter=document"), 12),
        (format!("/v1/tags?s={term}&page=99999"), 10),
        (format!("/v1/groups?s={term}&contact_type=customers&page=99999"), 10),
        ("/v1/bill_categories?category_type=receivable&page=99999".to_owned(), 10),
        (format!("/v1/billings/{}/bank_billets?page=99999&per_page=100", billing), 10),
        (format!("/v1/sales?contact_id={c}&start_date=2000-01-01&end_date=2100-01-01&page=99999"), 8),
        (format!("/v1/store_credits?contact_id={c}&page=99999"), 8),
        (format!("/v1/receivable_settlements/preview?cutoff_at={yesterday}"), 12),
        // Each of the 32 event partitions once in the range (a few events: no second read).
        (
            "/v1/events?type=store_credit.created&start_created_at=2000-01-01&end_created_at=2100-01-01&page=99999&per_page=100"
                .to_owned(),
            34,
        ),
        ("/v1/events?page=99999&per_page=100".to_owned(), 34),
        // The log in chunks of up to 200, at most 1,000 examined; a receiver's: its lookup first.
        ("/v1/webhook_deliveries?status=failed&page=99999&per_page=100".to_owned(), 6),
        ("/v1/webhook_deliveries?webhook_id=1&status=delivered&page=99999".to_owned(), 7),
    ];
    let mut over = Vec::new();
    for (path, bound) in &worst {
        let calls = cost(&api, &meter, path).await;
        eprintln!("{calls:>4} storage requests (bound {bound:>3}): {}", path.chars().take(90).collect::<String>());
        if calls > *bound {
            over.push(format!("{path}: {calls} > {bound}"));
        }
    }
    assert!(over.is_empty(), "over their bounds: {over:#?}");
}

#[tokio::test]
async fn a_thousand_repeated_status_words_read_each_status_once() {
    let meter = Arc::new(ReadMeter::default());
    let api = Api::on(DevServer::start_metered(meter.clone()).await).await;
    api.get("/v1/billings").await.expect(200);
    let once = cost(&api, &meter, "/v1/billings?status=opened").await;
    let repeated = format!("/v1/billings?status={}", vec!["opened"; 1_000].join("+"));
    assert_eq!(cost(&api, &meter, &repeated).await, once);
}
