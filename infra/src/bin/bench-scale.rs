//! The scale report (`docs/data-model.md`): what each request costs as an account grows.
//! Fills one account on a private moto server with 10,000 billings and 10,000 contacts, measures
//! every billing list filter (page 1 and the last page), the contact lists, create, show, update
//! and bulk expansion per billing; then adds 90,000 billings of other contacts, codes, bank rules
//! and categories and measures the same again; between the two, the `202` of a bulk billing on a
//! tag of BENCH_BULK_TAG holders (default 100,000), without and with an excluded tag, and a search
//! for the holder that sorts last by name (the holders are written with their postings, so the
//! contact lists of the second size count them). Each row:
//! DynamoDB calls, the sequential round trips among them, read and write units (computed by
//! `infra::meter` from the items, as moto reports fixed figures) and milliseconds against moto
//! (which scans where DynamoDB seeks: the times grow with the table, the units are what DynamoDB
//! would charge).
//!
//! Run with `infra/bench scale` (`BENCH_BILLINGS` = the sizes after the first, default 100,000;
//! `100000,1000000` measures at 10,000, 100,000 and 1,000,000; `BENCH_ENGINE=dynalite` for a
//! million, which moto cannot hold).

use std::time::{Duration, Instant};

use anyhow::Context as _;
use aws_sdk_dynamodb::types::AttributeValue;
use billing_api::app::AppState;
use billing_api::auth::AuthCache;
use billing_api::billings::model::{Billing, BillingItem};
use billing_api::billings::postings;
use billing_api::contacts::Contact;
use billing_api::store::counting::Counting as _;
use billing_api::store::records::{item_of, Record as _};
use billing_api::store::{keys, Item, Store};
use billing_api::values::{
    BankRuleId, BillCategoryId, BillingId, BillingItemId, BillingStatus, BillingType, ContactId, ContactType, Cpf,
    GroupId, Money, TagId, Timestamp,
};
use infra::meter::Meter;
use serde_json::{json, Value};

/// The account's own payers, made through the API.
const SURNAMES: [&str; 20] = [
    "Almeida", "Barbosa", "Cardoso", "Dias", "Esteves", "Ferreira", "Gomes", "Honorato", "Isidoro", "Jardim", "Lima",
    "Moreira", "Nunes", "Oliveira", "Pereira", "Queiroz", "Ribeiro", "Santos", "Teixeira", "Vieira",
];
const FIRST_SIZE: i64 = 10_000;
const CONTACTS: i64 = 10_000;
/// Holders of the bulk tag.
const TAGGED: i64 = 100;
const PER_PAGE: usize = 100;

/// What the filled billings refer to.
struct World {
    ours: Vec<ContactId>,
    rules: [BankRuleId; 3],
    categories: [BillCategoryId; 3],
    others: Vec<ContactId>,
    group: GroupId,
    tag: TagId,
}

/// Billing `n` of the first 10,000 (`ours`) or of the rest (other contacts, code, rule, category).
fn billing(id: i64, n: i64, world: &World, now: Timestamp) -> Billing {
    let ours = n <= FIRST_SIZE;
    let status = match n % 10 {
        0 => BillingStatus::Paid,
        1 => BillingStatus::Canceled,
        _ => BillingStatus::Opened,
    };
    let due_date = chrono::NaiveDate::from_ymd_opt(2026, 6, 1).expect("date") + chrono::Days::new((n % 700) as u64);
    let items = vec![BillingItem {
        id: BillingItemId::new(id),
        description: "Mensalidade".into(),
        quantity: 1,
        amount: Money::parse("150.00").expect("amount"),
    }];
    let (contact, rule, category, code) = match ours {
        true => (
            world.ours[(n % 20) as usize],
            world.rules[(n % 2) as usize],
            world.categories[(n % 2) as usize],
            format!("ERP-{}", n % 1000),
        ),
        false => (
            world.others[(n % world.others.len() as i64) as usize],
            world.rules[2],
            world.categories[2],
            format!("OTH-{n}"),
        ),
    };
    Billing {
        your_code: Some(code),
        status,
        amount: Money::parse("150.00").expect("amount"),
        evincive: Some(format!("Contrato de prestação de serviços {n}")),
        bank_rule_id: Some(rule),
        bill_category_id: Some(category),
        contact_id: Some(contact),
        items,
        ..Billing::blank(BillingId::new(id), BillingType::Billing, due_date, now)
    }
}

/// Contact `n` of the filled ones: customers (one in fifty a supplier), one in ten inactive, one
/// in twenty in the group, the first [`TAGGED`] customers holding the tag.
fn contact(id: ContactId, n: i64, world: &World, now: Timestamp) -> Contact {
    let supplier = n % 50 == 0;
    Contact {
        contact_type: if supplier { ContactType::Supplier } else { ContactType::Customer },
        active: n % 10 != 0,
        full_name: Some(format!("Pessoa Numero {}", letters(n))),
        cpf: Cpf::parse(&infra::testing::cpf(200_000_000 + n as u64)),
        email: Some(format!("p{n}@example.com")),
        code: Some(format!("C{n}")),
        group_id: (n % 20 == 0).then_some(world.group),
        tag_ids: if !supplier && n % 10 != 0 && n <= TAGGED * 2 { vec![world.tag] } else { Vec::new() },
        created_at: Some(now),
        updated_at: Some(now),
        version: 1,
        ..Contact::blank(id)
    }
}

/// A number spelled in letters (names are letters only).
fn letters(n: i64) -> String {
    format!("{n:05}").bytes().map(|d| char::from(b'a' + d - b'0')).collect()
}

/// The API in this process on the metered store, and what a request cost.
struct Bench {
    base: String,
    auth: String,
    http: reqwest::Client,
    meter: Meter,
}

/// One answer and its cost.
struct Measured {
    status: u16,
    body: Value,
    total: Option<usize>,
    cost: infra::meter::Cost,
    ms: f64,
}

impl Bench {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> anyhow::Result<Measured> {
        let request = self.http.request(method, format!("{}{path}", self.base)).header("Authorization", &self.auth);
        let request = match body {
            Some(body) => request.json(&body),
            None => request,
        };
        self.settle().await;
        let started = Instant::now();
        let response = request.send().await.context("request")?;
        let status = response.status().as_u16();
        let total = response.headers().get("x-total-count").and_then(|v| v.to_str().ok()?.parse().ok());
        let text = response.text().await.context("body")?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let cost = self.meter.take();
        let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).context("JSON body")? };
        Ok(Measured { status, body, total, cost, ms })
    }

    /// Waits until the table has had no call for 300 ms (5 s at most) and starts the meter from
    /// zero: what a request before this one handed on (its outbox record, the billet it asked for)
    /// is not counted as this one's.
    async fn settle(&self) {
        let mut quiet = 0;
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            quiet = if self.meter.take().calls == 0 { quiet + 1 } else { 0 };
            if quiet == 3 {
                break;
            }
        }
        self.meter.take();
    }
}

fn row(size: &str, name: &str, rows: usize, total: &str, cost: &infra::meter::Cost, ms: f64) {
    println!(
        "| {size} | {name} | {rows} | {total} | {} | {} | {:.1} | {:.1} | {ms:.0} |",
        cost.sequential, cost.calls, cost.read_units, cost.write_units
    );
}

/// Page 1, a page in the middle and the last page of a list.
async fn list(bench: &Bench, size: &str, name: &str, path: &str, key: &str) -> anyhow::Result<()> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let first = bench.call(reqwest::Method::GET, &format!("{path}{sep}per_page={PER_PAGE}"), None).await?;
    if first.status == 503 {
        // moto walks a partition from its start for every page: past the store's 8 s a call
        // (`config::timeouts`) the API answers 503, which DynamoDB's seeks would not reach.
        println!("| {size} | {name}, page 1 | 503: moto past the 8 s call timeout | | | | | | {:.0} |", first.ms);
        return Ok(());
    }
    anyhow::ensure!(first.status == 200, "{path}: {} {}", first.status, first.body);
    let total = first.total.unwrap_or(0);
    let rows = |m: &Measured| m.body[key].as_array().map_or(0, Vec::len);
    row(size, &format!("{name}, page 1"), rows(&first), &total.to_string(), &first.cost, first.ms);
    let last_page = total.div_ceil(PER_PAGE).max(1);
    if last_page > 2 {
        // A page in the middle: what a list skips to, beside the first page and the last.
        let middle_page = last_page / 2;
        let middle = bench
            .call(reqwest::Method::GET, &format!("{path}{sep}per_page={PER_PAGE}&page={middle_page}"), None)
            .await?;
        if middle.status == 200 {
            let name = format!("{name}, page {middle_page} (middle)");
            row(size, &name, rows(&middle), &total.to_string(), &middle.cost, middle.ms);
        }
    }
    if last_page > 1 {
        let last =
            bench.call(reqwest::Method::GET, &format!("{path}{sep}per_page={PER_PAGE}&page={last_page}"), None).await?;
        if last.status != 200 {
            let status = last.status;
            println!("| {size} | {name}, page {last_page} (last) | {status}: moto past the store's call timeout | | | | | | {:.0} |", last.ms);
            return Ok(());
        }
        row(size, &format!("{name}, page {last_page} (last)"), rows(&last), &total.to_string(), &last.cost, last.ms);
    }
    Ok(())
}

/// Every measured request at one size.
async fn measure(bench: &Bench, size: &str, world: &World, queues: &Queues<'_>) -> anyhow::Result<()> {
    for (name, path) in &billing_lists(world) {
        list(bench, size, name, path, "billings").await?;
    }
    for (name, path) in &contact_lists(world) {
        list(bench, size, name, path, "contacts").await?;
    }
    create_show_update(bench, size, world).await?;
    bulk(bench, size, world, queues).await
}

/// The billing lists measured: every filter, alone and in the pairs the lists serve.
fn billing_lists(world: &World) -> Vec<(&'static str, String)> {
    let contact = world.ours[3];
    vec![
        ("all", "/v1/billings".to_owned()),
        ("status=opened", "/v1/billings?status=opened".to_owned()),
        ("status=paid", "/v1/billings?status=paid".to_owned()),
        ("status=expired", "/v1/billings?status=expired".to_owned()),
        ("status=canceled", "/v1/billings?status=canceled".to_owned()),
        ("contact_id", format!("/v1/billings?contact_id={contact}")),
        ("your_code", "/v1/billings?your_code=ERP-7".to_owned()),
        ("bank_rule_id", format!("/v1/billings?bank_rule_id={}", world.rules[0])),
        ("bill_category_id", format!("/v1/billings?bill_category_id={}", world.categories[0])),
        ("due date, 30 days", "/v1/billings?start_due_date=2026-09-01&end_due_date=2026-09-30".to_owned()),
        (
            "created date, today",
            format!("/v1/billings?start_created_at={0}&end_created_at={0}", billing_api::values::today()),
        ),
        ("contact_id + status=opened", format!("/v1/billings?contact_id={contact}&status=opened")),
        (
            "bank_rule_id + due date",
            format!("/v1/billings?bank_rule_id={}&start_due_date=2026-09-01&end_due_date=2026-09-30", world.rules[0]),
        ),
        (
            "bill_category_id + status=opened",
            format!("/v1/billings?bill_category_id={}&status=opened", world.categories[0]),
        ),
        (
            "bill_category_id + due date",
            format!(
                "/v1/billings?bill_category_id={}&start_due_date=2026-09-01&end_due_date=2026-09-30",
                world.categories[0]
            ),
        ),
        ("contact_id + bank_rule_id", format!("/v1/billings?contact_id={contact}&bank_rule_id={}", world.rules[1])),
        (
            "contact_id + the growing rule (no match)",
            format!("/v1/billings?contact_id={contact}&bank_rule_id={}", world.rules[2]),
        ),
        (
            "bank_rule_id + bill_category_id",
            format!("/v1/billings?bank_rule_id={}&bill_category_id={}", world.rules[1], world.categories[1]),
        ),
        ("s=<payer name>", "/v1/billings?s=Cliente%20Honorato".to_owned()),
    ]
}

/// The contact lists measured.
fn contact_lists(world: &World) -> Vec<(&'static str, String)> {
    vec![
        ("contacts: all", "/v1/contacts".to_owned()),
        ("contacts: contact_type=supplier", "/v1/contacts?contact_type=supplier".to_owned()),
        ("contacts: group_id", format!("/v1/contacts?group_id={}", world.group)),
        ("contacts: tag_id", format!("/v1/contacts?tag_id={}", world.tag)),
        ("contacts: active=false", "/v1/contacts?active=false".to_owned()),
        ("contacts: s=<name>", "/v1/contacts?s=Numero%20aab".to_owned()),
    ]
}

/// Create, show and update of one billing, each row the slowest of five.
async fn create_show_update(bench: &Bench, size: &str, world: &World) -> anyhow::Result<()> {
    let contact = world.ours[3];
    let mut created = Vec::new();
    let mut worst: [Option<Measured>; 3] = [None, None, None];
    for n in 0..5 {
        let body = json!({"billing": {"contact_id": contact, "bank_rule_id": world.rules[0], "bill_category_id": world.categories[0],
            "due_date": "2030-03-04", "your_code": format!("NEW-{size}-{n}"),
            "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
        let made = bench.call(reqwest::Method::POST, "/v1/billings", Some(body)).await?;
        anyhow::ensure!(made.status == 201, "create: {} {}", made.status, made.body);
        let id = made.body["id"].as_i64().context("billing id")?;
        created.push(id);
        let shown = bench.call(reqwest::Method::GET, &format!("/v1/billings/{id}"), None).await?;
        anyhow::ensure!(shown.status == 200, "show: {}", shown.body);
        let patch = json!({"billing": {"your_code": format!("UPD-{size}-{n}")}});
        let updated = bench.call(reqwest::Method::PATCH, &format!("/v1/billings/{id}"), Some(patch)).await?;
        anyhow::ensure!(updated.status == 200, "update: {}", updated.body);
        for (slot, m) in worst.iter_mut().zip([made, shown, updated]) {
            if slot.as_ref().is_none_or(|w| m.cost.sequential > w.cost.sequential || m.ms > w.ms) {
                *slot = Some(m);
            }
        }
    }
    for (name, m) in ["create (worst of 5)", "show (worst of 5)", "update (worst of 5)"].iter().zip(&worst) {
        let m = m.as_ref().context("measured")?;
        row(size, name, 1, "", &m.cost, m.ms);
    }
    Ok(())
}

/// The queues of the bench's API, and what hands its outbox on to them.
struct Queues<'a> {
    sqs: &'a aws_sdk_sqs::Client,
    bulk: String,
    worker: infra::workers::Worker,
    jobs: billing_api::jobs::Queues,
    stream: billing_api::outbox::LocalStream,
    store: Store,
}

/// A bulk billing to the tag's holders, expanded by the worker on the metered store: the cost per
/// billing made.
async fn bulk(bench: &Bench, size: &str, world: &World, queues: &Queues<'_>) -> anyhow::Result<()> {
    // The rule and category of the other payers' billings, so that the lists by the account's own
    // rule and category show the same billings at both sizes.
    let body = json!({"billing": {"billing_issue_type": "bulk", "tag_id": world.tag, "excluded_tag_ids": [],
        "bank_rule_id": world.rules[2], "bill_category_id": world.categories[2], "due_date": "2030-03-04",
        "your_code": format!("BULK-{size}"),
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
    let accepted = bench.call(reqwest::Method::POST, "/v1/billings", Some(body)).await?;
    anyhow::ensure!(accepted.status == 202, "bulk: {} {}", accepted.status, accepted.body);
    let reached = accepted.body["contacts_count"].as_u64().context("contacts_count")? as f64;
    row(size, "bulk create (202)", 0, &reached.to_string(), &accepted.cost, accepted.ms);
    bench.meter.take();
    let started = Instant::now();
    // The expander's own calls (each message's chain, one message after another) apart from the
    // outbox's hand-on of the tasks its transactions write (on AWS the dispatcher's, another
    // function's, which runs beside it).
    let (mut expander, mut handing) = (Totals::default(), Totals::default());
    loop {
        // The expansion's tasks (its chunks' messages and its billings' registrations) handed
        // on as the stream does.
        queues.stream.dispatch(&queues.store, &queues.jobs).await;
        handing.add(&bench.meter.take());
        let handled = infra::workers::worker_round(queues.sqs, &queues.bulk, &queues.worker, 0).await?;
        expander.add(&bench.meter.take());
        if handled.bodies.is_empty() {
            break;
        }
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    for (name, totals, ms) in [("bulk expansion", &expander, ms / reached), ("  its tasks handed on", &handing, 0.0)] {
        println!(
            "| {size} | {name}, per billing ({reached} billings, {} calls) | | | {:.2} | {:.2} | {:.2} | {:.2} | {ms:.1} |",
            totals.calls,
            totals.sequential as f64 / reached,
            totals.calls as f64 / reached,
            totals.read_units / reached,
            totals.write_units / reached,
        );
    }
    Ok(())
}

/// Costs of several measured windows, added up (their chains one after another).
#[derive(Default)]
struct Totals {
    calls: usize,
    sequential: usize,
    read_units: f64,
    write_units: f64,
}

impl Totals {
    fn add(&mut self, cost: &infra::meter::Cost) {
        self.calls += cost.calls;
        self.sequential += cost.sequential;
        self.read_units += cost.read_units;
        self.write_units += cost.write_units;
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let sizes = later_sizes()?;
    let engine = std::env::var("BENCH_ENGINE").unwrap_or_else(|_| "moto".to_owned());
    let (config, store) = infra::testing::local_stack().await;
    let meter = Meter::default();
    let (metered, stream) = patient_store(&config, &store, &meter);
    let (account, auth) = infra::testing::active_account(&store).await;
    let sqs = aws_sdk_sqs::Client::new(&config);
    let queues = bench_queues(&sqs, stream, &metered).await?;
    let bench = serve(metered, auth, meter).await?;

    eprintln!("account {account}: references, {CONTACTS} contacts and {FIRST_SIZE} billings…");
    let started = Instant::now();
    let mut world = references(&bench, &store, account).await?;
    let now = Timestamp::now();
    write_contacts(&store, account, &mut world, now).await?;
    fill(&store, account, &world, 1..=FIRST_SIZE, now).await?;
    eprintln!("filled in {:.0} s", started.elapsed().as_secs_f64());

    println!(
        "| billings | request | rows | X-Total-Count | sequential round trips | calls | read units | write units | ms ({engine}) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    // The first request pays the authorizer's reads; it is not counted.
    bench.call(reqwest::Method::GET, "/v1/billings?per_page=1", None).await?;
    measure(&bench, &FIRST_SIZE.to_string(), &world, &queues).await?;
    big_bulk(&bench, &store, account, &world).await?;

    let mut filled = FIRST_SIZE;
    for size in sizes {
        let started = Instant::now();
        fill(&store, account, &world, filled + 1..=size, now).await?;
        eprintln!("grown to {size} billings in {:.0} s", started.elapsed().as_secs_f64());
        measure(&bench, &size.to_string(), &world, &queues).await?;
        filled = size;
    }
    Ok(())
}

/// The sizes after the first, each grown from the one before (`BENCH_BILLINGS`: `100000` or
/// `100000,1000000`), ascending.
fn later_sizes() -> anyhow::Result<Vec<i64>> {
    let mut sizes: Vec<i64> = std::env::var("BENCH_BILLINGS")
        .unwrap_or_else(|_| "100000".to_owned())
        .split(',')
        .map(|size| size.trim().parse().with_context(|| format!("BENCH_BILLINGS: {size:?} is not a number")))
        .collect::<anyhow::Result<_>>()?;
    sizes.retain(|size| *size > FIRST_SIZE);
    sizes.sort_unstable();
    Ok(sizes)
}

/// The table through the meter, with calls that wait as long as moto needs, and its outbox stream.
fn patient_store(
    config: &aws_config::SdkConfig,
    store: &Store,
    meter: &Meter,
) -> (Store, billing_api::outbox::LocalStream) {
    // moto reads a partition from its start at every call: a list over a 100,000-billing table can
    // take longer than the service's 8 s a call, which would answer 503 instead of a measure.
    let patient = aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
        .operation_attempt_timeout(std::time::Duration::from_secs(120))
        .operation_timeout(std::time::Duration::from_secs(120))
        .build();
    infra::dev_server::streamed_store(Store::with_timeouts(meter.client(config), store.table().to_owned(), patient))
}

/// The bench's own billet and bulk-expansion queues, and the expander working on the metered table.
async fn bench_queues<'a>(
    sqs: &'a aws_sdk_sqs::Client,
    stream: billing_api::outbox::LocalStream,
    metered: &Store,
) -> anyhow::Result<Queues<'a>> {
    let queue = |name: &str| {
        let name = format!("bench-{name}-{:016x}", rand::random::<u64>());
        let sqs = sqs.clone();
        async move { sqs.create_queue().queue_name(name).send().await?.queue_url.context("queue url") }
    };
    let (billets, bulk_queue) = (queue("billets").await?, queue("bulk").await?);
    let jobs = billing_api::jobs::Queues::new(sqs.clone(), billets).with_bulk_expansion(bulk_queue.clone());
    let worker = infra::workers::Worker::BulkExpander { store: metered.clone() };
    Ok(Queues { sqs, bulk: bulk_queue, worker, jobs, stream, store: metered.clone() })
}

/// The API in this process on the metered table, served on a free port.
async fn serve(metered: Store, auth: String, meter: Meter) -> anyhow::Result<Bench> {
    // Only the requests' own storage is measured: no rate-limit counters.
    let state = AppState::new(metered.clone()).with_rate_limits(billing_api::http::rate_limit::RateLimits::OFF);
    let router = infra::dev_server::router(state, AuthCache::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(infra::dev_server::serve(listener, router, std::future::pending()));
    Ok(Bench { base, auth, http: billing_api::config::http_client(), meter })
}

/// What the billings refer to: three bank rules and categories, the account's own payers (made
/// through the API), a group and a tag; the other payers come with the contacts.
async fn references(bench: &Bench, store: &Store, account: billing_api::values::AccountId) -> anyhow::Result<World> {
    let mut rules = Vec::new();
    let mut categories = Vec::new();
    for name in ["A", "B", "C"] {
        let rule = infra::ops::create_bank_rule(store, account, &format!("Banco {name}"), "simulated", None).await?;
        rules.push(BankRuleId::new(rule["bank_rule"]["id"].as_i64().context("bank rule id")?));
        let category = infra::ops::create_category(store, account, &format!("Categoria {name}"), "receivable").await?;
        categories.push(BillCategoryId::new(category["bill_category"]["id"].as_i64().context("category id")?));
    }
    let mut ours = Vec::new();
    for (i, surname) in SURNAMES.iter().enumerate() {
        let body = json!({"contact": {"full_name": format!("Cliente {surname}"), "cpf": infra::testing::cpf(100_000_000 + i as u64),
            "email": format!("c{i}@example.com"),
            "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
            "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
        let made = bench.call(reqwest::Method::POST, "/v1/contacts", Some(body)).await?;
        ours.push(ContactId::new(made.body["id"].as_i64().with_context(|| format!("contact: {}", made.body))?));
    }
    let group = bench
        .call(
            reqwest::Method::POST,
            "/v1/groups",
            Some(json!({"group": {"contact_type": "customers", "description": "Grupo"}})),
        )
        .await?;
    let tag = bench.call(reqwest::Method::POST, "/v1/tags", Some(json!({"tag": {"name": "Mensalistas"}}))).await?;
    let group = GroupId::new(group.body["id"].as_i64().context("group id")?);
    let tag = TagId::new(tag.body["id"].as_i64().context("tag id")?);
    let rules: [BankRuleId; 3] = rules.try_into().map_err(|_| anyhow::anyhow!("three rules"))?;
    let categories: [BillCategoryId; 3] = categories.try_into().map_err(|_| anyhow::anyhow!("three categories"))?;
    Ok(World { ours, rules, categories, others: Vec::new(), group, tag })
}

/// The [`CONTACTS`] contacts written straight to the table with their postings, tag links and
/// counters (each type's counts, each tag's holders and reach); they are the other payers.
async fn write_contacts(
    store: &Store,
    account: billing_api::values::AccountId,
    world: &mut World,
    now: Timestamp,
) -> anyhow::Result<()> {
    let first_contact = store.reserve_ids(keys::account(account), keys::sequence(Contact::KIND), CONTACTS).await?;
    let mut items = Vec::new();
    let mut per_type = std::collections::BTreeMap::new();
    let mut reach = std::collections::BTreeMap::new();
    let mut holding = std::collections::BTreeMap::new();
    for n in 1..=CONTACTS {
        let id = ContactId::new(first_contact + n - 1);
        let made = contact(id, n, world, now);
        items.push(item_of(account, &made)?);
        items.extend(made.postings(account).iter().map(billing_api::store::postings::Posting::item));
        for tag in &made.tag_ids {
            let link = Item::from([
                ("pk".to_owned(), AttributeValue::S(keys::contact::tag_links(account, *tag))),
                ("sk".to_owned(), AttributeValue::S(keys::record(Contact::KIND, id))),
            ]);
            items.push(link);
        }
        let counts = per_type.entry(made.counted_in(account).context("contacts are counted")?);
        let counts: &mut std::collections::BTreeMap<String, i64> = counts.or_default();
        for (count, delta) in billing_api::store::counting::counts_of(&made, 1) {
            *counts.entry(count).or_default() += delta;
        }
        for tag in &made.tag_ids {
            holding.entry((*tag, made.contact_type.as_str())).or_insert((id, 0)).1 += 1;
        }
        if billing_api::contacts::counts::reaches(&made) {
            for tag in &made.tag_ids {
                reach.entry(*tag).or_insert((id, 0)).1 += 1;
            }
        }
        world.others.push(id);
    }
    store.put_all(items).await?;
    for (counter, counts) in per_type {
        let counts: Vec<(String, i64)> = counts.into_iter().collect();
        store.write(vec![billing_api::store::shards::add_each(counter, 0, &counts)]).await?;
    }
    for ((tag, contact_type), (holder, n)) in holding {
        let contact_type = ContactType::parse(contact_type).context("a contact type")?;
        store.write(vec![billing_api::contacts::counts::holders_added(account, tag, contact_type, holder, n)]).await?;
    }
    for (tag, (holder, n)) in reach {
        store.write(vec![billing_api::contacts::counts::reach_added(account, tag, holder, n)]).await?;
    }
    Ok(())
}

/// The `202` of a bulk billing on a tag of BENCH_BULK_TAG holders (default 100,000, written
/// straight to the table), without and with a small excluded tag: its calls do not grow with the
/// tag. Its expansions are deleted at once, so that their chunks' messages find nothing to do.
async fn big_bulk(
    bench: &Bench,
    store: &Store,
    account: billing_api::values::AccountId,
    world: &World,
) -> anyhow::Result<()> {
    let holders: usize = std::env::var("BENCH_BULK_TAG").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let tag = |name: &str| {
        let body = json!({"tag": {"name": name}});
        async move {
            let made = bench.call(reqwest::Method::POST, "/v1/tags", Some(body)).await?;
            anyhow::Ok(TagId::new(made.body["id"].as_i64().context("tag id")?))
        }
    };
    let (big, few) = (tag("Todos").await?, tag("Bolsistas").await?);
    let started = Instant::now();
    // With their postings: the searches below read them.
    let ids = infra::testing::listed_customers(store, account, big, holders).await;
    eprintln!("{holders} holders of one tag written in {:.0} s", started.elapsed().as_secs_f64());
    // A hundred of them hold the excluded tag too.
    for (n, id) in ids.iter().take(100).enumerate() {
        // The whole contact is checked again: a name of letters only.
        let body =
            json!({"contact": {"full_name": format!("Bolsista {}", letters(n as i64 + 1)), "tag_ids": [big, few]}});
        let changed = bench.call(reqwest::Method::PATCH, &format!("/v1/contacts/{id}"), Some(body)).await?;
        anyhow::ensure!(changed.status == 200, "tagging: {} {}", changed.status, changed.body);
    }
    for (name, excluded) in [("", vec![]), (", 100 excluded", vec![few])] {
        let body = json!({"billing": {"billing_issue_type": "bulk", "tag_id": big, "excluded_tag_ids": excluded,
            "bank_rule_id": world.rules[0], "due_date": "2030-03-04",
            "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
        let accepted = bench.call(reqwest::Method::POST, "/v1/billings", Some(body)).await?;
        anyhow::ensure!(accepted.status == 202, "bulk: {} {}", accepted.status, accepted.body);
        let reached = accepted.body["contacts_count"].as_u64().context("contacts_count")?;
        let request = format!("bulk create (202), a {holders}-contact tag{name}");
        row("–", &request, 0, &reached.to_string(), &accepted.cost, accepted.ms);
    }
    let running =
        store.items_with_prefix(keys::account(account), keys::billing::BULK_EXPANSION_PREFIX.to_owned(), true).await?;
    for item in running {
        let (pk, sk) = billing_api::store::KeyItem::keys_of(&item);
        store.write(vec![billing_api::store::Write::delete(pk, sk)]).await?;
    }
    // A search finds the holder that sorts last by name (`Cliente Lote <holders - 1>`, after every
    // other holder: past the 50,000 postings a search once read). Only among the contacts: the
    // billing search reads both contact types and the billing shards at once, which moto, one call
    // at a time and each a walk of the partition, takes past the store's 8 s a call at this size.
    let last = holders - 1;
    let contacts = format!("/v1/contacts?s=Lote%20{last}");
    list(bench, "–", "contacts: s=<the tag's holder last by name>", &contacts, "contacts").await?;
    Ok(())
}

/// Billings `range` (their ids from the account's sequence), with their postings; shard 0 of
/// each counter they count in (the type's, their categories') raised by their counts.
async fn fill(
    store: &Store,
    account: billing_api::values::AccountId,
    world: &World,
    range: std::ops::RangeInclusive<i64>,
    now: Timestamp,
) -> anyhow::Result<()> {
    let size = range.end() - range.start() + 1;
    let first = store.reserve_ids(keys::account(account), keys::sequence("BILLING"), size).await?;
    let mut items = Vec::new();
    // Each counter the billings count in (the type's, each category's): its counts and days.
    let mut summed = billing_api::store::counting::Summed::new();
    for n in range.clone() {
        let made = billing(first + n - range.start(), n, world, now);
        billing_api::store::counting::sum_into(&mut summed, &made, account);
        items.push(item_of(account, &made)?);
        items.extend(postings::items(account, &made));
        if items.len() >= 50_000 {
            store.put_all(std::mem::take(&mut items)).await?;
        }
    }
    store.put_all(items).await?;
    for write in billing_api::store::counting::added(summed, 0) {
        store.write(vec![write]).await?;
    }
    Ok(())
}
