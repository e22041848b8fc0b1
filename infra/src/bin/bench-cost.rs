//! What a billing costs to run on AWS (`infra/bench cost`). A boleto's life is run on a metered dev
//! server (moto): a billing created through the API, its billet registered by the worker, paid at
//! the simulated bank, its `billing.updated` delivered to a receiver; its DynamoDB read and write
//! units and SQS calls are counted by the meter (`infra::meter`). The other lives add to it what
//! their channel does beyond (each line's units and where they were measured below). Lambda time is
//! each invocation's first answer as the cold-start bench measured it (docs/cold-start.md, an
//! upper bound for a warm call), at the template's 256 MB. Prices are AWS's list prices as their
//! pages state them (sources in [`PRICES`]); this environment cannot reach them, so each says when
//! it was read.

use std::time::Duration;

use billing_api::http::rate_limit::RateLimits;
use billing_api::payments::boleto::bank::Reported;
use billing_api::values::{BillingId, Money};
use billing_api::webhooks::Schedule;
use infra::meter::{Cost, Meter};
use infra::testing::{active_account, DevServer};
use infra::webhook_receiver::Receiver;
use serde_json::json;

/// What one life uses.
#[derive(Clone, Copy, Debug, Default)]
struct Units {
    lambda_invocations: f64,
    /// Sum of the invocations' durations.
    lambda_ms: f64,
    api_requests: f64,
    read_units: f64,
    write_units: f64,
    sqs_requests: f64,
    s3_puts: f64,
    ses_messages: f64,
    secrets_calls: f64,
}

impl std::ops::Add for Units {
    type Output = Units;
    fn add(self, o: Units) -> Units {
        Units {
            lambda_invocations: self.lambda_invocations + o.lambda_invocations,
            lambda_ms: self.lambda_ms + o.lambda_ms,
            api_requests: self.api_requests + o.api_requests,
            read_units: self.read_units + o.read_units,
            write_units: self.write_units + o.write_units,
            sqs_requests: self.sqs_requests + o.sqs_requests,
            s3_puts: self.s3_puts + o.s3_puts,
            ses_messages: self.ses_messages + o.ses_messages,
            secrets_calls: self.secrets_calls + o.secrets_calls,
        }
    }
}

/// A region's list prices, in US dollars.
struct Prices {
    region: &'static str,
    lambda_request: f64,
    lambda_gb_second: f64,
    api_request: f64,
    read_unit: f64,
    write_unit: f64,
    sqs_request: f64,
    s3_put: f64,
    ses_message: f64,
    secrets_call: f64,
}

/// On-demand list prices (x86 Lambda, REST API first tier, DynamoDB on-demand Standard table, SQS
/// standard, S3 Standard PUT, SES outbound e-mail, Secrets Manager API calls), as read from
/// https://aws.amazon.com/lambda/pricing/, /api-gateway/pricing/, /dynamodb/pricing/on-demand/,
/// /sqs/pricing/, /s3/pricing/, /ses/pricing/, /secrets-manager/pricing/ in 2025 (after DynamoDB's
/// November 2024 on-demand price cut); not read again here (no network).
const PRICES: [Prices; 2] = [
    Prices {
        region: "us-east-1",
        lambda_request: 0.20e-6,
        lambda_gb_second: 0.000_016_666_7,
        api_request: 3.50e-6,
        read_unit: 0.125e-6,
        write_unit: 0.625e-6,
        sqs_request: 0.40e-6,
        s3_put: 0.005e-3,
        ses_message: 0.10e-3,
        secrets_call: 0.05e-4,
    },
    Prices {
        region: "sa-east-1",
        lambda_request: 0.20e-6,
        lambda_gb_second: 0.000_021_6,
        api_request: 4.55e-6,
        read_unit: 0.1875e-6,
        write_unit: 0.9375e-6,
        sqs_request: 0.50e-6,
        s3_put: 0.007e-3,
        ses_message: 0.10e-3,
        secrets_call: 0.05e-4,
    },
];

/// The template's memory for every function.
const MEMORY_GB: f64 = 0.25;
/// An exchange rate to show dollars as reais (BRL per USD), stated with the table.
const BRL_PER_USD: f64 = 5.5;

fn dollars(units: &Units, p: &Prices) -> f64 {
    units.lambda_invocations * p.lambda_request
        + units.lambda_ms / 1000.0 * MEMORY_GB * p.lambda_gb_second
        + units.api_requests * p.api_request
        + units.read_units * p.read_unit
        + units.write_units * p.write_unit
        + units.sqs_requests * p.sqs_request
        + units.s3_puts * p.s3_put
        + units.ses_messages * p.ses_message
        + units.secrets_calls * p.secrets_call
}

/// A boleto's life on the metered dev server, and what its DynamoDB and SQS calls cost.
async fn boleto_life() -> anyhow::Result<Cost> {
    let meter = Meter::default();
    let server = DevServer::start_measured(RateLimits::OFF, meter.clone()).await;
    let (account, auth) = active_account(&server.store).await;
    let receiver = Receiver::start(&[], 200).await;
    server.webhook_ops().add(account, &receiver.url).await?;
    let http = billing_api::config::http_client();
    let rule = infra::ops::create_bank_rule(&server.store, account, "Banco simulado", "simulated", None).await?;
    let create = |path: &'static str, body| infra::bench_stats::create(&http, &server, &auth, path, body);
    let contact = create("/v1/contacts", infra::bench_stats::payer()).await?;
    server.start_webhooks(Schedule::default());
    meter.take();
    let billing = create("/v1/billings", json!({"billing": {"bank_rule_id": rule["bank_rule"]["id"], "contact_id": contact,
        "due_date": "2030-03-04", "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}}))
    .await?;
    let id = BillingId::new(billing.as_i64().unwrap_or_default());
    server.register_billets().await;
    let paid =
        Reported { amount: Money::from_cents(15_000), paid_on: "2030-03-04".parse()?, fee: Money::from_cents(150) };
    infra::ops::pay_billing(&server.store, account, id, &paid).await?;
    let started = std::time::Instant::now();
    while !receiver.received().iter().any(|r| r.json()["data"]["billing"]["status"] == "paid") {
        anyhow::ensure!(started.elapsed() < Duration::from_secs(30), "billing.updated (paid) not delivered in 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(meter.take())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let measured = boleto_life().await?;
    // The boleto's invocations: the create (billings), the authorizer (a token's first call; cached
    // 15 minutes after), the registrar, the outbox dispatcher for the registration task and for each
    // of the two billing.updated events (registered, paid), the return file's function (a share of a
    // file: one line of 100), and the webhook sender for each delivery: first answers 24.0, 8.7, 5.5,
    // 7.4, 300 (the return-file function reads and applies a file: its timeout's tenth, estimated),
    // 8.3 ms (docs/cold-start.md).
    let boleto = Units {
        lambda_invocations: 1.0 + 1.0 + 1.0 + 3.0 + 0.01 + 2.0,
        lambda_ms: 24.0 + 8.7 + 5.5 + 3.0 * 7.4 + 0.01 * 300.0 + 2.0 * 8.3,
        api_requests: 1.0,
        read_units: measured.read_units,
        write_units: measured.write_units,
        sqs_requests: BOLETO_SQS_CALLS,
        s3_puts: 0.02,
        ..Units::default()
    };
    // Pix beside it: the charge's secret read once per process per five minutes (a share), the PSP's
    // webhook (one invocation: the Pix read back, the ledger's transaction: about 3 reads and 40 write
    // units, as data-model.md's payment row says), the Pix charges worker's removal message.
    let pix = Units {
        lambda_invocations: 2.0,
        lambda_ms: 30.0 + 8.0,
        read_units: 3.0,
        write_units: 40.0,
        sqs_requests: 3.0,
        secrets_calls: 0.1,
        ..Units::default()
    };
    // A reminder: the planner's share, one reminder message (send, receive, delete), the worker's
    // invocation (its reads and the delivery's write: 3 reads and 4 write units,
    // docs/bench/2026-11-27-reminders.md) and one SES message.
    let reminder = Units {
        lambda_invocations: 1.01,
        lambda_ms: 20.0,
        read_units: 3.0,
        write_units: 4.0,
        sqs_requests: 3.0,
        ses_messages: 1.0,
        ..Units::default()
    };
    // By card: the payer page twice (the page, the checkout's intent) and its confirmation, the
    // gateway's webhook (read back and applied: as Pix's), the availability step's share, the
    // gateway's secret read (a share).
    let card = Units {
        lambda_invocations: 4.0,
        lambda_ms: 3.0 * 9.0 + 30.0,
        read_units: 8.0,
        write_units: 44.0,
        sqs_requests: 0.0,
        secrets_calls: 0.2,
        ..Units::default()
    };
    let lives = [
        ("boleto: create → billet → paid at the bank → webhook delivered", boleto),
        ("Pix: the same, paid by Pix (its charge at the PSP)", boleto + pix),
        ("boleto with one reminder (e-mail)", boleto + reminder),
        ("card: paid on the payer page's checkout", boleto + card),
    ];
    println!("What one billing's life costs on AWS (list prices; BRL at {BRL_PER_USD} per USD)");
    println!();
    println!(
        "Measured (moto, metered): the boleto's life made {} DynamoDB and SQS calls: {:.1} read units, {:.1} write units ({} transactions); SQS calls by construction: {BOLETO_SQS_CALLS}.",
        measured.calls, measured.read_units, measured.write_units, measured.transactions
    );
    println!();
    println!("| life | Lambda calls | DynamoDB RU / WU | SQS calls | {} (USD) | {} (USD) | per 1,000 billings, {} (BRL) | per 1,000, {} (BRL) |", PRICES[0].region, PRICES[1].region, PRICES[0].region, PRICES[1].region);
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (life, units) in lives {
        let (us, sa) = (dollars(&units, &PRICES[0]), dollars(&units, &PRICES[1]));
        println!(
            "| {life} | {:.2} | {:.1} / {:.1} | {:.1} | {us:.7} | {sa:.7} | {:.2} | {:.2} |",
            units.lambda_invocations,
            units.read_units,
            units.write_units,
            units.sqs_requests,
            us * 1000.0 * BRL_PER_USD,
            sa * 1000.0 * BRL_PER_USD
        );
    }
    Ok(())
}

/// The SQS calls of a boleto's life, by construction: three messages (the registration, the two
/// deliveries), each sent, received and deleted (the meter counts them among all calls, not apart).
const BOLETO_SQS_CALLS: f64 = 9.0;
