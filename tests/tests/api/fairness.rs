//! Tenants share the queues fairly: on AWS each message's account is its message group
//! (SQS fair queues); on the local stack each tenant has a lane of its own beside each queue and
//! the workers take the lanes in turn (`jobs::Queues::with_tenant_lanes`,
//! `workers::run_fair_worker`). Here a tenant with hundreds of registrations waiting does not
//! hold back another tenant's one: it is registered in the registrar's first turn. (How long a
//! turn takes is measured by `infra/bench fairness`, not here.)

use billing_api::values::TagId;
use infra::testing::DevServer;
use serde_json::json;

use super::billings::{body, create_with, setup};
use super::support::Api;

/// Registrations the busy tenant has waiting.
const BACKLOG: usize = 300;

#[tokio::test]
async fn one_tenants_backlog_does_not_hold_back_another_tenants_billet() {
    let server = DevServer::start_fair().await;
    let busy = Api::on(server.clone()).await;
    let quiet = busy.other_account().await;

    // The busy tenant: a bulk billing to 300 customers, expanded; their registrations wait.
    let s = setup(&busy).await;
    let tag = busy.post("/v1/tags", &json!({"tag": {"name": "Lote"}})).await.expect(201).body["id"].as_i64().unwrap();
    infra::testing::tagged_customers(&server.store, busy.account_id, TagId::new(tag), BACKLOG).await;
    let mut bulk = body(&s);
    bulk["billing"]["billing_issue_type"] = json!("bulk");
    bulk["billing"]["tag_id"] = json!(tag);
    busy.post("/v1/billings", &bulk).await.expect(202);
    assert!(server.expand_bulk().await >= BACKLOG / billing_api::billings::bulk::CHUNK);

    // The quiet tenant: one billing, after all of them.
    let q = setup(&quiet).await;
    let id = create_with(&quiet, &q, json!({})).await;

    // One turn of the registrar: a receive from each lane.
    let turn = server.registration_turn().await;
    // Distinct bodies: the fault proxy may deliver a message twice.
    let distinct: std::collections::BTreeSet<&String> = turn.bodies.iter().collect();
    let of = |account: billing_api::values::AccountId| {
        let marker = format!("\"account_id\":{account},");
        distinct.iter().filter(|b| b.contains(&marker)).count()
    };
    assert_eq!(of(quiet.account_id), 1, "the quiet tenant's message is in the first turn");
    assert!(of(busy.account_id) <= 10, "one receive of the busy tenant's: {}", of(busy.account_id));
    let shown = quiet.get(&format!("/v1/billings/{id}")).await.expect(200).body;
    assert_eq!(shown["bank_billets"][0]["status"], "opened", "registered: {shown}");
}
