//! The dev server killed with SIGKILL at a random moment while it creates billings, accepts and
//! expands a bulk billing, settles on-account sales and pays billings off, then started again on
//! the same table and queues: once everything it implied has run, every record's follow-up
//! happened exactly once (docs/decisions.md, "A process killed anywhere loses nothing"). Each run has a table
//! and queues of its own; `KILL_RUNS` runs (3 by default; `KILL_RUNS=20` for a longer trial), each
//! with the moment of the kill drawn at random (`KILL_SEED` repeats a sequence).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

use billing_api::billets::model as billets;
use billing_api::billings::Billing;
use billing_api::cash_entries::CashEntry;
use billing_api::pos::sales::{self, Sale};
use billing_api::store::item::from_item;
use billing_api::store::{keys, records, Store};
use billing_api::values::{AccountId, BilletStatus, BillingId, BillingStatus, ContactId, IssueType, Money, TagId};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::process::Child;

/// Customers the bulk billing reaches: three chunks.
const BULK_CUSTOMERS: usize = 120;
/// On-account sales the settlement takes: two chunks.
const SALES: usize = 60;
/// Billings created during the run, and at most this many at once.
const CREATES: usize = 40;
const IN_FLIGHT: usize = 25;
/// Billings made before the run, paid off during it.
const PAY_OFFS: usize = 10;

/// The local stack of one run: its table and the prefix of its queues.
struct Stack {
    table: String,
    prefix: String,
}

impl Stack {
    fn new(run: usize) -> Self {
        let tag = format!("{:08x}", rand::random::<u32>());
        Stack { table: format!("kill-{run}-{tag}"), prefix: format!("kill-{run}-{tag}-") }
    }

    /// The dev server on this stack: its process, base URL, token and account.
    async fn start(&self, demo_file: &std::path::Path) -> (Child, String, String, AccountId) {
        let env = [
            ("TABLE_NAME", self.table.as_str()),
            ("QUEUE_NAME_PREFIX", self.prefix.as_str()),
            ("LOCAL_QUEUE_VISIBILITY_SECONDS", "3"),
            ("RATE_LIMIT_PER_IP", "0"),
            ("RATE_LIMIT_PER_TOKEN", "0"),
        ];
        let binary = std::path::Path::new(env!("CARGO_BIN_EXE_dev-server"));
        let server = infra::testing::DevServerProcess::start(binary, demo_file, &env).await;
        (server.child, server.base_url, server.token, AccountId::new(server.account))
    }
}

struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Client {
    /// The status and body of a request, or `None` when the server died before answering.
    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Option<(u16, Value)> {
        let mut request = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.timeout(Duration::from_secs(30)).send().await.ok()?;
        let status = response.status().as_u16();
        let text = response.text().await.ok()?;
        Some((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }
}

/// What the requests of a run were answered (`None`: the server died first).
#[derive(Default)]
struct Answers {
    creates: Vec<Option<u16>>,
    bulk: Option<u16>,
    settlement: Option<u16>,
    pay_offs: BTreeMap<i64, Option<u16>>,
}

fn billing_body(payer: ContactId) -> Value {
    json!({"billing": {"bank_rule_id": 1, "bill_category_id": 1, "contact_id": payer, "due_date": "2030-03-04",
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}})
}

/// The dev-server kill test and the reminders' run one after the other: each loads the one moto
/// server hard (a dev server's eight workers; a day's run walking its table for each index page),
/// and together they slowed a restarted dev server past its 240 s to come to rest in CI.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn a_killed_server_loses_and_doubles_nothing() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let (config, _) = infra::testing::local_stack().await;
    let runs: usize = std::env::var("KILL_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(3);
    let seed: u64 = std::env::var("KILL_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or_else(rand::random);
    eprintln!("kill test: {runs} runs, KILL_SEED={seed}");
    let mut random = rand::rngs::StdRng::seed_from_u64(seed);
    for run in 0..runs {
        let kill_after = Duration::from_millis(random.random_range(100..3_000));
        one_run(&config, run, kill_after).await;
    }
}

/// A kill test's run: its stack, its dev server's files and process, its account, the table's
/// store, a client of the API and a payer.
struct Started {
    stack: Stack,
    dir: std::path::PathBuf,
    demo: std::path::PathBuf,
    server: Child,
    account: AccountId,
    store: Store,
    client: Client,
    payer: ContactId,
}

/// Starts run `run` of the kill test `name` on a stack of its own, with a payer named `payer`
/// whose CPF's base is `cpf`.
async fn started(config: &aws_config::SdkConfig, run: usize, name: &str, payer: &str, cpf: u64) -> Started {
    let (stack, dir, demo, server, account, store, client) = launched(config, run, name).await;
    let contact = json!({"contact": {"full_name": payer, "cpf": infra::testing::cpf(cpf),
        "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
        "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    let made = client.send(reqwest::Method::POST, "/contacts", Some(contact)).await.unwrap().1;
    let payer = ContactId::new(made["id"].as_i64().unwrap());
    Started { stack, dir, demo, server, account, store, client, payer }
}

/// Pix payments of the demo's Itaú rule with Pix (rule 2) arriving while the dev server is killed:
/// some webhooks are taken, some die with the server between receiving and applying, some find no
/// server at all (the local PSP calls again, then gives up). Started again, the reconciliation
/// applies what was missed: every billing paid once, nothing kept to refund, nothing doubled.
#[tokio::test]
async fn a_server_killed_while_pix_payments_arrive_loses_none() {
    const PAYMENTS: usize = 20;
    if std::env::var_os("LOCAL_PIX_CERTS").is_none() {
        panic!("the local PSP is not running: use infra/test (it starts it)");
    }
    let (config, _) = infra::testing::local_stack().await;
    let seed: u64 = std::env::var("KILL_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or_else(rand::random);
    let kill_after = Duration::from_millis(rand::rngs::StdRng::seed_from_u64(seed).random_range(50..1_500));
    eprintln!("pix kill test: killed after {kill_after:?} (KILL_SEED={seed})");
    let Started { stack, dir, demo, server, account, store, client, payer } =
        started(&config, 100, "pix", "Pagador Pix", 700_000_001).await;
    let mut ids = Vec::new();
    for _ in 0..PAYMENTS {
        let mut body = billing_body(payer);
        body["billing"]["bank_rule_id"] = json!(2);
        let (status, made) = client.send(reqwest::Method::POST, "/billings", Some(body)).await.unwrap();
        assert_eq!(status, 201, "{made}");
        ids.push(made["id"].as_i64().unwrap());
    }
    // Each billet issued with its Pix charge by the server's worker.
    for id in &ids {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let (_, billing) = client.send(reqwest::Method::GET, &format!("/billings/{id}"), None).await.unwrap();
            if billing["bank_billets"][0]["pix_qr_code"].is_string() {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "billing {id} got no Pix code");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    // The payers pay, and the server dies in the middle of it.
    let psp = std::env::var("LOCAL_PSP_DIRECT_URL").unwrap();
    let local_client = format!("local-client-{}", stack.table);
    let http = billing_api::config::http_client();
    let pays = futures::future::join_all(ids.iter().map(|id| {
        let body = json!({"client": local_client,
            "txid": billing_api::payments::pix::charge::txid(account, BillingId::new(*id))});
        let request = http.post(format!("{psp}/_local/pay")).json(&body).timeout(Duration::from_secs(60));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    }));
    let paid = killed_during(server, kill_after, pays).await;
    let taken = paid.iter().filter(|p| p["webhook"] == 200).count();
    eprintln!("pix kill test: {taken} of {PAYMENTS} webhooks taken before the kill");

    // Started again; the reconciliation reads the PSP's list.
    let (server, _, _, again) = stack.start(&demo).await;
    assert_eq!(again, account);
    let rule = billing_api::values::BankRuleId::new(2);
    let link = billing_api::store::stored::find::<billing_api::payments::pix::Link>(
        &store,
        keys::payment::pix_psp(account, rule),
    )
    .await
    .unwrap()
    .expect("the demo rule's PSP link");
    let at = |text: &str| chrono::DateTime::parse_from_rfc3339(text).unwrap();
    let (from, to) = (at("2020-01-01T00:00:00-03:00"), at("2035-12-31T23:59:59-03:00"));
    let reconciled = billing_api::payments::pix::reconcile(&store, &link, from, to).await.unwrap();
    assert_eq!(reconciled.received, PAYMENTS, "{reconciled:?}");
    assert_eq!(reconciled.settled + reconciled.already, PAYMENTS, "{reconciled:?}");
    assert_eq!(reconciled.to_refund, 0, "{reconciled:?}");
    let again = billing_api::payments::pix::reconcile(&store, &link, from, to).await.unwrap();
    assert_eq!((again.settled, again.already), (0, PAYMENTS), "{again:?}");
    paid_once(&config, (&stack, &store, account, &dir), server, &ids, "pix", 100).await;
}

/// Card payments of the demo account (its gateway on at localstripe) made on the payer pages while
/// the dev server is killed: some payers' confirmations are taken, some die with the server between
/// the gateway's answer and the billing's change, some find no server. Started again, Stripe sends
/// its events again (here: every intent localstripe holds for this table, signed with the account's
/// secret, twice) and the payers who got no answer pay again: every billing paid once, by one card
/// payment, nothing kept to refund.
#[tokio::test]
async fn a_server_killed_while_card_payments_arrive_loses_none() {
    const PAYMENTS: usize = 12;
    let Some(localstripe) = std::env::var("LOCAL_STRIPE_URL").ok() else {
        panic!("localstripe is not running: use infra/test (it starts it)");
    };
    let _alone = ONE_AT_A_TIME.lock().await;
    let (config, _) = infra::testing::local_stack().await;
    let seed: u64 = std::env::var("KILL_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or_else(rand::random);
    let kill_after = Duration::from_millis(rand::rngs::StdRng::seed_from_u64(seed).random_range(200..6_000));
    eprintln!("card kill test: killed after {kill_after:?} (KILL_SEED={seed})");
    let Started { stack, dir, demo, server, account, store, client, payer } =
        started(&config, 200, "card", "Pagador Cartão", 700_000_002).await;
    let base = client.base.clone();
    let tokens = card_pages(&client, payer, PAYMENTS).await;

    // The payers pay, and the server dies in the middle of it.
    let root = base.trim_end_matches("/v1").to_owned();
    let http = billing_api::config::http_client();
    let pays = futures::future::join_all(tokens.iter().map(|(_, token)| pay_by_card(&http, &root, token)));
    let paid = killed_during(server, kill_after, pays).await;
    let taken = paid.iter().filter(|done| **done).count();
    eprintln!("card kill test: {taken} of {PAYMENTS} payers told before the kill");

    // Started again: Stripe sends its events again, twice; then the payers not paid pay again.
    let (server, base, _, again) = stack.start(&demo).await;
    assert_eq!(again, account);
    let root = base.trim_end_matches("/v1").to_owned();
    let secret = infra::ops::gateway::local_credentials(&store, account).unwrap().webhook_secret;
    let intents = intents_of(&http, &localstripe, &stack.table).await;
    for _ in 0..2 {
        for intent in &intents {
            succeeded_again(&http, &root, account, &secret, intent).await;
        }
    }
    for (id, token) in &tokens {
        let billing = records::find::<Billing>(&store, account, BillingId::new(*id)).await.unwrap().unwrap();
        if billing.status == BillingStatus::Opened {
            assert!(pay_by_card(&http, &root, token).await, "billing {id} paid again by its payer");
        }
    }
    let ids: Vec<i64> = tokens.iter().map(|(id, _)| *id).collect();
    paid_once(&config, (&stack, &store, account, &dir), server, &ids, "credit_card", 200).await;
}

/// `count` billings of `payer`, each with the token of its card payer page (once the billet that
/// carries the page's link is registered).
async fn card_pages(client: &Client, payer: ContactId, count: usize) -> Vec<(i64, String)> {
    let mut tokens = Vec::new();
    for _ in 0..count {
        let body = billing_body(payer);
        let (status, made) = client.send(reqwest::Method::POST, "/billings", Some(body)).await.unwrap();
        assert_eq!(status, 201, "{made}");
        let id = made["id"].as_i64().unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        let link = loop {
            let (_, billing) = client.send(reqwest::Method::GET, &format!("/billings/{id}"), None).await.unwrap();
            if let Some(link) = billing["gw_payment_link"].as_str() {
                break link.to_owned();
            }
            assert!(tokio::time::Instant::now() < deadline, "billing {id} got no card link");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let token = link.trim_end_matches("/cartao").rsplit('/').next().unwrap().to_owned();
        tokens.push((id, token));
    }
    tokens
}

/// The payment intents localstripe holds for the run's table.
async fn intents_of(http: &reqwest::Client, localstripe: &str, table: &str) -> Vec<String> {
    let listed: Value = http
        .get(format!("{localstripe}/v1/payment_intents?limit=100"))
        .bearer_auth("sk_test_kill")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["metadata"]["service"] == table)
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Stripe's `payment_intent.succeeded` of `intent` sent again to the server at `root`, signed with
/// the account's secret, as Stripe retries an event: answered 200.
async fn succeeded_again(http: &reqwest::Client, root: &str, account: AccountId, secret: &str, intent: &str) {
    let event = json!({"id": format!("evt_{intent}"), "type": "payment_intent.succeeded",
        "created": chrono::Utc::now().timestamp(), "data": {"object": {"id": intent}}});
    let body = serde_json::to_vec(&event).unwrap();
    let signature = billing_api::payments::card::stripe::sign(&body, secret, chrono::Utc::now().timestamp());
    let answer = http
        .post(format!("{root}/gateway/stripe/{account}"))
        .header("stripe-signature", signature)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200, "{intent}");
}

/// What `work` comes to while `server` is killed with SIGKILL `after` it started (and gone).
async fn killed_during<F: std::future::Future>(mut server: Child, after: Duration, work: F) -> F::Output {
    let killer = async {
        tokio::time::sleep(after).await;
        server.start_kill().expect("SIGKILL the dev server");
    };
    let (done, ()) = tokio::join!(work, killer);
    server.wait().await.unwrap();
    done
}

/// The end of a payments kill test: once the stack is at rest and the server stopped, every
/// billing of `ids` is paid through `channel`, nothing is kept to refund, no queue holds a dead
/// letter; then the run's table and files go.
async fn paid_once(
    config: &aws_config::SdkConfig,
    (stack, store, account, dir): (&Stack, &Store, AccountId, &std::path::Path),
    mut server: Child,
    ids: &[i64],
    channel: &str,
    run: usize,
) {
    quiescent(config, store, stack).await;
    server.kill().await.unwrap();
    for id in ids {
        let billing = records::find::<Billing>(store, account, BillingId::new(*id)).await.unwrap().unwrap();
        assert_eq!(billing.status, BillingStatus::Paid, "billing {id}");
        assert_eq!(billing.gw_received_with.as_deref(), Some(channel), "billing {id}");
    }
    let kept = billing_api::payments::to_refund(store, account, 10).await.unwrap();
    assert!(kept.is_empty(), "nothing paid twice: {kept:?}");
    dead_letters_empty(config, stack, run).await;
    let _ = aws_sdk_dynamodb::Client::new(config).delete_table().table_name(&stack.table).send().await;
    let _ = std::fs::remove_dir_all(dir);
}

/// A payer pays `token`'s billing by card on its page; whether the page said it was paid.
async fn pay_by_card(http: &reqwest::Client, root: &str, token: &str) -> bool {
    let done = infra::testing::pay_by_card(http, root, token, "4242424242424242").await;
    done.is_some_and(|done| done["stage"] == "succeeded")
}

/// `infra/ops reminders run` killed with SIGKILL at a random moment while it e-mails a day's
/// reminders, then run again to the end: every billing has one delivery, and no address got two
/// e-mails (one killed in the provider's call is `failed`, not sent again: at most once). The
/// billings are made through an in-process server on a table of its own (no second dev server
/// polling the queues beside the other kill tests').
#[tokio::test]
async fn a_reminders_run_killed_midway_sends_each_reminder_once() {
    const BILLINGS: usize = 30;
    let _alone = ONE_AT_A_TIME.lock().await;
    let seed: u64 = std::env::var("KILL_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or_else(rand::random);
    let kill_after = Duration::from_millis(rand::rngs::StdRng::seed_from_u64(seed).random_range(100..1_500));
    eprintln!("reminders kill test: killed after {kill_after:?} (KILL_SEED={seed})");
    let server = infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await;
    let (account, auth) = infra::testing::active_account(&server.store).await;
    let rule = infra::ops::create_bank_rule(&server.store, account, "Banco simulado", "simulated", None).await.unwrap();
    let token = auth.trim_start_matches("Bearer ").to_owned();
    let client = Client { http: billing_api::config::http_client(), base: server.url("/v1"), token };
    let (day, due) = ("2032-01-05", "2032-01-08");
    let mut made = Vec::new();
    for n in 0..BILLINGS {
        let email = format!("kill-{}-{n}@example.com", server.store.table());
        let payer = json!({"contact": {"full_name": "Pagador Lembrado", "cpf": infra::testing::cpf(710_000_000 + n as u64),
            "email": email, "address_postal_code": "01310-100", "address_street": "Avenida Paulista",
            "address_number": "1000", "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
        let (status, payer) = client.send(reqwest::Method::POST, "/contacts", Some(payer)).await.unwrap();
        assert_eq!(status, 201, "{payer}");
        let body = json!({"billing": {"bank_rule_id": rule["bank_rule"]["id"], "contact_id": payer["id"], "due_date": due,
            "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
        let (status, billing) = client.send(reqwest::Method::POST, "/billings", Some(body)).await.unwrap();
        assert_eq!(status, 201, "{billing}");
        made.push((billing["id"].as_i64().unwrap(), email));
    }
    assert_eq!(server.register_billets().await, BILLINGS);

    let ops = std::path::Path::new(env!("CARGO_BIN_EXE_ops"));
    let run = || {
        let mut command = tokio::process::Command::new(ops);
        command
            .args(["reminders", "run", "--date", day, "--concurrency", "4", "--rate", "20"])
            .env("TABLE_NAME", server.store.table())
            .env("PAYER_BASE_URL", &server.base_url)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        command
    };
    let mut first = run().spawn().expect("infra/ops reminders run");
    tokio::time::sleep(kill_after).await;
    first.start_kill().expect("SIGKILL the run");
    let _ = first.wait().await;
    let before = sent_to(&made).await;
    let second = run().output().await.expect("infra/ops reminders run, again");
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stdout));
    let report: Value = serde_json::from_slice(&second.stdout).unwrap();
    eprintln!("reminders kill test: {before} e-mails before the kill; the second run: {report}");
    // A reminder the killed run had claimed is held until its claim expires; a run after that
    // settles it (failed: it may have reached SES, so it is not sent again).
    if report["failed"].as_u64() != Some(0) {
        tokio::time::sleep(billing_api::reminders::send::LEASE + Duration::from_secs(1)).await;
        let third = run().output().await.expect("infra/ops reminders run, a third time");
        let report: Value = serde_json::from_slice(&third.stdout).unwrap();
        assert_eq!(report["failed"], 0, "{report}");
    }

    let mut interrupted = 0;
    for (id, email) in &made {
        let found =
            billing_api::reminders::deliveries::of_billing(&server.store, account, BillingId::new(*id)).await.unwrap();
        assert_eq!(found.len(), 1, "billing {id}: {found:?}");
        let emails = infra::testing::sent_emails(email).await.len();
        assert!(emails <= 1, "{email} got {emails} e-mails");
        match found[0].status {
            billing_api::reminders::deliveries::Status::Sent => assert_eq!(emails, 1, "{email}"),
            billing_api::reminders::deliveries::Status::Failed => interrupted += 1,
            other => panic!("billing {id}: {other:?}"),
        }
    }
    assert!(interrupted <= 4, "at most the run's four in flight were interrupted: {interrupted}");
    let config = &server.config;
    let _ = aws_sdk_dynamodb::Client::new(config).delete_table().table_name(server.store.table()).send().await;
}

/// `infra/ops schedules run` killed with SIGKILL at a random moment while it issues a day's cycles,
/// then run again to the end: every schedule issued its cycle once (one billing each, one billet
/// registration each), whatever the kill cut. The schedules are made through an in-process server
/// on a table of its own.
#[tokio::test]
async fn a_schedules_run_killed_midway_issues_each_cycle_once() {
    const SCHEDULES: usize = 40;
    let _alone = ONE_AT_A_TIME.lock().await;
    let seed: u64 = std::env::var("KILL_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or_else(rand::random);
    let kill_after = Duration::from_millis(rand::rngs::StdRng::seed_from_u64(seed).random_range(50..1_200));
    eprintln!("schedules kill test: killed after {kill_after:?} (KILL_SEED={seed})");
    let server = infra::testing::DevServer::start_alone(billing_api::http::rate_limit::RateLimits::OFF).await;
    let (account, auth) = infra::testing::active_account(&server.store).await;
    let rule = infra::ops::create_bank_rule(&server.store, account, "Banco simulado", "simulated", None).await.unwrap();
    let token = auth.trim_start_matches("Bearer ").to_owned();
    let client = Client { http: billing_api::config::http_client(), base: server.url("/v1"), token };
    let payer = json!({"contact": {"full_name": "Pagador Recorrente", "cpf": infra::testing::cpf(720_000_001),
        "email": "recorrente@example.com", "address_postal_code": "01310-100", "address_street": "Avenida Paulista",
        "address_number": "1000", "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}});
    let (status, payer) = client.send(reqwest::Method::POST, "/contacts", Some(payer)).await.unwrap();
    assert_eq!(status, 201, "{payer}");
    let mut schedules = Vec::new();
    for _ in 0..SCHEDULES {
        let body = json!({"schedule": {"bank_rule_id": rule["bank_rule"]["id"], "contact_id": payer["id"],
            "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}],
            "due_day": 10, "start_date": "2032-03-01", "cycles": 12}});
        let (status, made) = client.send(reqwest::Method::POST, "/schedules", Some(body)).await.unwrap();
        assert_eq!(status, 201, "{made}");
        schedules.push(BillingId::new(made["id"].as_i64().unwrap()));
    }

    let ops = std::path::Path::new(env!("CARGO_BIN_EXE_ops"));
    let run = || {
        let mut command = tokio::process::Command::new(ops);
        command
            .args(["schedules", "run", "--date", "2032-03-01", "--concurrency", "4"])
            .env("TABLE_NAME", server.store.table())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        command
    };
    let mut first = run().spawn().expect("infra/ops schedules run");
    tokio::time::sleep(kill_after).await;
    first.start_kill().expect("SIGKILL the run");
    let _ = first.wait().await;
    let second = run().output().await.expect("infra/ops schedules run, again");
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stdout));
    let report: Value = serde_json::from_slice(&second.stdout).unwrap();
    eprintln!("schedules kill test: the second run: {report}");
    assert_eq!(report["failed"], 0, "{report}");

    for schedule in &schedules {
        let first =
            billing_api::billings::service::cycle_billing_of(&server.store, account, *schedule, 0).await.unwrap();
        assert!(first.is_some(), "schedule {schedule}: cycle 0 issued");
        let next =
            billing_api::billings::service::cycle_billing_of(&server.store, account, *schedule, 1).await.unwrap();
        assert_eq!(next, None, "schedule {schedule}: only cycle 0 is due");
        let path = format!("/billings?billing_id={schedule}&per_page=100");
        let (status, listed) = client.send(reqwest::Method::GET, &path, None).await.unwrap();
        assert_eq!(status, 200, "{listed}");
        assert_eq!(listed["billings"].as_array().map(Vec::len), Some(1), "schedule {schedule}: {listed}");
    }
    // The run's tasks, written by the ops process, are handed on by a sweep (as the sweeper does
    // on AWS for what the stream missed).
    let swept = billing_api::outbox::sweep(&server.store, &server.queues, billing_api::values::Timestamp::now(), 1_000);
    swept.await.unwrap();
    assert_eq!(server.register_billets().await, SCHEDULES, "one registration per cycle issued");
    let config = &server.config;
    let _ = aws_sdk_dynamodb::Client::new(config).delete_table().table_name(server.store.table()).send().await;
}

/// The e-mails sent to the addresses of `made` so far.
async fn sent_to(made: &[(i64, String)]) -> usize {
    let mut total = 0;
    for (_, email) in made {
        total += infra::testing::sent_emails(email).await.len();
    }
    total
}

/// Run `run` of the kill test `name`: its stack, its demo file's folder and the file, the dev
/// server started on them, its account, the table's store and a client of the API.
async fn launched(
    config: &aws_config::SdkConfig,
    run: usize,
    name: &str,
) -> (Stack, std::path::PathBuf, std::path::PathBuf, Child, AccountId, Store, Client) {
    let stack = Stack::new(run);
    let dir = std::env::temp_dir().join(format!("billing-kill-{name}-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let demo = dir.join("demo.json");
    let _ = std::fs::remove_file(&demo);
    let (server, base, token, account) = stack.start(&demo).await;
    billing_api::app::wire();
    let store = Store::new(aws_sdk_dynamodb::Client::new(config), stack.table.clone());
    let client = Client { http: billing_api::config::http_client(), base, token };
    (stack, dir, demo, server, account, store, client)
}

async fn one_run(config: &aws_config::SdkConfig, run: usize, kill_after: Duration) {
    let (stack, dir, demo, server, account, store, client) = launched(config, run, "engine").await;
    let world = the_world(&client, &store, account).await;
    let answers = killed_while_everything_runs(&client, server, kill_after, &world).await;
    for status in answers.creates.iter().flatten().chain(answers.bulk.iter()).chain(answers.settlement.iter()) {
        assert!(*status < 500, "run {run}: an answer {status}");
    }

    // Started again on the same storage; nothing more is asked of it.
    let (mut server, _, _, again) = stack.start(&demo).await;
    assert_eq!(again, account);
    quiescent(config, &store, &stack).await;
    server.kill().await.unwrap();

    check(&store, account, run, kill_after, &answers, &world.customers).await;
    dead_letters_empty(config, &stack, run).await;
    let _ = aws_sdk_dynamodb::Client::new(config).delete_table().table_name(&stack.table).send().await;
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("kill test: run {run} killed after {kill_after:?}: ok");
}

/// What a run works on: a payer, tagged customers, on-account sales and their settlement payer,
/// billings to pay off.
struct World {
    payer: ContactId,
    tag: i64,
    customers: Vec<ContactId>,
    to_pay_off: Vec<i64>,
}

/// The world of a run, made before the run starts.
async fn the_world(client: &Client, store: &Store, account: AccountId) -> World {
    let contact = |n: u64| {
        let name = ["Pagador Principal", "Financeira Parceira"][n as usize % 2];
        json!({"contact": {"full_name": name, "cpf": infra::testing::cpf(600_000_000 + n),
            "address_postal_code": "01310-100", "address_street": "Avenida Paulista", "address_number": "1000",
            "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": "SP"}})
    };
    let made = |answer: Option<(u16, Value)>| match answer {
        Some((201, body)) => body["id"].as_i64().unwrap(),
        other => panic!("not made: {other:?}"),
    };
    let payer = ContactId::new(made(client.send(reqwest::Method::POST, "/contacts", Some(contact(1))).await));
    let settler = ContactId::new(made(client.send(reqwest::Method::POST, "/contacts", Some(contact(2))).await));
    let tag = made(client.send(reqwest::Method::POST, "/tags", Some(json!({"tag": {"name": "Lote"}}))).await);
    let customers = infra::testing::tagged_customers(store, account, TagId::new(tag), BULK_CUSTOMERS).await;
    let changes = billing_api::accounts::AccountChanges {
        pos_enabled: Some(true),
        settlement_contact_id: Some(Some(settler)),
        ..Default::default()
    };
    billing_api::accounts::update(store, account, changes).await.unwrap();
    for n in 0..SALES {
        let amount = Money::parse(&format!("{}.00", 10 + n % 5)).unwrap();
        infra::ops::sale::create_sale(store, account, payer, amount, Some(amount), Vec::new(), Vec::new())
            .await
            .expect("a sale");
    }
    let mut to_pay_off = Vec::new();
    for _ in 0..PAY_OFFS {
        to_pay_off.push(made(client.send(reqwest::Method::POST, "/billings", Some(billing_body(payer))).await));
    }
    World { payer, tag, customers, to_pay_off }
}

/// The run: billings created, a bulk billing, a settlement and pay-offs all at once, and the server
/// killed `kill_after` it started; what each request was answered.
async fn killed_while_everything_runs(client: &Client, server: Child, kill_after: Duration, world: &World) -> Answers {
    let (payer, tag, to_pay_off) = (world.payer, world.tag, &world.to_pay_off);
    let mut bulk = billing_body(payer);
    bulk["billing"]["billing_issue_type"] = json!("bulk");
    bulk["billing"]["tag_id"] = json!(tag);
    bulk["billing"]["contact_id"] = Value::Null;
    let day = billing_api::values::today().to_string();
    let settle = json!({"receivable_settlement": {"reference": "acerto-kill", "cutoff_at": day}});
    let pay_off = json!({"billing": {"bank_account_id": 1, "discharge_reason": "payment_in_hand"}});
    let creates = async {
        use futures::stream::{self, StreamExt};
        stream::iter(0..CREATES)
            .map(|_| client.send(reqwest::Method::POST, "/billings", Some(billing_body(payer))))
            .buffer_unordered(IN_FLIGHT)
            .map(|answer| answer.map(|(status, _)| status))
            .collect::<Vec<_>>()
            .await
    };
    let pay_offs = futures::future::join_all(to_pay_off.iter().map(|id| {
        let path = format!("/billings/{id}/pay_off");
        let body = pay_off.clone();
        async move { (*id, client.send(reqwest::Method::POST, &path, Some(body)).await.map(|(s, _)| s)) }
    }));
    let work = async {
        tokio::join!(
            creates,
            client.send(reqwest::Method::POST, "/billings", Some(bulk)),
            client.send(reqwest::Method::POST, "/receivable_settlements", Some(settle)),
            pay_offs,
        )
    };
    let (created, bulk, settlement, paid) = killed_during(server, kill_after, work).await;
    Answers {
        creates: created,
        bulk: bulk.map(|(s, _)| s),
        settlement: settlement.map(|(s, _)| s),
        pay_offs: paid.into_iter().collect(),
    }
}

/// The queues of a run, by base name.
async fn queues(config: &aws_config::SdkConfig, stack: &Stack) -> HashMap<String, String> {
    let sqs = aws_sdk_sqs::Client::new(config);
    let mut urls = HashMap::new();
    for base in infra::local_stack::QUEUES {
        for name in [base.to_owned(), format!("{base}-dlq")] {
            let url = sqs.get_queue_url().queue_name(format!("{}{name}", stack.prefix)).send().await;
            urls.insert(name, url.unwrap().queue_url.unwrap());
        }
    }
    urls
}

/// Messages a queue holds, visible or not.
async fn held(sqs: &aws_sdk_sqs::Client, url: &str) -> i64 {
    use aws_sdk_sqs::types::QueueAttributeName as A;
    let names = [
        A::ApproximateNumberOfMessages,
        A::ApproximateNumberOfMessagesNotVisible,
        A::ApproximateNumberOfMessagesDelayed,
    ];
    let got = sqs.get_queue_attributes().queue_url(url).set_attribute_names(Some(names.to_vec())).send().await.unwrap();
    let attributes = got.attributes.unwrap_or_default();
    names.iter().map(|n| attributes.get(n).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0)).sum()
}

/// Waits until the outbox has nothing pending and no work queue nor tenant lane holds a message,
/// twice in a row.
async fn quiescent(config: &aws_config::SdkConfig, store: &Store, stack: &Stack) {
    let sqs = aws_sdk_sqs::Client::new(config);
    let urls = queues(config, stack).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    let mut calm = 0;
    while calm < 2 {
        assert!(tokio::time::Instant::now() < deadline, "the stack never came to rest");
        tokio::time::sleep(Duration::from_secs(1)).await;
        let pending = billing_api::outbox::pending(store, billing_api::values::Timestamp::now(), 1).await.unwrap();
        let mut busy = !pending.is_empty();
        for base in infra::local_stack::QUEUES {
            // The queue and its tenants' lanes, listed again each time (the worker makes a lane at
            // its tenant's first message): a message waiting in a lane is work not done.
            for lane in infra::workers::lanes_of(&sqs, &urls[base]).await.unwrap() {
                busy |= held(&sqs, &lane).await > 0;
            }
        }
        calm = if busy { 0 } else { calm + 1 };
    }
}

async fn dead_letters_empty(config: &aws_config::SdkConfig, stack: &Stack, run: usize) {
    let sqs = aws_sdk_sqs::Client::new(config);
    let urls = queues(config, stack).await;
    for base in infra::local_stack::QUEUES {
        assert_eq!(held(&sqs, &urls[&format!("{base}-dlq")]).await, 0, "run {run}: a dead letter in {base}");
    }
}

/// Every billing of the account (its key partitions).
async fn billings(store: &Store, account: AccountId) -> Vec<Billing> {
    let mut ids = Vec::new();
    for partition in keys::billing::billing_posting_shards(account, "billing", None) {
        ids.extend(store.partition_keys(partition).await.unwrap().iter().filter_map(|(_, sk)| keys::id_of(sk)));
    }
    let ids: Vec<BillingId> = ids.into_iter().map(BillingId::new).collect();
    records::find_many::<Billing>(store, account, &ids).await.unwrap()
}

/// Every follow-up of the run happened exactly once: each billing's billets and cash entries, the
/// pay-offs, the creates, the bulk billing and the settlement, as their answers allow.
async fn check(
    store: &Store,
    account: AccountId,
    run: usize,
    kill_after: Duration,
    answers: &Answers,
    customers: &[ContactId],
) {
    let at = |what: &str| format!("run {run} (killed after {kill_after:?}): {what}");
    let all = billings(store, account).await;
    check_billets_and_cash(store, account, &all, &at).await;
    for (id, answer) in &answers.pay_offs {
        let billing = all.iter().find(|b| b.id.get() == *id).expect("a billing paid off");
        if *answer == Some(200) {
            assert_eq!(billing.status, BillingStatus::Discharged, "{}", at("a pay-off answered 200"));
        }
    }
    // The creates: one billing each at most; each answered 201 is there.
    let individual = all.iter().filter(|b| b.billing_issue_type == IssueType::Individual).count();
    let answered = answers.creates.iter().filter(|a| **a == Some(201)).count();
    assert!(
        individual >= PAY_OFFS + answered && individual <= PAY_OFFS + CREATES,
        "{}",
        at(&format!("{individual} individual billings"))
    );
    // The bulk billing: every customer billed once, or (never accepted) none.
    let bulk: Vec<_> = all.iter().filter(|b| b.billing_issue_type == IssueType::Bulk).collect();
    let payers: BTreeSet<ContactId> = bulk.iter().filter_map(|b| b.contact_id).collect();
    assert_eq!(payers.len(), bulk.len(), "{}", at("a customer billed twice"));
    match answers.bulk {
        Some(202) => assert_eq!(bulk.len(), customers.len(), "{}", at("the bulk billing accepted")),
        _ => assert!(
            bulk.is_empty() || bulk.len() == customers.len(),
            "{}",
            at(&format!("{} bulk billings", bulk.len()))
        ),
    }
    check_settlement(store, account, &all, answers, &at).await;
}

/// Every billing: one billet per registration asked for, the current one registered (unless the
/// billing was paid off before its billet was issued); a cash entry when, and only when, it was
/// paid off.
async fn check_billets_and_cash(store: &Store, account: AccountId, all: &[Billing], at: &impl Fn(&str) -> String) {
    let entries = store.items_with_prefix(keys::account(account), "CASHENTRY#".to_owned(), true).await.unwrap();
    let mut cash: HashMap<BillingId, usize> = HashMap::new();
    for entry in entries {
        *cash.entry(from_item::<CashEntry>(entry).unwrap().billing_id).or_default() += 1;
    }
    for billing in all {
        let found = billets::of_billing(store, account, billing.id).await.unwrap();
        let generations: BTreeSet<i64> = found.iter().map(|b| b.generation).collect();
        assert_eq!(
            generations.len(),
            found.len(),
            "{}",
            at(&format!("billing {} has two billets of one registration", billing.id))
        );
        let current: Vec<_> = found.iter().filter(|b| b.generation == billing.billet_generation).collect();
        match billing.status {
            BillingStatus::Opened => {
                assert_eq!(current.len(), 1, "{}", at(&format!("billing {} has no billet", billing.id)));
                assert_eq!(current[0].status, BilletStatus::Opened, "{}", at(&format!("billing {}", billing.id)));
                assert_eq!(billing.billet_id, Some(current[0].id));
            }
            BillingStatus::Discharged => {
                assert!(current.iter().all(|b| b.status == BilletStatus::Discharged), "{}", at("a paid-off billet"));
            }
            other => panic!("{}", at(&format!("billing {} is {other}", billing.id))),
        }
        let entries = cash.get(&billing.id).copied().unwrap_or(0);
        assert_eq!(entries, usize::from(billing.status == BillingStatus::Discharged), "{}", at("cash entries"));
    }
}

/// The settlement: completed with every sale once and one billing, or (never accepted) none.
async fn check_settlement(
    store: &Store,
    account: AccountId,
    all: &[Billing],
    answers: &Answers,
    at: &impl Fn(&str) -> String,
) {
    let settlement = billing_api::pos::settlements::find(store, account, "acerto-kill").await.unwrap();
    if matches!(answers.settlement, Some(201 | 200)) {
        assert!(settlement.is_some(), "{}", at("the settlement accepted"));
    }
    let of_settlement: Vec<_> = all.iter().filter(|b| b.reference.as_deref() == Some("acerto-kill")).collect();
    match settlement {
        Some(settlement) => {
            assert_eq!(settlement.state, billing_api::values::SettlementState::Completed, "{}", at("the settlement"));
            assert_eq!(settlement.sales_count, SALES as i64, "{}", at("sales settled"));
            assert_eq!(of_settlement.len(), 1, "{}", at("the settlement's billings"));
            assert_eq!(of_settlement[0].amount, settlement.amount);
            for n in 1..=SALES {
                let sale: Sale =
                    sales::find(store, account, &sales::code_for(billing_api::values::SaleId::new(n as i64)))
                        .await
                        .unwrap()
                        .expect("a sale");
                assert_eq!(
                    (sale.due_amount, sale.settled_amount),
                    (Money::ZERO, sale.on_account_amount),
                    "{}",
                    at("a sale")
                );
            }
        }
        None => assert!(of_settlement.is_empty(), "{}", at("a settlement billing without its settlement")),
    }
}
