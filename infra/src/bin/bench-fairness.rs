//! Fairness between tenants on the local stack (run it with `infra/bench fairness`): a busy
//! tenant's bulk billing to BENCH_FAIR_BULK customers (default 500) is expanded, leaving one
//! registration per billing waiting (and, once registered, a `billing.updated` delivery each to
//! its receiver); then a quiet tenant makes one billing and the workers start (the registrar and
//! the webhook sender, as the dev server runs them), timed from the quiet create to its billet
//! registered (the billing's `GET` shows it `opened`) and to its `billing.updated` at the quiet
//! tenant's receiver. The argument says how the queues are shared: `lanes` (a lane per tenant,
//! taken in turn: the dev server's stand-in for SQS fair queues) or `shared` (one queue for
//! everyone, first in first out). One run per process, so that no earlier run's backlog competes
//! for the machine.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::http::rate_limit::RateLimits;
use billing_api::values::{AccountId, TagId};
use billing_api::webhooks::Schedule;
use infra::testing::{active_account, DevServer};
use infra::webhook_receiver::Receiver;
use serde_json::{json, Value};

/// How long a quiet tenant's billing may wait before the run gives up.
const GIVE_UP: Duration = Duration::from_secs(900);

/// One tenant on the server: its account, token and webhook receiver.
struct Tenant {
    account: AccountId,
    auth: String,
    receiver: Receiver,
}

impl Tenant {
    async fn new(server: &DevServer) -> anyhow::Result<Tenant> {
        let (account, auth) = active_account(&server.store).await;
        let receiver = Receiver::start(&[], 200).await;
        server.webhook_ops().add(account, &receiver.url).await?;
        Ok(Tenant { account, auth, receiver })
    }

    async fn send(
        &self,
        server: &DevServer,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> anyhow::Result<Value> {
        let http = billing_api::config::http_client();
        let mut request = http.request(method.clone(), server.url(path)).header("Authorization", &self.auth);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer = request.send().await?;
        anyhow::ensure!(answer.status().is_success(), "{method} {path} answered {}", answer.status());
        Ok(answer.json().await?)
    }

    /// A billing body on the account's simulated bank.
    async fn billing_body(&self, server: &DevServer) -> anyhow::Result<Value> {
        let rule =
            infra::ops::create_bank_rule(&server.store, self.account, "Banco simulado", "simulated", None).await?;
        Ok(json!({"billing": {"bank_rule_id": rule["bank_rule"]["id"], "due_date": "2030-03-04",
            "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}}))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "lanes".into());
    let bulk: usize = std::env::var("BENCH_FAIR_BULK").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let server = match mode.as_str() {
        "lanes" => DevServer::start_fair().await,
        "shared" => DevServer::start_alone(RateLimits::OFF).await,
        other => anyhow::bail!("usage: bench-fairness [lanes|shared], not {other}"),
    };
    let (busy, quiet) = (Tenant::new(&server).await?, Tenant::new(&server).await?);

    // The busy tenant's bulk billing, expanded: its registrations wait.
    let tag = busy.send(&server, reqwest::Method::POST, "/v1/tags", Some(json!({"tag": {"name": "Lote"}}))).await?;
    let tag = TagId::new(tag["id"].as_i64().context("tag id")?);
    infra::testing::tagged_customers(&server.store, busy.account, tag, bulk).await;
    let mut sent = busy.billing_body(&server).await?;
    sent["billing"]["billing_issue_type"] = json!("bulk");
    sent["billing"]["tag_id"] = json!(tag);
    let started = Instant::now();
    busy.send(&server, reqwest::Method::POST, "/v1/billings", Some(sent)).await?;
    server.expand_bulk().await;
    let expanded = started.elapsed();

    // The quiet tenant's billing.
    let contact = quiet
        .send(
            &server,
            reqwest::Method::POST,
            "/v1/contacts",
            Some(json!({"contact": {"full_name": "Maria da Silva",
            "cpf": "529.982.247-25", "address_postal_code": "01310-100", "address_street": "Avenida Paulista",
            "address_number": "1000", "address_district": "Bela Vista", "address_city": "São Paulo",
            "address_state": "SP"}})),
        )
        .await?;
    let mut sent = quiet.billing_body(&server).await?;
    sent["billing"]["contact_id"] = contact["id"].clone();
    let made = Instant::now();
    let billing = quiet.send(&server, reqwest::Method::POST, "/v1/billings", Some(sent)).await?;
    server.start_worker();
    server.start_webhooks(Schedule::default());
    let path = format!("/v1/billings/{}", billing["id"]);
    let registered = loop {
        let shown = quiet.send(&server, reqwest::Method::GET, &path, None).await?;
        if shown["bank_billets"][0]["status"] == "opened" {
            break made.elapsed();
        }
        anyhow::ensure!(made.elapsed() < GIVE_UP, "the quiet billet was not registered in {GIVE_UP:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let registered_busy = busy.receiver.received().len();
    let announced = loop {
        let arrived =
            quiet.receiver.received().into_iter().find(|r| r.json()["data"]["billing"]["id"] == billing["id"]);
        if let Some(arrived) = arrived {
            break arrived.at - made;
        }
        anyhow::ensure!(made.elapsed() < GIVE_UP, "the quiet billing's event was not delivered in {GIVE_UP:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };

    println!("Fairness (local stack: moto on 127.0.0.1; API, workers and receivers in this process; {mode})");
    println!();
    println!("| queues | busy tenant's registrations waiting | expanded in | busy deliveries made meanwhile | quiet billet registered after | quiet billing.updated delivered after |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| {mode} | {bulk} | {:.1} s | {registered_busy} | {:.2} s | {:.2} s |",
        expanded.as_secs_f64(),
        registered.as_secs_f64(),
        announced.as_secs_f64()
    );
    Ok(())
}
