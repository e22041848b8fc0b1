//! Webhook benchmark on the local stack (run it with `infra/bench webhooks`):
//!
//! 1. **Throughput**: BENCH_DELIVERIES events (default 2,000) for one account with one receiver (a
//!    local HTTP server answering 200) go through the dispatcher in stream batches of 100, then
//!    through one sender in SQS batches of 10 (handled at once), as Lambda hands them over:
//!    events dispatched and deliveries sent per second.
//! 2. **Change to delivery**: BENCH_CHANGES changes (default 30) of a billing through the API, one
//!    after the other, each timed from the `PATCH` to its arrival at the receiver, with the path
//!    the dev server runs (outbox swept every 0.5 s, the sender polling its queue).
//!
//! Figures depend on the machine and on moto (a Python emulator serialising every call), so they
//! bound the service's own work from above rather than predict DynamoDB's.

use infra::bench_stats::{ms, percentile, setting};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use aws_lambda_events::dynamodb::Event as StreamEvent;
use aws_lambda_events::sqs::{SqsEvent, SqsMessage};
use billing_api::events::{self, Event};
use billing_api::http::rate_limit::RateLimits;
use billing_api::store::stored::{self, Stored as _};
use billing_api::values::{AccountId, WebhookId};
use billing_api::webhooks::deliveries;
use billing_api::webhooks::{Policy, Schedule};
use infra::testing::{active_account, DevServer};
use infra::webhook_receiver::Receiver;
use serde_json::json;

/// A stream batch of these event keys, as the table's stream hands new events to the dispatcher.
fn stream_batch(keys: &[(String, String)]) -> StreamEvent {
    let records: Vec<serde_json::Value> = keys
        .iter()
        .enumerate()
        .map(|(n, (pk, sk))| {
            json!({"eventID": n.to_string(), "eventName": "INSERT", "awsRegion": "us-east-1", "dynamodb": {
                "Keys": {"pk": {"S": pk}, "sk": {"S": sk}}, "SequenceNumber": format!("{n:024}"),
                "SizeBytes": 100, "StreamViewType": "KEYS_ONLY", "ApproximateCreationDateTime": 1795352400}})
        })
        .collect();
    serde_json::from_value(json!({ "Records": records })).expect("a stream event")
}

/// An SQS batch of webhook-delivery messages, as the event source mapping hands it over.
fn sqs_batch(account: AccountId, delivery_ids: &[String]) -> SqsEvent {
    let mut batch = SqsEvent::default();
    for id in delivery_ids {
        let mut message = SqsMessage::default();
        message.message_id = Some(id.clone());
        message.body = Some(json!({"kind": "webhook_delivery", "account_id": account, "delivery_id": id}).to_string());
        batch.records.push(message);
    }
    batch
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let deliveries = setting::<usize>("BENCH_DELIVERIES").unwrap_or(2_000);
    let changes = setting::<usize>("BENCH_CHANGES").unwrap_or(30);
    let mut rows: Vec<(String, String)> = Vec::new();
    rows.extend(throughput(deliveries).await?);
    rows.extend(change_to_delivery(changes).await?);

    println!("Webhook benchmark (local stack: moto on 127.0.0.1; receiver and sender in this process)");
    println!();
    println!("| measure | result |");
    println!("|---|---|");
    for (measure, result) in rows {
        println!("| {measure} | {result} |");
    }
    Ok(())
}

/// Part 1, one sender's throughput: `deliveries` events written, dispatched and delivered; its
/// rows.
async fn throughput(deliveries: usize) -> anyhow::Result<Vec<(String, String)>> {
    let server = DevServer::start_alone(RateLimits::OFF).await;
    let (account, _) = active_account(&server.store).await;
    let receiver = Receiver::start(&[], 200).await;
    let added = server.webhook_ops().add(account, &receiver.url).await?;
    let receiver_id = WebhookId::new(added["webhook"]["id"].as_i64().context("receiver id")?);
    let written = Instant::now();
    let made: Vec<Event> =
        (0..deliveries).map(|n| Event::new(account, events::BILLING_UPDATED, json!({"billing": {"id": n}}))).collect();
    for chunk in made.chunks(25) {
        let writes = chunk.iter().map(|event| stored::put(event, ())).collect::<Result<Vec<_>, _>>()?;
        server.store.write(writes).await.context("write events")?;
    }
    let written = written.elapsed();
    // The dispatcher as the stream invokes it (batches of 100 new events), each batch onto a fresh
    // queue: moto's queue answers in time proportional to its length (2,000 messages: 56 ms a
    // send, 1.5 s a receive) where SQS does not.
    let sqs = aws_sdk_sqs::Client::new(&server.config);
    let pending: Vec<(String, String)> = made.iter().map(|e| e.key(())).collect();
    let mut dispatching = Duration::ZERO;
    for (n, chunk) in pending.chunks(100).enumerate() {
        let url =
            sqs.create_queue().queue_name(format!("bench-dispatch-{n}")).send().await?.queue_url.context("url")?;
        let queues = billing_api::jobs::Queues::new(sqs.clone(), String::new()).with_webhook_deliveries(url.clone());
        let batch = stream_batch(chunk);
        let started = Instant::now();
        let response = billing_api::outbox::handle_stream(&server.store, &queues, batch).await;
        dispatching += started.elapsed();
        anyhow::ensure!(response.batch_item_failures.is_empty(), "the dispatcher failed a batch");
        sqs.delete_queue().queue_url(url).send().await?;
    }
    // One sender instance: batches of 10 messages, one after the other, as Lambda hands them over.
    let sender = server.webhook_sender(Policy::LOCAL, Schedule::default());
    let ids: Vec<String> = made.iter().map(|event| deliveries::delivery_id(&event.event_id, receiver_id)).collect();
    let sending = Instant::now();
    for chunk in ids.chunks(10) {
        let response = sender.handle_batch(sqs_batch(account, chunk)).await;
        anyhow::ensure!(response.batch_item_failures.is_empty(), "the sender failed a message");
    }
    let sending = sending.elapsed();
    anyhow::ensure!(receiver.received().len() == deliveries, "{} deliveries arrived", receiver.received().len());
    let rate = |n: usize, d: Duration| {
        format!("{:.0} per second ({n} in {:.1} s)", n as f64 / d.as_secs_f64(), d.as_secs_f64())
    };
    Ok(vec![
        ("events written (25 per transaction)".into(), rate(deliveries, written)),
        ("events dispatched (stream batches of 100, 1 receiver)".into(), rate(deliveries, dispatching)),
        ("deliveries sent by one sender (batches of 10 at once)".into(), rate(deliveries, sending)),
    ])
}

/// Part 2, from a change to its delivery on the dev server's path: `changes` changes of a billing
/// one after the other; its rows.
async fn change_to_delivery(changes: usize) -> anyhow::Result<Vec<(String, String)>> {
    let server = DevServer::start_alone(RateLimits::OFF).await;
    let (account, auth) = active_account(&server.store).await;
    let receiver = Receiver::start(&[], 200).await;
    server.webhook_ops().add(account, &receiver.url).await?;
    server.start_webhooks(Schedule::default());
    let http = billing_api::config::http_client();
    let rule = infra::ops::create_bank_rule(&server.store, account, "Banco simulado", "simulated", None).await?;
    let create =
        |path: &'static str, body: serde_json::Value| infra::bench_stats::create(&http, &server, &auth, path, body);
    let contact = create("/v1/contacts", infra::bench_stats::payer()).await?;
    let billing = create("/v1/billings", json!({"billing": {"bank_rule_id": rule["bank_rule"]["id"], "contact_id": contact,
        "due_date": "2030-03-04", "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}}))
    .await?;
    let path = format!("/v1/billings/{billing}");
    let mut latencies = Vec::with_capacity(changes);
    for n in 0..changes {
        let observation = format!("change {n}");
        let change = json!({"billing": {"observation": observation}});
        let started = Instant::now();
        let answer = http.patch(server.url(&path)).header("Authorization", &auth).json(&change).send().await?;
        anyhow::ensure!(answer.status().is_success(), "PATCH answered {}", answer.status());
        let arrived = loop {
            let found = receiver
                .received()
                .into_iter()
                .find(|r| r.json()["data"]["billing"]["observation"] == observation.as_str());
            if let Some(found) = found {
                break found.at;
            }
            anyhow::ensure!(started.elapsed() < Duration::from_secs(30), "change {n} was not delivered in 30 s");
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        latencies.push(arrived - started);
    }
    latencies.sort();
    Ok(vec![
        (format!("change to delivery, p50 of {changes}"), ms(percentile(&latencies, 0.5))),
        (format!("change to delivery, p95 of {changes}"), ms(percentile(&latencies, 0.95))),
        (format!("change to delivery, max of {changes}"), ms(*latencies.last().expect("changes"))),
    ])
}
