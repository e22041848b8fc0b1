//! Read cost of `GET /v1/billings` on one account holding many billings (default 10,000): fills the
//! account on the local stack, then asks the API (the dev server's router, in this process) for
//! list pages and prints, per request, the DynamoDB round trips and read units it cost. Read units
//! are computed from the items read by DynamoDB's sizing rules (`billing_api::store::meter`),
//! because moto reports a fixed `ConsumedCapacity`. Run it with `infra/bench`.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use billing_api::app::AppState;
use billing_api::auth::AuthCache;
use billing_api::billings::model::{Billing, BillingItem};
use billing_api::billings::postings;
use billing_api::store::meter::ReadMeter;
use billing_api::store::records::item_of;
use billing_api::store::{keys, Item, Store};
use billing_api::values::{
    BankRuleId, BillingId, BillingItemId, BillingStatus, BillingType, ContactId, Money, Timestamp, ValueKind,
};
use serde_json::{json, Value};

const CONTACTS: usize = 20;

fn billing(id: i64, contact: ContactId, bank_rule: BankRuleId, now: Timestamp) -> Billing {
    let status = match id % 10 {
        0 => BillingStatus::Paid,
        1 => BillingStatus::Canceled,
        _ => BillingStatus::Opened,
    };
    let due_date = chrono::NaiveDate::from_ymd_opt(2026, 6, 1).expect("date") + chrono::Days::new((id % 700) as u64);
    let item = |n: i64, description: &str, amount: &str| BillingItem {
        id: BillingItemId::new(n),
        description: description.into(),
        quantity: 1,
        amount: Money::parse(amount).expect("amount"),
    };
    Billing {
        your_code: Some(format!("ERP-{id}")),
        status,
        amount: Money::parse("150.00").expect("amount"),
        evincive: Some(format!("Contrato de prestação de serviços {id}")),
        observation: Some("Mensalidade do plano".into()),
        penalty_type: Some(ValueKind::Percentage),
        penalty: Some("2".parse().expect("rate")),
        bank_rule_id: Some(bank_rule),
        contact_id: Some(contact),
        items: vec![item(id * 2, "Mensalidade", "140.00"), item(id * 2 + 1, "Taxa", "10.00")],
        ..Billing::blank(BillingId::new(id), BillingType::Billing, due_date, now)
    }
}

const SURNAMES: [&str; CONTACTS] = [
    "Almeida", "Barbosa", "Cardoso", "Dias", "Esteves", "Ferreira", "Gomes", "Honorato", "Isidoro", "Jardim", "Lima",
    "Moreira", "Nunes", "Oliveira", "Pereira", "Queiroz", "Ribeiro", "Santos", "Teixeira", "Vieira",
];

/// Writes the items 25 per `BatchWriteItem`, several batches at once.
async fn put_all(store: &Store, items: Vec<Item>) -> anyhow::Result<()> {
    use futures::stream::{self, StreamExt, TryStreamExt};
    let batches: Vec<Vec<Item>> = items.chunks(25).map(<[Item]>::to_vec).collect();
    stream::iter(batches)
        .map(|batch| async move {
            let requests: Vec<WriteRequest> = batch
                .into_iter()
                .map(|item| {
                    let put = PutRequest::builder().set_item(Some(item)).build()?;
                    Ok::<_, anyhow::Error>(WriteRequest::builder().put_request(put).build())
                })
                .collect::<Result<_, _>>()?;
            let mut pending = Some(std::collections::HashMap::from([(store.table().to_owned(), requests)]));
            while let Some(items) = pending.take() {
                let output = store.client().batch_write_item().set_request_items(Some(items)).send().await?;
                pending = output.unprocessed_items.filter(|u| !u.is_empty());
            }
            Ok::<_, anyhow::Error>(())
        })
        .buffer_unordered(4)
        .try_collect::<Vec<_>>()
        .await?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let count: i64 = std::env::var("BENCH_BILLINGS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let (_config, store) = infra::testing::local_stack().await;
    let meter = Arc::new(ReadMeter::default());
    let metered = store.clone().with_meter(meter.clone());
    let (account, auth) = infra::testing::active_account(&store).await;

    // Only the list's own reads are measured: the rate-limit counters are not in the way.
    let state = AppState::new(metered).with_rate_limits(billing_api::rate_limit::RateLimits::OFF);
    let router = infra::dev_server::router(state, AuthCache::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(infra::dev_server::serve(listener, router, std::future::pending()));
    let http = billing_api::config::http_client();
    let call = |method: reqwest::Method, path: String, body: Option<Value>| {
        let request = http.request(method, format!("{base}{path}")).header("Authorization", &auth);
        async move {
            let request = match body {
                Some(body) => request.json(&body),
                None => request,
            };
            let response = request.send().await.context("request")?;
            let total = response.headers().get("x-total-count").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let body: Value = response.json().await.context("JSON body")?;
            Ok::<_, anyhow::Error>((body, total))
        }
    };

    eprintln!("filling account {account} with {count} billings…");
    let started = Instant::now();
    let rule = infra::ops::create_bank_rule(&store, account, "Banco simulado", "simulated", None).await?;
    let bank_rule = BankRuleId::new(rule["bank_rule"]["id"].as_i64().context("bank rule id")?);
    let mut contacts = Vec::new();
    for (i, surname) in SURNAMES.iter().enumerate() {
        let body = json!({"contact": {"full_name": format!("Cliente {surname}"), "cpf": infra::testing::cpf(100_000_000 + i as u64),
            "email": format!("c{i}@example.com"),
            "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
            "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
        let (created, _) = call(reqwest::Method::POST, "/v1/contacts".into(), Some(body)).await?;
        contacts
            .push(ContactId::new(created["id"].as_i64().with_context(|| format!("contact not created: {created}"))?));
    }
    let now = Timestamp::now();
    let mut items = Vec::new();
    for id in 1..=count {
        let b = billing(id, contacts[(id as usize) % CONTACTS], bank_rule, now);
        items.push(item_of(account, &b)?);
        items.extend(postings::items(account, &b));
    }
    items.push(Item::from([
        ("pk".to_owned(), AttributeValue::S(keys::billing_count_shards(account, BillingType::Billing.as_str()))),
        ("sk".to_owned(), AttributeValue::S(keys::count_shard(0))),
        ("value".to_owned(), AttributeValue::N(count.to_string())),
    ]));
    put_all(&store, items).await?;
    eprintln!("filled in {:.1} s", started.elapsed().as_secs_f64());

    // The first request pays the authorizer's reads; it is not measured.
    call(reqwest::Method::GET, "/v1/billings?per_page=1".into(), None).await?;
    meter.take();
    let sample_contact = contacts[3];
    let cases = [
        ("page 1, per_page=100".to_owned(), "/v1/billings?per_page=100".to_owned()),
        ("page 50, per_page=100".to_owned(), "/v1/billings?per_page=100&page=50".to_owned()),
        ("page 100, per_page=100".to_owned(), "/v1/billings?per_page=100&page=100".to_owned()),
        ("page 1, default per_page=25".to_owned(), "/v1/billings".to_owned()),
        ("filtered: status=opened, page 1".to_owned(), "/v1/billings?status=opened&per_page=100".to_owned()),
        ("filtered: status=opened, page 50".to_owned(), "/v1/billings?status=opened&per_page=100&page=50".to_owned()),
        ("filtered: contact_id, page 1".to_owned(), format!("/v1/billings?contact_id={sample_contact}&per_page=100")),
        ("filtered: s=<contact name>".to_owned(), "/v1/billings?s=Cliente%20Honorato&per_page=100".to_owned()),
    ];
    println!("| request ({count} billings) | rows | X-Total-Count | round trips | read units | KB read | ms (moto) |");
    println!("|---|---|---|---|---|---|---|");
    for (name, path) in cases {
        let started = Instant::now();
        let (body, total) = call(reqwest::Method::GET, path, None).await?;
        let elapsed = started.elapsed().as_millis();
        let reading = meter.take();
        let rows = body["billings"].as_array().map_or(0, Vec::len);
        println!(
            "| {name} | {rows} | {} | {} | {:.1} | {:.0} | {elapsed} |",
            total.unwrap_or_default(),
            reading.round_trips,
            reading.read_units,
            reading.bytes as f64 / 1024.0
        );
    }
    Ok(())
}
