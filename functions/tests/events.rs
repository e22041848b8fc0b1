//! Every fixture in `events/` is parsed as Lambda receives it and run through its function, against
//! the local stack. The fixtures name account 1; each run points them at a fresh account instead.

use std::path::PathBuf;

use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use billing_api::app::AppState;
use billing_api::http::authorizer::{authorize, AuthorizerError};
use billing_api::http::rate_limit::{RateLimiter, RateLimits};
use billing_api::values::AccountId;
use http_body_util::BodyExt;
use infra::testing::{active_account, local_stack};
use serde_json::Value;
use tower::ServiceExt;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../events").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}

/// The fixture with its authorizer context pointing at `account`.
fn event_for(name: &str, account: AccountId) -> String {
    let mut event = fixture(name);
    let authorizer = &mut event["requestContext"]["authorizer"];
    authorizer["account_id"] = Value::String(account.to_string());
    authorizer["principalId"] = Value::String(format!("account:{account}"));
    event.to_string()
}

async fn run(app: &axum::Router, name: &str, account: AccountId) -> (u16, Value) {
    let request = lambda_http::request::from_str(&event_for(name, account))
        .unwrap_or_else(|e| panic!("{name} is not an API Gateway REST event: {e}"));
    let response = app.clone().oneshot(request).await.expect("the router answers");
    let status = response.status().as_u16();
    if response.headers().get("content-type").is_some_and(|t| t == "application/pdf") {
        return (status, binary_body(response).await);
    }
    let bytes = response.into_body().collect().await.expect("body").to_bytes();
    let body = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).expect("JSON body") };
    (status, body)
}

/// A PDF as lambda_http hands it to API Gateway: a binary body (sent base64-encoded, with
/// `isBase64Encoded`), shown here by its first bytes.
async fn binary_body(response: axum::response::Response) -> Value {
    use lambda_http::IntoResponse;
    let converted = response.into_response().await;
    match converted.body() {
        lambda_http::Body::Binary(bytes) => Value::String(String::from_utf8_lossy(&bytes[..5.min(bytes.len())]).into()),
        other => panic!("a PDF must leave the function as a binary body, not {other:?}"),
    }
}

/// An HTTP function's router.
type Routes = fn() -> axum::Router<AppState>;

/// The HTTP functions' fixtures: each function runs its events in order in a fresh account:
/// create, list, show, update, delete.
const HTTP_SUITES: [(Routes, &[(&str, u16)]); 8] = [
    (
        billing_api::tags::router,
        &[
            ("tags-create.json", 201),
            ("tags-create-form.json", 201),
            ("tags-list.json", 200),
            ("tags-show.json", 200),
            ("tags-update.json", 200),
            ("tags-delete.json", 204),
        ],
    ),
    (
        billing_api::groups::router,
        &[
            ("groups-create.json", 201),
            ("groups-list.json", 200),
            ("groups-show.json", 200),
            ("groups-update.json", 200),
            ("groups-replace.json", 200),
            ("groups-delete.json", 204),
        ],
    ),
    (
        billing_api::contacts::router,
        &[
            ("contacts-create.json", 201),
            ("contacts-create-form.json", 201),
            ("contacts-list.json", 200),
            ("contacts-show.json", 200),
            ("contacts-update.json", 200),
            ("contacts-delete.json", 204),
        ],
    ),
    (billing_api::bill_categories::router, &[("bill-categories-list.json", 200)]),
    (
        functions::billing_routes,
        &[
            ("billings-create.json", 201),
            ("billings-create.json", 201),
            ("billings-list.json", 200),
            ("billings-show.json", 200),
            ("billings-update.json", 200),
            ("billings-cancel.json", 200),
            ("billings-pay-off.json", 200),
            // The pay-off's payment (cash entry 1) in the ledger, part of it refunded.
            ("payments-list.json", 200),
            ("payments-refund.json", 201),
            ("statements-show.json", 200),
            ("billings-delete.json", 422),
        ],
    ),
    // Schedule 1 of a fresh account (the billings function serves `/v1/schedules`).
    (functions::billing_routes, &[("schedules-create.json", 201), ("schedules-update.json", 200)]),
    // A carnê of 12 of a fresh account: the booklet and its instalments (`/v1/carnes`).
    (functions::billing_routes, &[("carnes-create.json", 201)]),
    // Billing 1 of a fresh account, its billet registered by the SQS event first.
    (
        billing_api::billings::billets::router,
        &[("bank-billets-list.json", 200), ("bank-billets-show.json", 200), ("bank-billets-pdf.json", 200)],
    ),
];

/// Every fixture in the folder is run: by the HTTP suites, the authorizer test or another test of
/// this file.
fn assert_every_fixture_is_run() {
    let mut covered: Vec<&str> = HTTP_SUITES.iter().flat_map(|(_, events)| events.iter().map(|(n, _)| *n)).collect();
    covered.push("authorizer.json");
    covered.extend(["billet-registration-sqs.json", "billings-create-bulk.json", "bulk-expansion-sqs.json"]);
    covered.extend(["outbox-dispatcher-stream.json", "webhook-sender-sqs.json"]);
    covered.extend(POINT_OF_SALE_EVENTS.iter().map(|(name, _)| *name));
    covered.extend(["settlement-sqs.json", "cascade-sqs.json"]);
    covered.extend(["payer-page-show.json", "payer-page-pdf.json"]);
    covered.extend(["remittance-schedule.json", "return-file-s3.json"]);
    covered.extend(["pix-webhook.json", "pix-charges-sqs.json", "pix-reconcile-schedule.json"]);
    covered.push("pix-automatico-webhook.json");
    covered.extend(REMINDER_EVENTS);
    covered.extend(["gateway-webhook.json", "gateway-availability-schedule.json", "card-releases-sqs.json"]);
    covered.push("card-on-file-sqs.json");
    covered.extend(["exports-create.json", "export-step-sqs.json"]);
    covered.extend(["schedule-planner-schedule.json", "schedule-cycles-sqs.json"]);
    covered.extend(WEBHOOKS_EVENTS.iter().map(|(name, _)| *name));
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../events");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".json") {
            assert!(covered.contains(&name.as_str()), "events/{name} is not run by any test");
        }
    }
}

#[tokio::test]
async fn every_http_event_runs_through_its_function() {
    // As template.yaml sets it for every function.
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let state = AppState::new(store.clone());

    for (routes, expected) in HTTP_SUITES {
        let (account, _) = active_account(&store).await;
        let billing =
            ["billings", "bank-billets", "schedules", "carnes"].iter().any(|name| expected[0].0.starts_with(name));
        if billing {
            // The billing events name bank rule 1, contact 1 and category 1 of the account.
            infra::ops::create_bank_rule(&store, account, "Banco simulado", "simulated", None).await.unwrap();
            infra::ops::create_category(&store, account, "Mensalidades", "receivable").await.unwrap();
            infra::ops::create_bank_account(&store, account, "Conta corrente", "checking").await.unwrap();
            let contacts = functions::http_app(billing_api::contacts::router(), state.clone());
            assert_eq!(run(&contacts, "contacts-create.json", account).await.0, 201);
        }
        if expected[0].0.starts_with("bank-billets") {
            let billings = functions::http_app(functions::billing_routes(), state.clone());
            assert_eq!(run(&billings, "billings-create.json", account).await.0, 201);
            let response = run_sqs(&store, account).await;
            assert!(response.batch_item_failures.is_empty());
        }
        let app = functions::http_app(routes(), state.clone());
        for (name, status) in expected {
            let (got, body) = run(&app, name, account).await;
            assert_eq!(got, *status, "{name}: {body}");
            if *name == "contacts-list.json" {
                assert_eq!(body["contacts"].as_array().map(Vec::len), Some(1), "{body}");
            }
            if *name == "bank-billets-pdf.json" {
                assert_eq!(body, "%PDF-", "{name}");
            }
        }
    }

    assert_every_fixture_is_run();
}

/// The webhooks function's fixtures, in order in a fresh account: webhook 1 is made, listed,
/// shown, changed, its secret rotated, pinged (its delivery and event listed), and removed.
const WEBHOOKS_EVENTS: [(&str, u16); 9] = [
    ("webhooks-create.json", 201),
    ("webhooks-list.json", 200),
    ("webhooks-show.json", 200),
    ("webhooks-update.json", 200),
    ("webhooks-rotate-secret.json", 200),
    ("webhooks-test.json", 202),
    ("webhook-deliveries-list.json", 200),
    ("events-list.json", 200),
    ("webhooks-delete.json", 204),
];

#[tokio::test]
async fn the_webhooks_events_run_through_their_function() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    // The function reads the master key at its first use; here, one of the test's own.
    let key = billing_api::webhooks::SecretBox::from_master("events-test-master-key");
    let webhooks = billing_api::state::Webhooks {
        key: billing_api::webhooks::secrets::MasterKey::ready(std::sync::Arc::new(key)),
        policy: billing_api::webhooks::Policy::STRICT,
    };
    let state = AppState::new(store.clone()).with_webhooks(webhooks);
    let (account, _) = active_account(&store).await;
    let app = functions::http_app(billing_api::webhooks::router(), state);
    for (name, status) in WEBHOOKS_EVENTS {
        let (got, body) = run(&app, name, account).await;
        assert_eq!(got, status, "{name}: {body}");
        match name {
            "webhooks-create.json" | "webhooks-rotate-secret.json" => {
                assert!(
                    body["secret"].as_str().unwrap().starts_with("whsec_")
                        && !body["secret"].as_str().unwrap().contains('…')
                )
            }
            "webhooks-show.json" => assert!(body["secret"].as_str().unwrap().contains('…'), "{body}"),
            "webhooks-update.json" => {
                assert_eq!(body["event_types"], serde_json::json!(["billing.updated", "sale.updated"]))
            }
            "webhook-deliveries-list.json" => {
                assert_eq!(body["webhook_deliveries"].as_array().map(Vec::len), Some(1), "{body}")
            }
            "events-list.json" => assert_eq!(body["events"][0]["type"], "ping", "{body}"),
            _ => {}
        }
    }
}

/// The SQS fixture, its message pointed at billing 1 of `account`, through the worker.
async fn run_sqs(store: &billing_api::store::Store, account: AccountId) -> SqsBatchResponse {
    let mut event = fixture("billet-registration-sqs.json");
    let body = event["Records"][0]["body"].as_str().unwrap().to_owned();
    let mut job: Value = serde_json::from_str(&body).unwrap();
    job["account_id"] = account.get().into();
    event["Records"][0]["body"] = Value::String(job.to_string());
    let event: SqsEvent = serde_json::from_value(event).expect("an SQS event");
    billing_api::payments::registrar::handle_batch(store, event).await
}

/// A fresh account with bank rule 1, category 1, contact 1 and billing 1 made through the fixtures
/// (its billet not yet registered).
async fn billing_one() -> (billing_api::store::Store, AppState, AccountId) {
    billing_one_at("simulated", None).await
}

/// [`billing_one`] with bank rule 1 at this bank.
async fn billing_one_at(bank: &str, agreement: Option<&str>) -> (billing_api::store::Store, AppState, AccountId) {
    let (_, store) = local_stack().await;
    let state = AppState::new(store.clone());
    let (account, _) = active_account(&store).await;
    infra::ops::create_bank_rule(&store, account, "Banco", bank, agreement.map(str::to_owned)).await.unwrap();
    infra::ops::create_category(&store, account, "Mensalidades", "receivable").await.unwrap();
    let contacts = functions::http_app(billing_api::contacts::router(), state.clone());
    assert_eq!(run(&contacts, "contacts-create.json", account).await.0, 201);
    let billings = functions::http_app(functions::billing_routes(), state.clone());
    assert_eq!(run(&billings, "billings-create.json", account).await.0, 201);
    (store, state, account)
}

#[tokio::test]
async fn the_sqs_event_registers_the_billet_once() {
    let (store, state, account) = billing_one().await;
    // Delivered twice, as SQS may: one billet.
    for _ in 0..2 {
        let response = run_sqs(&store, account).await;
        assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    }
    let billets = functions::http_app(billing_api::billings::billets::router(), state);
    let (status, body) = run(&billets, "bank-billets-list.json", account).await;
    assert_eq!(status, 200);
    let listed = body["bank_billets"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{body}");
    assert_eq!(listed[0]["status"], "opened");
}

/// A payer-page fixture with the token of a real billet in its path.
fn payer_event(name: &str, token: &str) -> lambda_http::Request {
    let text = serde_json::to_string(&fixture(name)).unwrap().replace("PayerLinkTokenForEventsOnly12345", token);
    lambda_http::request::from_str(&text).unwrap_or_else(|e| panic!("{name} is not an API Gateway REST event: {e}"))
}

#[tokio::test]
async fn the_payer_page_events_run_through_their_function() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (store, state, account) = billing_one().await;
    assert!(run_sqs(&store, account).await.batch_item_failures.is_empty());
    let billets = functions::http_app(billing_api::billings::billets::router(), state.clone());
    let (_, body) = run(&billets, "bank-billets-show.json", account).await;
    let url = body["url"].as_str().expect("the billet's url");
    let token = url.rsplit('/').next().unwrap();
    let line = body["digitable_line"].as_str().unwrap().to_owned();

    let app = functions::payer_app(state);
    let response = app.clone().oneshot(payer_event("payer-page-show.json", token)).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-security-policy"].to_str().unwrap().starts_with("default-src 'none'"));
    let html = String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(html.contains(&line), "{html}");
    let response = app.clone().oneshot(payer_event("payer-page-pdf.json", token)).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(binary_body(response).await, "%PDF-");
    // The fixture's own token names no billet.
    let response = app.oneshot(payer_event("payer-page-show.json", "PayerLinkTokenForEventsOnly12345")).await.unwrap();
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn the_bulk_events_accept_and_expand_once() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let state = AppState::new(store.clone());
    let (account, _) = active_account(&store).await;
    infra::ops::create_bank_rule(&store, account, "Banco simulado", "simulated", None).await.unwrap();
    infra::ops::create_category(&store, account, "Mensalidades", "receivable").await.unwrap();
    let tags = functions::http_app(billing_api::tags::router(), state.clone());
    assert_eq!(run(&tags, "tags-create.json", account).await.0, 201);
    // Contact 1 carries tag 1, the target of the bulk fixtures.
    let mut event: Value = serde_json::from_str(&event_for("contacts-create.json", account)).unwrap();
    let mut contact: Value = serde_json::from_str(event["body"].as_str().unwrap()).unwrap();
    contact["contact"]["tag_ids"] = serde_json::json!([1]);
    event["body"] = Value::String(contact.to_string());
    let contacts = functions::http_app(billing_api::contacts::router(), state.clone());
    let created = contacts.oneshot(lambda_http::request::from_str(&event.to_string()).unwrap()).await.unwrap();
    assert_eq!(created.status().as_u16(), 201);

    let billings = functions::http_app(functions::billing_routes(), state);
    let (status, body) = run(&billings, "billings-create-bulk.json", account).await;
    assert_eq!((status, body), (202, serde_json::json!({"status": 202, "enqueued": true, "contacts_count": 1})));
    // The expansion's first message is the task the create wrote: the fixture, pointed at it.
    let pending = billing_api::jobs::tasks::pending_of(&store, account).await.unwrap();
    let (pk, sk) = pending.last().expect("the expansion's task").clone();
    let task: billing_api::jobs::tasks::Task =
        billing_api::store::item::from_item(store.get(pk, sk).await.unwrap().unwrap()).unwrap();
    let sent: Value = serde_json::from_str(&task.messages[0]).unwrap();
    let mut event = fixture("bulk-expansion-sqs.json");
    let mut job: Value = serde_json::from_str(event["Records"][0]["body"].as_str().unwrap()).unwrap();
    job["account_id"] = account.get().into();
    job["expansion_id"] = sent["expansion_id"].clone();
    event["Records"][0]["body"] = Value::String(job.to_string());
    let event: SqsEvent = serde_json::from_value(event).expect("an SQS event");
    // Delivered twice, as SQS may: one billing.
    for _ in 0..2 {
        let response = billing_api::billings::bulk::handle_batch(&store, event.clone()).await;
        assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    }
    let (status, body) = run(&billings, "billings-list.json", account).await;
    assert_eq!(status, 200);
    let listed = body["billings"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{body}");
    assert_eq!((listed[0]["contact_id"].as_i64(), listed[0]["your_code"].as_str()), (Some(1), Some("MENSAL-03")));
}

#[tokio::test]
async fn the_cascade_event_clears_a_deleted_tag_once() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let state = AppState::new(store.clone());
    let (account, _) = active_account(&store).await;
    let tags = functions::http_app(billing_api::tags::router(), state.clone());
    for n in 1..=3 {
        // Tag names are unique in an account: the fixture's, numbered.
        let mut event: Value = serde_json::from_str(&event_for("tags-create.json", account)).unwrap();
        let mut tag: Value = serde_json::from_str(event["body"].as_str().unwrap()).unwrap();
        tag["tag"]["name"] = Value::String(format!("{} {n}", tag["tag"]["name"].as_str().unwrap()));
        event["body"] = Value::String(tag.to_string());
        let created = tags.clone().oneshot(lambda_http::request::from_str(&event.to_string()).unwrap()).await.unwrap();
        assert_eq!(created.status().as_u16(), 201);
    }
    // Contact 1 carries tags 1 and 3; the fixture's message clears tag 3, deleted.
    let mut event: Value = serde_json::from_str(&event_for("contacts-create.json", account)).unwrap();
    let mut contact: Value = serde_json::from_str(event["body"].as_str().unwrap()).unwrap();
    contact["contact"]["tag_ids"] = serde_json::json!([1, 3]);
    event["body"] = Value::String(contact.to_string());
    let contacts = functions::http_app(billing_api::contacts::router(), state.clone());
    let created = contacts.oneshot(lambda_http::request::from_str(&event.to_string()).unwrap()).await.unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let mut delete: Value = serde_json::from_str(&event_for("tags-delete.json", account)).unwrap();
    delete["path"] = Value::String("/v1/tags/3".into());
    delete["pathParameters"]["id"] = Value::String("3".into());
    delete["requestContext"]["path"] = Value::String("/live/v1/tags/3".into());
    let deleted = tags.oneshot(lambda_http::request::from_str(&delete.to_string()).unwrap()).await.unwrap();
    assert_eq!(deleted.status().as_u16(), 204);

    let mut event = fixture("cascade-sqs.json");
    let mut job: Value = serde_json::from_str(event["Records"][0]["body"].as_str().unwrap()).unwrap();
    job["account_id"] = account.get().into();
    event["Records"][0]["body"] = Value::String(job.to_string());
    let event: SqsEvent = serde_json::from_value(event).expect("an SQS event");
    // Delivered twice, as SQS may: the second finds nothing to do.
    for _ in 0..2 {
        let response = billing_api::contacts::cascade::handle_batch(&store, event.clone()).await;
        assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    }
    let id = billing_api::values::ContactId::new(1);
    let contact = billing_api::store::records::find::<billing_api::contacts::Contact>(&store, account, id).await;
    assert_eq!(contact.unwrap().unwrap().tag_ids, vec![billing_api::values::TagId::new(1)]);
}

/// template.yaml makes every media type binary (for the printable billet), so API Gateway hands
/// the functions every request body base64-encoded: a JSON create still reads as JSON.
#[tokio::test]
async fn a_base64_encoded_body_reads_as_its_text() {
    use base64::Engine;
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let (account, _) = active_account(&store).await;
    let app = functions::http_app(billing_api::tags::router(), AppState::new(store));
    let mut event: Value = serde_json::from_str(&event_for("tags-create.json", account)).unwrap();
    let text = event["body"].as_str().unwrap().to_owned();
    event["body"] = Value::String(base64::engine::general_purpose::STANDARD.encode(text));
    event["isBase64Encoded"] = Value::Bool(true);
    let request = lambda_http::request::from_str(&event.to_string()).unwrap();
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 201);
}

#[tokio::test]
async fn a_request_that_skipped_the_authorizer_is_refused() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let app = functions::http_app(billing_api::tags::router(), AppState::new(store));
    let mut event = fixture("tags-list.json");
    event["requestContext"].as_object_mut().unwrap().remove("authorizer");
    let request = lambda_http::request::from_str(&event.to_string()).unwrap();
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 401);
}

#[tokio::test]
async fn the_authorizer_event_allows_a_valid_token_for_the_whole_stage() {
    let (_, store) = local_stack().await;
    let (account, header) = active_account(&store).await;
    let mut event = fixture("authorizer.json");
    event["headers"]["Authorization"] = Value::String(header.clone());
    if event["multiValueHeaders"]["Authorization"].is_array() {
        event["multiValueHeaders"]["Authorization"] = serde_json::json!([header]);
    }
    let request: ApiGatewayCustomAuthorizerRequestTypeRequest =
        serde_json::from_value(event).expect("authorizer event");
    let limiter = RateLimiter::new(store.clone(), RateLimits::SPEC);
    let answer = authorize(&store, &limiter, request).await.expect("allowed");
    assert_eq!(answer["principalId"], format!("account:{account}"));
    let statement = &answer["policyDocument"]["Statement"][0];
    assert_eq!(statement["Effect"], "Allow");
    assert_eq!(statement["Resource"], "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/live/*");
    assert_eq!(answer["context"]["account_id"], account.to_string());
    assert_eq!(answer["context"]["account_status"], "active");
}

#[tokio::test]
async fn the_authorizer_event_with_the_fixture_token_is_unauthorized() {
    let (_, store) = local_stack().await;
    let request: ApiGatewayCustomAuthorizerRequestTypeRequest =
        serde_json::from_value(fixture("authorizer.json")).expect("authorizer event");
    let limiter = RateLimiter::new(store.clone(), RateLimits::OFF);
    let error = authorize(&store, &limiter, request).await.expect_err("unknown token");
    assert!(matches!(error, AuthorizerError::Unauthorized));
    // API Gateway answers 401 only for exactly this message.
    assert_eq!(functions::diagnostic(error).error_message, "Unauthorized");
}

#[tokio::test]
async fn the_authorizer_counts_what_it_refuses_and_denies_an_ip_over_its_limit() {
    let (_, store) = local_stack().await;
    let limiter = RateLimiter::new(store.clone(), RateLimits { per_ip: Some(2), per_token: None });
    let mut event = fixture("authorizer.json");
    // An address of this test only (documentation range), so nothing else counts on it.
    let ip = format!("198.51.100.{}", rand::random::<u8>());
    event["requestContext"]["identity"]["sourceIp"] = Value::String(ip);
    let request = || serde_json::from_value::<ApiGatewayCustomAuthorizerRequestTypeRequest>(event.clone()).unwrap();
    let minute = billing_api::http::rate_limit::window(billing_api::http::rate_limit::unix_now()).0;
    let mut answers = Vec::new();
    for _ in 0..4 {
        answers.push(authorize(&store, &limiter, request()).await);
    }
    if billing_api::http::rate_limit::window(billing_api::http::rate_limit::unix_now()).0 != minute {
        return; // The minute turned mid-test: the counts started again.
    }
    assert!(answers[..2].iter().all(|a| matches!(a, Err(AuthorizerError::Unauthorized))));
    for answer in &answers[2..] {
        let answer = answer.as_ref().expect("a policy");
        assert_eq!(answer["policyDocument"]["Statement"][0]["Effect"], "Deny");
        assert_eq!(answer["context"]["rate_limited"], "ip");
    }
}

#[tokio::test]
async fn the_function_counts_the_source_ip_api_gateway_saw() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let (account, _) = active_account(&store).await;
    let limits = billing_api::http::rate_limit::RateLimits { per_ip: Some(1), per_token: None };
    let app = functions::http_app(billing_api::tags::router(), AppState::new(store).with_rate_limits(limits));
    let minute = || billing_api::http::rate_limit::window(billing_api::http::rate_limit::unix_now()).0;
    for _ in 0..3 {
        // An address of this attempt only (documentation range), so nothing else counts on it.
        let ip = format!("2001:db8::{:x}", rand::random::<u32>());
        let mut event: Value = serde_json::from_str(&event_for("tags-list.json", account)).unwrap();
        event["requestContext"]["identity"]["sourceIp"] = Value::String(ip);
        let started = minute();
        let mut answers = Vec::new();
        for _ in 0..2 {
            let request = lambda_http::request::from_str(&event.to_string()).unwrap();
            answers.push(app.clone().oneshot(request).await.unwrap());
        }
        if minute() != started {
            continue; // the two requests fell in two windows: try again
        }
        assert_eq!(answers[0].status().as_u16(), 200);
        let refused = answers.pop().unwrap();
        assert_eq!(refused.status().as_u16(), 429);
        let retry_after: u64 = refused.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry_after));
        let bytes = refused.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert!(body["error"].as_str().unwrap().contains("1 por minuto por IP de origem"), "{body}");
        return;
    }
    panic!("three attempts in a row straddled a minute");
}

#[tokio::test]
async fn the_webhook_events_dispatch_and_deliver_once() {
    use billing_api::events::{self, Event};
    use billing_api::jobs::{tasks, BilletRegistration};
    use billing_api::webhooks::{Policy, Schedule};
    use infra::webhook_receiver::{standard_webhooks_verify, Receiver};

    // A server of its own: a table whose outbox holds only this test's event, and its queue.
    let server = infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await;
    let store = &server.store;
    let (account, _) = active_account(store).await;
    let receiver = Receiver::start(&[], 200).await;
    let added = server.webhook_ops().add(account, &receiver.url).await.unwrap();
    let secret = added["webhook"]["secret"].as_str().unwrap().to_owned();
    let event = Event::new(account, events::BILLING_UPDATED, serde_json::json!({"billing": {"id": 1}}));
    // And a task asking for a billet registration.
    let task =
        tasks::one(account, BilletRegistration::new(account, billing_api::values::BillingId::new(1), 1)).unwrap();
    let billing_api::store::Write::Put { item: task_item, .. } = &task else { panic!("a task is a put") };
    let task_keys = billing_api::store::KeyItem::keys_of(task_item);
    store.write(vec![billing_api::store::stored::put(&event, ()).unwrap(), task]).await.unwrap();

    // The stream records, pointed at that event and that task.
    let mut stream = fixture("outbox-dispatcher-stream.json");
    let change = &mut stream["Records"][0]["dynamodb"];
    let (event_pk, event_sk) = billing_api::store::stored::Stored::key(&event, ());
    change["Keys"]["pk"]["S"] = Value::String(event_pk);
    change["Keys"]["sk"]["S"] = Value::String(event_sk);
    let change = &mut stream["Records"][1]["dynamodb"];
    change["Keys"]["pk"]["S"] = Value::String(task_keys.0.clone());
    change["Keys"]["sk"]["S"] = Value::String(task_keys.1.clone());
    let stream: aws_lambda_events::dynamodb::Event = serde_json::from_value(stream).expect("a stream event");
    // Delivered twice, as a stream retry may: one delivery, one message.
    for _ in 0..2 {
        let response = billing_api::outbox::handle_stream(store, &server.queues, stream.clone()).await;
        assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    }
    assert!(billing_api::outbox::pending(store, billing_api::values::Timestamp::now(), 10).await.unwrap().is_empty());
    assert!(store.get(task_keys.0, task_keys.1).await.unwrap().is_none(), "a task handed on is deleted");
    let sqs = aws_sdk_sqs::Client::new(&server.config);
    let received = sqs.receive_message().queue_url(&server.billet_queue_url).max_number_of_messages(10).send().await;
    assert_eq!(received.unwrap().messages().len(), 1, "the task's message, sent once");
    let filter = billing_api::webhooks::deliveries::Filter::default();
    let (made, _) = billing_api::webhooks::deliveries::list(store, account, &filter, 10).await.unwrap();
    assert_eq!(made.len(), 1);

    // The SQS record, pointed at that delivery, through the sender.
    let mut message = fixture("webhook-sender-sqs.json");
    let body =
        serde_json::json!({"kind": "webhook_delivery", "account_id": account, "delivery_id": made[0].delivery_id});
    message["Records"][0]["body"] = Value::String(body.to_string());
    let message: SqsEvent = serde_json::from_value(message).expect("an SQS event");
    let sender = server.webhook_sender(Policy::LOCAL, Schedule::default());
    for _ in 0..2 {
        let response = sender.handle_batch(message.clone()).await;
        assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    }
    let got = receiver.received();
    assert_eq!(got.len(), 1, "delivered once");
    assert_eq!(got[0].header("webhook-id"), made[0].delivery_id);
    assert_eq!(got[0].body, event.body);
    assert_eq!(standard_webhooks_verify(&[(secret.as_str(), &got[0])])["ok"], true);
}

/// The point-of-sale fixtures, in the order they run, with their statuses.
const POINT_OF_SALE_EVENTS: [(&str, u16); 7] = [
    ("sales-list.json", 200),
    ("sales-show.json", 200),
    ("store-credits-create.json", 201),
    ("store-credits-list.json", 200),
    ("settlements-preview.json", 200),
    ("settlements-create.json", 201),
    ("settlements-show.json", 200),
];

#[tokio::test]
async fn the_point_of_sale_events_run_through_their_functions() {
    use billing_api::pos::sales::{self, Payment, SaleDraft};
    use billing_api::values::{ContactId, Money, PaymentKind};
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let server = infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await;
    let store = &server.store;
    let state = AppState::new(store.clone());
    let (account, _) = infra::testing::account(store, billing_api::accounts::AccountStatus::Active, true, true).await;
    // Contact 1 buys on account (sale 000001); contact 2 pays the settlements.
    infra::ops::create_bank_rule(store, account, "Banco simulado", "simulated", None).await.unwrap();
    let contacts = functions::http_app(billing_api::contacts::router(), state.clone());
    assert_eq!(run(&contacts, "contacts-create.json", account).await.0, 201);
    let mut payer: Value = serde_json::from_str(&event_for("contacts-create.json", account)).unwrap();
    let mut body: Value = serde_json::from_str(payer["body"].as_str().unwrap()).unwrap();
    body["contact"]["cpf"] = Value::String("111.444.777-35".into());
    payer["body"] = Value::String(body.to_string());
    let created = contacts.clone().oneshot(lambda_http::request::from_str(&payer.to_string()).unwrap()).await.unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let on_account = Payment { kind: PaymentKind::OnAccount, amount: Money::parse("50.00").unwrap() };
    let draft = SaleDraft {
        contact_id: Some(ContactId::new(1)),
        total: Some(Money::parse("50.00").unwrap()),
        items: vec![],
        payments: vec![on_account],
    };
    sales::create(store, account, &draft).await.unwrap();
    let changes = billing_api::accounts::AccountChanges {
        settlement_contact_id: Some(Some(ContactId::new(2))),
        ..Default::default()
    };
    billing_api::accounts::update(store, account, changes).await.unwrap();

    let app = functions::http_app(billing_api::pos::router(), state);
    let today = billing_api::values::today().to_string();
    for (name, status) in POINT_OF_SALE_EVENTS {
        // The settlement fixtures name a cutoff day; today's takes in the sale just made.
        let mut event: Value = serde_json::from_str(&event_for(name, account)).unwrap();
        if event["queryStringParameters"]["cutoff_at"].is_string() {
            event["queryStringParameters"]["cutoff_at"] = Value::String(today.clone());
            event["multiValueQueryStringParameters"]["cutoff_at"] = serde_json::json!([today]);
        }
        if let Some(text) = event["body"].as_str().filter(|b| b.contains("cutoff_at")) {
            let mut body: Value = serde_json::from_str(text).unwrap();
            body["receivable_settlement"]["cutoff_at"] = Value::String(today.clone());
            event["body"] = Value::String(body.to_string());
        }
        let request = lambda_http::request::from_str(&event.to_string())
            .unwrap_or_else(|e| panic!("{name} is not an API Gateway REST event: {e}"));
        let response = app.clone().oneshot(request).await.expect("the router answers");
        let got = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(got, status, "{name}: {}", String::from_utf8_lossy(&bytes));
    }
    // The settlement's message, pointed at this account, through the worker: completed.
    let mut message = fixture("settlement-sqs.json");
    let mut job: Value = serde_json::from_str(message["Records"][0]["body"].as_str().unwrap()).unwrap();
    job["account_id"] = account.get().into();
    message["Records"][0]["body"] = Value::String(job.to_string());
    let message: SqsEvent = serde_json::from_value(message).expect("an SQS event");
    let response = billing_api::pos::settlements::handle_batch(store, message).await;
    assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    let done = billing_api::pos::settlements::find(store, account, "acerto-2026-11").await.unwrap().unwrap();
    assert_eq!(done.state, billing_api::values::SettlementState::Completed);
    assert!(done.billing_id.is_some());
}

#[tokio::test]
async fn the_export_events_make_a_file_once() {
    let (_, store) = local_stack().await;
    let (account, _) = active_account(&store).await;
    let files = infra::testing::local_files(&billing_api::config::aws().await).await;
    let app = functions::http_app(functions::billing_routes(), AppState::new(store.clone()));
    let (status, made) = run(&app, "exports-create.json", account).await;
    assert_eq!((status, made["status"].as_str()), (202, Some("queued")), "{made}");
    // The step's message, pointed at that export, through the worker, twice: made once.
    let mut message = fixture("export-step-sqs.json");
    let mut job: Value = serde_json::from_str(message["Records"][0]["body"].as_str().unwrap()).unwrap();
    job["account_id"] = account.get().into();
    job["export_id"] = made["id"].clone();
    message["Records"][0]["body"] = Value::String(job.to_string());
    for _ in 0..2 {
        let event: SqsEvent = serde_json::from_value(message.clone()).expect("an SQS event");
        let response = billing_api::exports::step::handle_batch(&store, &files, event).await;
        assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));
    }
    let id = made["id"].as_str().unwrap();
    let done = billing_api::exports::find(&store, account, id).await.unwrap().unwrap();
    assert_eq!((done.status, done.rows_done, done.parts.len()), (billing_api::exports::Status::Done, 0, 1));
}

#[tokio::test]
async fn the_bank_file_events_run_through_their_functions() {
    use billing_api::billets::BilletStatus;
    use billing_api::values::{BilletId, BillingId};
    let (store, _, account) = billing_one_at("itau", Some("0057/12345-7/109")).await;
    assert!(run_sqs(&store, account).await.batch_item_failures.is_empty());
    let files = infra::testing::local_files(&billing_api::config::aws().await).await;
    let status = || async {
        let billet = billing_api::billets::model::find(&store, account, BillingId::new(1), BilletId::new(1)).await;
        billet.unwrap().expect("billet 1 of billing 1")
    };
    assert_eq!(status().await.status, BilletStatus::PendingRemittance);

    // The schedule's event: the job makes the file (this account's among any others due).
    let schedule: aws_lambda_events::eventbridge::EventBridgeEvent<Value> =
        serde_json::from_value(fixture("remittance-schedule.json")).expect("an EventBridge scheduled event");
    assert_eq!(schedule.detail_type, "Scheduled Event");
    let report = functions::remittance_run(&store, &files).await.expect("the job's report");
    assert!(report["failures"].as_array().is_some(), "{report}");
    let billet = status().await;
    assert_eq!(billet.status, BilletStatus::Remittanced);

    // The bank's return of it, put where the fixture's key says (under this account).
    let our_number = format!("{:08}", billet.our_sequential_number);
    let itau = &billing_api::billets::banks::itau::ITAU_240;
    let agreement = itau.agreement("0057/12345-7/109").unwrap();
    let title = serde_json::json!([{
        "movement": "02", "our_number": our_number, "dac": itau.rules.check_digit(&agreement, &our_number),
        "amount": 0, "reference": billing_api::payments::boleto::remittance::reference(BillingId::new(1), BilletId::new(1)),
    }]);
    let path = std::env::temp_dir().join(format!("return-event-{account}.ret"));
    let writer = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/cnab240/write_returns.py");
    let written = std::process::Command::new("python3")
        .arg(writer)
        .args(["--out", path.to_str().unwrap(), "--titles", &title.to_string()])
        .status()
        .expect("python3 runs the return writer");
    assert!(written.success());
    let key = format!("returns/{account}/RETORNO 0503.RET");
    files.put(&key, &std::fs::read(&path).unwrap()).await.unwrap();
    let _ = std::fs::remove_file(&path);
    let text = fixture("return-file-s3.json").to_string().replace("returns/1/", &format!("returns/{account}/"));
    let event: aws_lambda_events::s3::S3Event = serde_json::from_str(&text).expect("an S3 event");
    // Delivered twice: applied once.
    let first = billing_api::payments::boleto::returns::on_uploads(&store, &files, event.clone()).await.unwrap();
    assert_eq!((first[0].result, first[0].applied_now), ("applied", 1), "{first:?}");
    let second = billing_api::payments::boleto::returns::on_uploads(&store, &files, event).await.unwrap();
    assert_eq!((second[0].applied_now, second[0].already), (0, 1), "{second:?}");
    assert_eq!(status().await.status, BilletStatus::Opened);
}

/// The Pix functions' events: the PSP's webhook call for an account with no PSP link (nothing
/// changes), the removal of a charge the local PSP does not know (left as it is, no failure), and
/// the reconciliation's schedule (a report of every link).
#[tokio::test]
async fn the_pix_events_run_through_their_functions() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (config, store) = local_stack().await;
    let app = functions::pix_webhook_app(AppState::new(store.clone()));
    let request = lambda_http::request::from_str(&fixture("pix-webhook.json").to_string()).expect("a REST API event");
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body, serde_json::json!({"pix": [{"result": "not_ours"}]}));
    // Pix Automático's debit notice, of a debit this table never sent: not ours, answered 200.
    let request =
        lambda_http::request::from_str(&fixture("pix-automatico-webhook.json").to_string()).expect("a REST API event");
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body, serde_json::json!({"cobsr": [{"result": "unknown"}]}));

    // The secret the message names, holding the local PSP's credentials.
    let event: SqsEvent = serde_json::from_value(fixture("pix-charges-sqs.json")).expect("an SQS event");
    let message: Value = serde_json::from_str(event.records[0].body.as_deref().unwrap()).unwrap();
    let credentials = infra::ops::pix::local_credentials("11111111-2222-4333-8444-555555555555").unwrap();
    let secrets = aws_sdk_secretsmanager::Client::new(&config);
    billing_api::payments::secrets::store(&secrets, message["secret_id"].as_str().unwrap(), &credentials)
        .await
        .unwrap();
    let response = billing_api::payments::pix::handle_batch(&store, event).await;
    assert!(response.batch_item_failures.is_empty(), "an unknown charge is left as it is");

    let schedule: aws_lambda_events::eventbridge::EventBridgeEvent<Value> =
        serde_json::from_value(fixture("pix-reconcile-schedule.json")).expect("an EventBridge scheduled event");
    assert_eq!(schedule.detail_type, "Scheduled Event");
    let report = functions::pix_reconcile_run(&store).await.expect("the reconciliation's report");
    assert!(report["links"].is_array() && report["applied"].is_number(), "{report}");
}

/// The reminders' fixtures, run by [`the_reminder_events_run_through_their_functions`].
const REMINDER_EVENTS: [&str; 5] = [
    "reminder-schedule-show.json",
    "reminder-planner-schedule.json",
    "reminder-worker-sqs.json",
    "reminder-events-ses.json",
    "reminder-events-whatsapp.json",
];

/// The reminders' functions, each fixture pointed at a fresh account: the schedule shown by the
/// webhooks function (the default one), the day the planner's scheduled payload names, a send for
/// a billing that does not exist (nothing to send, no failure), and the providers' SNS events
/// about a delivery that does not exist (ignored).
#[tokio::test]
async fn the_reminder_events_run_through_their_functions() {
    use billing_api::reminders::providers::{Providers, LOCAL_SENDER};
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (config, store) = local_stack().await;
    let (account, _) = active_account(&store).await;

    let app = functions::http_app(functions::notification_routes(), AppState::new(store.clone()));
    let (status, body) = run(&app, "reminder-schedule-show.json", account).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["enabled"].as_bool(), body["default"].as_bool()), (Some(true), Some(true)), "{body}");
    assert!(body["steps"].as_array().is_some_and(|steps| !steps.is_empty()), "{body}");
    assert!(body["email_sender"].is_string(), "{body}");

    let day = functions::reminder_day(&fixture("reminder-planner-schedule.json")).expect("the payload's day");
    assert_eq!(day, chrono::NaiveDate::from_ymd_opt(2026, 11, 27).unwrap());
    assert_eq!(functions::reminder_day(&serde_json::json!({})).unwrap(), billing_api::values::today());

    // The worker, with a reminders queue of its own and providers it never reaches.
    let sqs = aws_sdk_sqs::Client::new(&config);
    let created = sqs.create_queue().queue_name(format!("reminders-events-{account}")).send().await.unwrap();
    let queues = billing_api::jobs::Queues::new(sqs, String::new()).with_reminders(created.queue_url.unwrap());
    let providers = Providers::new(&config, LOCAL_SENDER.to_owned(), None, 1_000.0);
    let mut message = fixture("reminder-worker-sqs.json");
    let mut job: Value = serde_json::from_str(message["Records"][0]["body"].as_str().unwrap()).unwrap();
    assert_eq!(job["kind"], "reminder");
    job["account_id"] = account.get().into();
    message["Records"][0]["body"] = Value::String(job.to_string());
    let message: SqsEvent = serde_json::from_value(message).expect("an SQS event");
    let response = billing_api::reminders::run::handle_batch(&store, &queues, &providers, message).await;
    assert_eq!(serde_json::to_value(&response).unwrap(), serde_json::json!({"batchItemFailures": []}));

    // The SNS notifications, their delivery's reference (`<account>_<billing>_<day>_<channel>`)
    // under this account.
    for name in ["reminder-events-ses.json", "reminder-events-whatsapp.json"] {
        let text = fixture(name).to_string().replace("1_1_2026-11-27_", &format!("{account}_1_2026-11-27_"));
        let event: aws_lambda_events::sns::SnsEvent =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} is not an SNS event: {e}"));
        assert_eq!(event.records.len(), 1, "{name}");
        assert!(event.records[0].sns.message.contains(&format!("{account}_1_2026-11-27_")), "{name}");
        let applied = functions::reminder_events(&store, event).await.expect("the events are applied");
        assert_eq!(applied, serde_json::json!({"recorded": 0, "ignored": 1}), "{name}");
    }
}

/// The card channel's fixtures: Stripe's call for an account without a gateway (404: nothing
/// changes); the same call re-signed with the secret of an account whose gateway is on, about an
/// intent the gateway does not know (taken, nothing changes: 200); and the availability step's
/// scheduled payload (the day it names; run twice, the second makes nothing available); a card
/// release of an account without a gateway and of an intent the gateway does not know (nothing
/// to cancel).
#[tokio::test]
async fn the_gateway_events_run_through_their_functions() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let app = functions::gateway_app(AppState::new(store.clone()));
    let request =
        lambda_http::request::from_str(&fixture("gateway-webhook.json").to_string()).expect("a REST API event");
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 404, "account 999999 has no gateway");

    let (account, _) = active_account(&store).await;
    let credentials =
        infra::ops::gateway::local_credentials(&store, account).expect("localstripe (infra/test starts it)");
    billing_api::payments::card::set_up(&store, account, &credentials, false).await.unwrap();
    let mut event = fixture("gateway-webhook.json");
    let path = format!("/gateway/stripe/{account}");
    event["path"] = Value::String(path.clone());
    event["pathParameters"]["account"] = Value::String(account.to_string());
    event["requestContext"]["path"] = Value::String(path);
    let body = event["body"].as_str().unwrap().to_owned();
    let signature = billing_api::payments::card::stripe::sign(
        body.as_bytes(),
        &credentials.webhook_secret,
        chrono::Utc::now().timestamp(),
    );
    event["headers"]["Stripe-Signature"] = Value::String(signature.clone());
    event["multiValueHeaders"]["Stripe-Signature"] = serde_json::json!([signature]);
    let request = lambda_http::request::from_str(&event.to_string()).expect("a REST API event");
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "an intent the gateway does not know: taken, nothing moves");

    let day = functions::reminder_day(&fixture("gateway-availability-schedule.json")).expect("the payload's day");
    // On the suite's shared table other tests' card payments may be due that day: the run makes
    // them available once, and the same day again makes none.
    let report = billing_api::payments::card::available::run(&store, day).await.unwrap();
    assert!(report.made_available <= report.found, "{report:?}");
    let again = billing_api::payments::card::available::run(&store, day).await.unwrap();
    assert_eq!(again.made_available, 0, "{again:?}");

    // A release for an account without a gateway (999999), then for one whose gateway does not
    // know the intent: nothing to cancel, no failure.
    let event: SqsEvent = serde_json::from_value(fixture("card-releases-sqs.json")).expect("an SQS event");
    let response = billing_api::payments::card::releases::handle_batch(&store, event.clone()).await;
    assert!(response.batch_item_failures.is_empty(), "no gateway, nothing to release");
    let mut event = serde_json::to_value(&event).unwrap();
    let mut job: Value = serde_json::from_str(event["Records"][0]["body"].as_str().unwrap()).unwrap();
    job["account_id"] = account.get().into();
    event["Records"][0]["body"] = Value::String(job.to_string());
    let event: SqsEvent = serde_json::from_value(event).expect("an SQS event");
    let response = billing_api::payments::card::releases::handle_batch(&store, event).await;
    assert!(response.batch_item_failures.is_empty(), "an intent the gateway does not know is left");
    // A cycle's charge to a card on file, for a billing that does not exist: nothing to charge.
    let event: SqsEvent = serde_json::from_value(fixture("card-on-file-sqs.json")).expect("an SQS event");
    let response = billing_api::payments::card::releases::handle_batch(&store, event).await;
    assert!(response.batch_item_failures.is_empty(), "no such billing, nothing to charge");
}

/// The schedules' run: a schedule made through the billings function, its day's messages put by
/// the planner, and the issuer's SQS fixture pointed at it: its cycle issued once.
#[tokio::test]
async fn the_schedule_events_run_through_their_functions() {
    std::env::set_var("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true");
    let (_, store) = local_stack().await;
    let state = AppState::new(store.clone());
    let (account, _) = active_account(&store).await;
    infra::ops::create_bank_rule(&store, account, "Banco simulado", "simulated", None).await.unwrap();
    infra::ops::create_category(&store, account, "Mensalidades", "receivable").await.unwrap();
    let contacts = functions::http_app(billing_api::contacts::router(), state.clone());
    assert_eq!(run(&contacts, "contacts-create.json", account).await.0, 201);
    let billings = functions::http_app(functions::billing_routes(), state.clone());
    let (status, schedule) = run(&billings, "schedules-create.json", account).await;
    assert_eq!(status, 201, "{schedule}");
    assert_eq!(schedule["billing_type"], "schedule");
    let issue_day = schedule["recurrence"]["next_issue_date"].as_str().expect("an issue day").to_owned();
    // A first cycle due to be billed today was billed by the create.
    let next = schedule["recurrence"]["cycles_issued"].as_u64().unwrap() as u32;

    // The planner's payload gives its day; the run of that day finds the schedule.
    let planned = functions::reminder_day(&fixture("schedule-planner-schedule.json")).expect("the payload's day");
    assert_eq!(planned.to_string(), "2026-12-01");
    let day: chrono::NaiveDate = issue_day.parse().unwrap();
    let (due, _) =
        billing_api::schedules::run::page(&store, day, schedule_shard(account, &schedule), None).await.unwrap();
    assert!(due.contains(&(account, billing_api::values::BillingId::new(schedule["id"].as_i64().unwrap()))));

    let mut event = fixture("schedule-cycles-sqs.json");
    let mut job: Value = serde_json::from_str(event["Records"][0]["body"].as_str().unwrap()).unwrap();
    job["account_id"] = account.get().into();
    job["schedule_id"] = schedule["id"].clone();
    job["day"] = Value::String(issue_day);
    event["Records"][0]["body"] = Value::String(job.to_string());
    let event: SqsEvent = serde_json::from_value(event).expect("an SQS event");
    for _ in 0..2 {
        let response = billing_api::schedules::run::handle_batch(&store, event.clone()).await;
        assert!(response.batch_item_failures.is_empty(), "{response:?}");
    }
    let id = billing_api::values::BillingId::new(schedule["id"].as_i64().unwrap());
    let billed = billing_api::billings::service::cycle_billing_of(&store, account, id, next).await.unwrap();
    assert!(billed.is_some(), "cycle {next} issued");
    let after = billing_api::billings::service::cycle_billing_of(&store, account, id, next + 1).await.unwrap();
    assert_eq!(after, None, "once");
}

/// The issuing index shard of a schedule (`keys::schedule::issue_index`).
fn schedule_shard(account: AccountId, schedule: &Value) -> i64 {
    (account.get() + schedule["id"].as_i64().unwrap())
        .rem_euclid(billing_api::store::keys::schedule::ISSUE_INDEX_SHARDS)
}
