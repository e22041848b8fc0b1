//! Where one account's burst writes (`docs/data-model.md`): the write units each
//! partition key takes for a burst of billing creates (each with its billet's registration and the
//! outbox's handing on) and for a bulk billing of many customers (its expansion and
//! registrations), scaled to 1,000 creates (billings) a second; and the transactions a create
//! sends when transactions conflict as on DynamoDB.
//!
//! Run with `infra/bench partitions`, which puts the fault proxy in front of a private moto server
//! with only its conflicts on (transactions hold their items 20 ms; no throttles, 500s or
//! duplicates): the units are computed from the items sent by `infra::meter` (moto reports fixed
//! figures), every attempt counted. `BENCH_CREATES` (default 2,000) creates, `BENCH_IN_FLIGHT`
//! (default 50) at once; `BENCH_BULK` (default 10,000) customers.

use std::time::Instant;

use anyhow::Context as _;
use billing_api::app::AppState;
use billing_api::auth::AuthCache;
use billing_api::store::Store;
use billing_api::values::TagId;
use futures::stream::{self, StreamExt};
use infra::meter::{Cost, Meter};
use infra::workers::Worker;
use serde_json::{json, Value};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The API in this process on a metered store, its queues, and what hands its outbox on.
struct Bench {
    base: String,
    auth: String,
    http: reqwest::Client,
    meter: Meter,
    store: Store,
    stream: billing_api::outbox::LocalStream,
    queues: billing_api::jobs::Queues,
    sqs: aws_sdk_sqs::Client,
    billets: String,
    bulk: String,
}

impl Bench {
    async fn post(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Authorization", &self.auth)
            .json(body)
            .send()
            .await?;
        let status = response.status().as_u16();
        Ok((status, response.json().await.unwrap_or(Value::Null)))
    }

    /// Whether no bulk expansion of the account is still running.
    async fn expansion_over(&self, account: billing_api::values::AccountId) -> anyhow::Result<bool> {
        let running = self.store.items_with_prefix(
            billing_api::store::keys::account(account),
            billing_api::store::keys::billing::BULK_EXPANSION_PREFIX.to_owned(),
            true,
        );
        Ok(running.await?.is_empty())
    }

    /// Hands the outbox on and runs `worker` over `queue` until both are empty.
    async fn drain(&self, queue: &str, worker: &Worker) -> anyhow::Result<()> {
        loop {
            self.stream.dispatch(&self.store, &self.queues).await;
            let mut handled = 0;
            // The worker as its event source mapping runs it: ten batches at once.
            let rounds = (0..10).map(|_| infra::workers::worker_round(&self.sqs, queue, worker, 0));
            for round in futures::future::join_all(rounds).await {
                handled += round?.bodies.len();
            }
            if handled == 0 {
                return Ok(());
            }
        }
    }
}

/// The ten partitions that took the most write units, as units a second at 1,000 of `per` a
/// second: the rows of the report.
fn report(title: &str, cost: &Cost, count: usize, per: &str) {
    let mut partitions: Vec<(&String, &f64)> = cost.by_partition.iter().collect();
    partitions.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    println!(
        "\n{title}: {count} {per}s, {:.1} write units per {per}, {} partition keys written\n",
        cost.write_units / count as f64,
        cost.by_partition.len()
    );
    println!("| partition key | write units per {per} | write units a second at 1,000 {per}s a second |");
    println!("|---|---:|---:|");
    for (partition, units) in partitions.into_iter().take(10) {
        let per_one = units / count as f64;
        println!("| `{partition}` | {per_one:.3} | {:.0} |", per_one * 1000.0);
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let creates = env_or("BENCH_CREATES", 2_000);
    let in_flight = env_or("BENCH_IN_FLIGHT", 50);
    let customers = env_or("BENCH_BULK", 10_000);
    let (config, plain) = infra::testing::local_stack().await;
    let meter = Meter::default();
    let (store, stream) =
        infra::dev_server::streamed_store(Store::new(meter.client(&config), plain.table().to_owned()));
    let (account, auth) = infra::testing::active_account(&plain).await;
    let bench = Bench::start(&config, auth, meter, store, stream).await?;
    let (body, tag) = a_billing(&bench, &plain, account).await?;
    burst(&bench, &body, creates, in_flight).await?;
    bulk(&bench, &plain, account, &body, tag, customers).await
}

impl Bench {
    /// The API on the metered `store`, served on a free port, with queues of its own.
    async fn start(
        config: &aws_config::SdkConfig,
        auth: String,
        meter: Meter,
        store: Store,
        stream: billing_api::outbox::LocalStream,
    ) -> anyhow::Result<Bench> {
        let sqs = aws_sdk_sqs::Client::new(config);
        let queue = |name: &str| {
            let name = format!("bench-{name}-{:016x}", rand::random::<u64>());
            let sqs = sqs.clone();
            async move { sqs.create_queue().queue_name(name).send().await?.queue_url.context("queue url") }
        };
        let (billets, bulk) = (queue("billets").await?, queue("bulk").await?);
        let queues = billing_api::jobs::Queues::new(sqs.clone(), billets.clone()).with_bulk_expansion(bulk.clone());
        let state = AppState::new(store.clone()).with_rate_limits(billing_api::http::rate_limit::RateLimits::OFF);
        let router = infra::dev_server::router(state, AuthCache::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}/v1", listener.local_addr()?);
        tokio::spawn(infra::dev_server::serve(listener, router, std::future::pending()));
        Ok(Bench {
            base,
            auth,
            http: billing_api::config::http_client(),
            meter,
            store,
            stream,
            queues,
            sqs,
            billets,
            bulk,
        })
    }
}

/// What a billing needs (a bank rule, a category, a payer) and a tag for the bulk billing: the
/// body of a create, and the tag.
async fn a_billing(
    bench: &Bench,
    plain: &Store,
    account: billing_api::values::AccountId,
) -> anyhow::Result<(Value, i64)> {
    infra::ops::create_bank_rule(plain, account, "Banco simulado", "simulated", None).await?;
    infra::ops::create_category(plain, account, "Mensalidades", "receivable").await?;
    let payer = json!({"contact": {"full_name": "Maria da Silva", "cpf": "529.982.247-25",
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    let (_, payer) = bench.post("/contacts", &payer).await?;
    let tag = bench.post("/tags", &json!({"tag": {"name": "Todos"}})).await?.1["id"].as_i64().context("tag")?;
    let body = json!({"billing": {"bank_rule_id": 1, "bill_category_id": 1, "contact_id": payer["id"], "due_date": "2030-03-04",
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
    Ok((body, tag))
}

/// A burst of creates of one account and one payer, then their registrations: the transactions a
/// create sends and the write units each partition takes.
async fn burst(bench: &Bench, body: &Value, creates: usize, in_flight: usize) -> anyhow::Result<()> {
    bench.meter.take();
    let started = Instant::now();
    let answers: Vec<u16> = stream::iter(0..creates)
        .map(|_| async { bench.post("/billings", body).await.map(|(status, _)| status).unwrap_or(0) })
        .buffer_unordered(in_flight)
        .collect()
        .await;
    let seconds = started.elapsed().as_secs_f64();
    let created = bench.meter.take();
    anyhow::ensure!(
        answers.iter().all(|s| *s == 201),
        "creates answered {:?}",
        answers.iter().filter(|s| **s != 201).collect::<Vec<_>>()
    );
    bench.drain(&bench.billets, &Worker::BilletRegistrar { store: bench.store.clone() }).await?;
    let registered = bench.meter.take();
    let mut both = created.clone();
    for (partition, units) in &registered.by_partition {
        *both.by_partition.entry(partition.clone()).or_insert(0.0) += units;
    }
    both.write_units += registered.write_units;
    println!(
        "# {creates} creates of one account, {in_flight} at once, through the fault proxy's conflicts: {:.0} creates a second here; {:.3} transactions per create ({:.2} with its registration)",
        creates as f64 / seconds,
        created.transactions as f64 / creates as f64,
        (created.transactions + registered.transactions) as f64 / creates as f64
    );
    report("Creates and their registrations", &both, creates, "create");
    Ok(())
}

/// A bulk billing of `customers` holders of `tag`: its expansion and registrations.
async fn bulk(
    bench: &Bench,
    plain: &Store,
    account: billing_api::values::AccountId,
    body: &Value,
    tag: i64,
    customers: usize,
) -> anyhow::Result<()> {
    let holders = infra::testing::tagged_customers(plain, account, TagId::new(tag), customers).await;
    let mut bulk_body = body.clone();
    bulk_body["billing"]["billing_issue_type"] = json!("bulk");
    bulk_body["billing"]["tag_id"] = json!(tag);
    bench.meter.take();
    let started = Instant::now();
    let (status, accepted) = bench.post("/billings", &bulk_body).await?;
    anyhow::ensure!(status == 202 && accepted["contacts_count"] == holders.len(), "bulk: {status} {accepted}");
    // The expander and the registrar at once, as on AWS (and so that moto's registration queue,
    // whose every send costs its length, stays short).
    let registrar = Worker::BilletRegistrar { store: bench.store.clone() };
    let expander = Worker::BulkExpander { store: bench.store.clone() };
    let expanded = async {
        bench.drain(&bench.bulk, &expander).await?;
        anyhow::Ok(started.elapsed().as_secs_f64())
    };
    let registering = async {
        // Until the expansion is over and its last registrations are handled.
        while !bench.expansion_over(account).await? {
            bench.drain(&bench.billets, &registrar).await?;
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        bench.drain(&bench.billets, &registrar).await
    };
    let (expanded_in, ()) = tokio::try_join!(expanded, registering)?;
    let cost = bench.meter.take();
    println!(
        "\n# A bulk billing of {customers} customers: expanded in {expanded_in:.0} s here ({:.0} billings a second), {:.3} transactions per billing with the registrations",
        customers as f64 / expanded_in,
        cost.transactions as f64 / customers as f64
    );
    report("Bulk expansion and registrations", &cost, customers, "billing");
    Ok(())
}
