//! The Pix benchmark (`infra/bench pix`): on the local stack (moto, the local PSP behind Prism, the
//! dev server's Pix listener over mutual TLS, its webhook path in this process), BENCH_PIX billings
//! (default 300) on an Itaú rule with Pix are paid one after another at the local PSP, which calls
//! the webhook; measured from the PSP's call (the payer's payment) to the integrator's receiver
//! getting `billing.updated` with the billing `paid`, and the webhook's own answer. Then the
//! reconciliation reads them all back (`GET /pix`): the PSP calls it makes per 1,000 payments.

use infra::bench_stats::{ms, percentile, setting};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::http::rate_limit::RateLimits;
use billing_api::payments::pix::{self, charge, psp};
use billing_api::values::{AccountId, BankRuleId, BillingId};
use billing_api::webhooks::Schedule;
use infra::testing::{active_account, DevServer};
use infra::webhook_receiver::Receiver;
use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let payments = setting::<usize>("BENCH_PIX").unwrap_or(300);
    let server = DevServer::start_alone(RateLimits::OFF).await;
    let webhook_base = server.pix_webhook_url.clone().context("no Pix listener: run through infra/bench pix")?;
    let (account, auth) = active_account(&server.store).await;
    let receiver = Receiver::start(&[], 200).await;
    server.webhook_ops().add(account, &receiver.url).await?;
    server.start_webhooks(Schedule::default());
    server.start_worker();

    let rule = pix_rule(&server, account, &webhook_base).await?;
    let http = billing_api::config::http_client();
    let billings = billings_with_charges(&http, &server, &auth, account, rule, payments).await?;
    let (delivered, answered) = pay_each(&http, account, &billings, &receiver).await?;
    let (reconciled, calls, reading) = reconcile(&server, account, rule, payments).await?;

    println!("Pix benchmark (local stack: moto, the local PSP behind Prism on 127.0.0.1; the dev server's webhook path in this process)");
    println!();
    println!("| measure | result |");
    println!("|---|---|");
    println!("| payments, one after another | {payments} |");
    println!(
        "| PSP's webhook call to the integrator's billing.updated (paid), p50 | {} |",
        ms(percentile(&delivered, 0.5))
    );
    println!(
        "| PSP's webhook call to the integrator's billing.updated (paid), p99 | {} |",
        ms(percentile(&delivered, 0.99))
    );
    println!("| the webhook's answer to the PSP (read-back and apply), p50 | {} |", ms(percentile(&answered, 0.5)));
    println!("| the webhook's answer to the PSP (read-back and apply), p99 | {} |", ms(percentile(&answered, 0.99)));
    println!(
        "| reconciliation of the {payments}: GET /pix pages, PSP calls (token included) | {} pages, {calls} calls in {} |",
        reconciled.pages,
        ms(reading)
    );
    println!("| reconciliation's PSP calls per 1,000 payments | {:.1} |", calls as f64 * 1000.0 / payments as f64);
    Ok(())
}

/// An Itaú rule of the account linked to the local PSP, its webhook at `webhook_base`.
async fn pix_rule(server: &DevServer, account: AccountId, webhook_base: &str) -> anyhow::Result<BankRuleId> {
    let rule =
        infra::ops::create_bank_rule(&server.store, account, "Itaú com Pix", "itau", Some("0057/12345-7/109".into()));
    let rule = BankRuleId::new(rule.await?["bank_rule"]["id"].as_i64().context("rule id")?);
    let secrets = aws_sdk_secretsmanager::Client::new(&server.config);
    let credentials = infra::ops::pix::local_credentials("00000000-0000-4000-8000-000000000001")?;
    infra::ops::pix::link_psp(&server.store, &secrets, account, rule, &credentials, Some(webhook_base)).await?;
    Ok(rule)
}

/// `payments` billings of one payer on the rule, each once its billet's Pix charge is at the local
/// PSP (the worker runs in the background): their ids.
async fn billings_with_charges(
    http: &reqwest::Client,
    server: &DevServer,
    auth: &str,
    account: AccountId,
    rule: BankRuleId,
    payments: usize,
) -> anyhow::Result<Vec<i64>> {
    let post = |path: &'static str, body: serde_json::Value| infra::bench_stats::create(http, server, auth, path, body);
    let contact = post("/v1/contacts", infra::bench_stats::payer()).await?;
    let mut billings = Vec::with_capacity(payments);
    for _ in 0..payments {
        let body = json!({"billing": {"bank_rule_id": rule, "contact_id": contact, "due_date": "2030-03-04",
            "penalty": "2", "penalty_type": "percentage", "interest": "1", "interest_type": "percentage",
            "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
        billings.push(post("/v1/billings", body).await?.as_i64().context("billing id")?);
    }
    // Each billet issued with its charge.
    let started = Instant::now();
    for id in &billings {
        while infra::ops::pix::local_charge(account, BillingId::new(*id)).await?.is_none() {
            anyhow::ensure!(started.elapsed() < Duration::from_secs(600), "billing {id} got no charge in 10 minutes");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    Ok(billings)
}

/// Each billing paid at the local PSP, one after another: how long from the payment to the
/// receiver's `billing.updated` (paid), and how long the webhook took to answer the PSP; sorted.
async fn pay_each(
    http: &reqwest::Client,
    account: AccountId,
    billings: &[i64],
    receiver: &Receiver,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let payments = billings.len();
    let psp_url = std::env::var("LOCAL_PSP_DIRECT_URL").context("LOCAL_PSP_DIRECT_URL")?;
    let (mut delivered, mut answered) = (Vec::with_capacity(payments), Vec::with_capacity(payments));
    for id in billings {
        let body = json!({"client": infra::ops::pix::local_client_id(), "txid": charge::txid(account, BillingId::new(*id)), "date": "2030-03-20"});
        let paying = Instant::now();
        let paid: serde_json::Value =
            http.post(format!("{psp_url}/_local/pay")).json(&body).send().await?.json().await?;
        answered.push(paying.elapsed());
        anyhow::ensure!(paid["webhook"] == 200, "billing {id}: {paid}");
        let arrived = loop {
            let found = receiver.received().into_iter().find(|r| {
                let json = r.json();
                json["data"]["billing"]["id"] == *id && json["data"]["billing"]["status"] == "paid"
            });
            if let Some(found) = found {
                break found.at;
            }
            anyhow::ensure!(paying.elapsed() < Duration::from_secs(30), "billing {id} was not announced paid in 30 s");
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        delivered.push(arrived - paying);
    }
    delivered.sort();
    answered.sort();
    Ok((delivered, answered))
}

/// The reconciliation over the same payments (every one applied already): what it found, its PSP
/// calls and how long it took.
async fn reconcile(
    server: &DevServer,
    account: AccountId,
    rule: BankRuleId,
    payments: usize,
) -> anyhow::Result<(pix::Reconciled, u64, Duration)> {
    let link = pix::Link { account_id: account, bank_rule_id: rule, secret_id: psp::secret_id(account, rule) };
    let client = psp::registry().client(&link.secret_id).await?;
    let at = |text: &str| chrono::DateTime::parse_from_rfc3339(text).expect("a time");
    let before = client.calls();
    let reading = Instant::now();
    let reconciled =
        pix::reconcile(&server.store, &link, at("2030-03-19T00:00:00-03:00"), at("2030-03-22T00:00:00-03:00")).await?;
    let reading = reading.elapsed();
    let calls = client.calls() - before;
    anyhow::ensure!(reconciled.received == payments && reconciled.already == payments, "{reconciled:?}");
    Ok((reconciled, calls, reading))
}
