//! The real `dev-server` and `ops` binaries, as `infra/run` and `infra/ops` start them, against the
//! local stack: the banner gives a base URL and a working token, a second start reuses the demo
//! account and token, and the ops CLI's account and token commands take effect on the running API.

use std::time::Duration;

use infra::webhook_receiver::{standard_webhooks_verify, Received, Receiver};
use serde_json::Value;
use tokio::process::Command;

type Server = infra::testing::DevServerProcess;

async fn start_dev_server(demo_file: &std::path::Path) -> Server {
    start_dev_server_with(demo_file, &[]).await
}

async fn start_dev_server_with(demo_file: &std::path::Path, env: &[(&str, &str)]) -> Server {
    Server::start(std::path::Path::new(env!("CARGO_BIN_EXE_dev-server")), demo_file, env).await
}

async fn status(server: &Server, token: &str, path: &str) -> u16 {
    billing_api::config::http_client()
        .get(format!("{}{path}", server.base_url))
        .header("Authorization", format!("Bearer {token}"))
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}

async fn ops(server: &Server, args: &[&str]) -> Value {
    ops_with(server, args, &[]).await.expect("ops succeeds")
}

/// The ops CLI with these variables: its JSON output, or its JSON error when it exits non-zero.
async fn ops_with(server: &Server, args: &[&str], env: &[(&str, &str)]) -> Result<Value, Value> {
    let origin = server.base_url.trim_end_matches("/v1");
    let output = Command::new(env!("CARGO_BIN_EXE_ops"))
        .args(args)
        .env("LOCAL_API_URL", origin)
        .envs(env.iter().copied())
        .output()
        .await
        .expect("run ops");
    match output.status.success() {
        true => Ok(serde_json::from_slice(&output.stdout).expect("ops prints JSON")),
        false => Err(serde_json::from_slice(&output.stderr).expect("ops prints a JSON error")),
    }
}

#[tokio::test]
async fn dev_server_and_ops_cli_work_together() {
    infra::testing::local_stack().await;
    let dir = std::env::temp_dir().join(format!("billing-binaries-{}", std::process::id()));
    let demo_file = dir.join("demo.json");
    let _ = std::fs::remove_file(&demo_file);

    let mut server = start_dev_server(&demo_file).await;
    assert!(server.base_url.starts_with("http://127.0.0.1:") && server.base_url.ends_with("/v1"));
    assert_eq!(server.token.len(), 52);
    assert_eq!(status(&server, &server.token, "/tags").await, 200);

    // A second start reuses the demo account and its token.
    server.child.kill().await.unwrap();
    let mut server = start_dev_server(&demo_file).await;
    let first_token = server.token.clone();
    assert_eq!(status(&server, &first_token, "/groups").await, 200);
    let again = start_dev_server(&demo_file).await;
    assert_eq!((again.account, again.token.as_str()), (server.account, first_token.as_str()));
    drop(again);

    // Accounts and tokens through the CLI.
    let created = ops(&server, &["account", "create", "--name", "Loja Exemplo"]).await;
    let account = created["account"]["id"].as_i64().unwrap().to_string();
    assert_eq!(created["account"]["status"], "active");
    let erp = ops(&server, &["token", "create", "--account", &account, "--name", "ERP"]).await;
    let bi = ops(&server, &["token", "create", "--account", &account, "--name", "BI"]).await;
    let erp_token = erp["plain_token"].as_str().unwrap().to_owned();
    let bi_token = bi["plain_token"].as_str().unwrap().to_owned();
    assert_eq!(status(&server, &erp_token, "/tags").await, 200);
    assert_eq!(status(&server, &bi_token, "/tags").await, 200);

    let listed = ops(&server, &["token", "list", "--account", &account]).await;
    let tokens = listed["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    assert!(tokens.iter().all(|t| t["token"].as_str().unwrap().starts_with("sct_…") && t.get("plain_token").is_none()));
    assert!(!listed.to_string().contains(&erp_token));

    let erp_id = erp["token"]["id"].to_string();
    let revoked = ops(&server, &["token", "revoke", "--account", &account, "--id", &erp_id]).await;
    assert_eq!(revoked["authorizer_cache"], "flushed");
    assert_eq!(status(&server, &erp_token, "/tags").await, 401);
    assert_eq!(status(&server, &bi_token, "/tags").await, 200);

    ops(&server, &["account", "update", "--id", &account, "--kyc", "pending"]).await;
    assert_eq!(status(&server, &bi_token, "/tags").await, 403);
    ops(&server, &["account", "update", "--id", &account, "--kyc", "approved", "--status", "overdue"]).await;
    assert_eq!(status(&server, &bi_token, "/tags").await, 403);
    let back = ops(&server, &["account", "update", "--id", &account, "--status", "active", "--pos", "on"]).await;
    assert_eq!(back["account"]["pos_enabled"], true);
    assert_eq!(status(&server, &bi_token, "/tags").await, 200);

    // Records created "elsewhere" for billings.
    let category = ops(&server, &["category", "create", "--account", &account, "--description", "Mensalidades"]).await;
    assert_eq!(category["bill_category"]["category_type"], "receivable");
    let rule = ops(&server, &["bank-rule", "create", "--account", &account, "--name", "Banco simulado"]).await;
    assert_eq!(rule["bank_rule"]["bank_symbol"], "simulated");
    let bank =
        ops(&server, &["bank-account", "create", "--account", &account, "--name", "Conta", "--type", "checking"]).await;
    assert_eq!(bank["bank_account"]["account_type"], "checking");
    assert_eq!(status(&server, &bi_token, "/bill_categories").await, 200);

    server.child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn ops_errors_are_json_on_stderr_with_a_failing_exit() {
    infra::testing::local_stack().await;
    let output = Command::new(env!("CARGO_BIN_EXE_ops"))
        .args(["account", "show", "--id", "987654321"])
        .output()
        .await
        .expect("run ops");
    assert!(!output.status.success());
    let error: Value = serde_json::from_slice(&output.stderr).expect("JSON error");
    assert!(error["error"].as_str().unwrap().contains("no account"));
}

async fn call(server: &Server, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
    let mut request = billing_api::config::http_client()
        .request(method, format!("{}{path}", server.base_url))
        .header("Authorization", format!("Bearer {}", server.token));
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.expect("request").json().await.expect("a JSON body")
}

/// A billing of 150.00 for a new contact, once the dev server's worker has registered its billet
/// (`opened`).
async fn opened_billing(server: &Server) -> i64 {
    let contact = serde_json::json!({"contact": {
        "full_name": "Maria da Silva", "cpf": "529.982.247-25", "address_postal_code": "01310-100",
        "address_street": "Avenida Paulista", "address_number": "1000", "address_district": "Bela Vista",
        "address_city": "São Paulo", "address_state": "SP"}});
    let contact = call(server, reqwest::Method::POST, "/contacts", Some(contact)).await["id"].clone();
    let billing = serde_json::json!({"billing": {"bank_rule_id": 1, "contact_id": contact, "due_date": "2030-03-04",
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
    let created = call(server, reqwest::Method::POST, "/billings", Some(billing)).await;
    let id = created["id"].as_i64().expect("a billing");
    let path = format!("/billings/{id}/bank_billets");
    let mut listed = Value::Null;
    for _ in 0..150 {
        listed = call(server, reqwest::Method::GET, &path, None).await;
        if listed["bank_billets"][0]["status"] == "opened" {
            return id;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the billet was not registered: {listed}");
}

#[tokio::test]
async fn the_dev_server_registers_billets_in_process_and_ops_pays_them() {
    infra::testing::local_stack().await;
    let dir = std::env::temp_dir().join(format!("billing-billets-{}", std::process::id()));
    let mut server = start_dev_server(&dir.join("demo.json")).await;
    let id = opened_billing(&server).await;
    let (account, billing) = (server.account.to_string(), id.to_string());
    let paid =
        ops(&server, &["billing", "pay", "--account", &account, "--billing", &billing, "--date", "2030-03-04"]).await;
    assert_eq!((paid["status"].as_str(), paid["display_amount_payable"].as_str()), (Some("paid"), Some("150.00")));
    assert_eq!(paid["bank_billets"][0]["paid_amount"], "150.00");
    server.child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_billing_paid_through_ops_reaches_three_receivers_signed() {
    infra::testing::local_stack().await;
    // A table and queues of its own: its outbox and queues carry only this test's events.
    let suffix = format!("{:08x}", rand::random::<u32>());
    let table = format!("billing-webhooks-{suffix}");
    let prefix = format!("w{suffix}-");
    let env = [
        ("TABLE_NAME", table.as_str()),
        ("QUEUE_NAME_PREFIX", prefix.as_str()),
        ("WEBHOOKS_ALLOW_INSECURE_LOCAL", "1"),
        ("WEBHOOK_RETRY_SCHEDULE", "1,1"),
    ];
    let dir = std::env::temp_dir().join(format!("billing-webhooks-{suffix}"));
    let mut server = start_dev_server_with(&dir.join("demo.json"), &env).await;
    let account = server.account.to_string();
    let receivers =
        [Receiver::start(&[], 200).await, Receiver::start(&[500], 200).await, Receiver::start(&[], 202).await];
    let mut secrets = Vec::new();
    for receiver in &receivers {
        let added = ops_with(&server, &["webhook", "add", "--account", &account, "--url", &receiver.url], &env).await;
        let added = added.expect("a receiver is added");
        secrets.push(added["webhook"]["secret"].as_str().unwrap().to_owned());
    }
    let fourth = ["webhook", "add", "--account", &account, "--url", "https://hooks.example.com/x"];
    let refused = ops_with(&server, &fourth, &env).await.expect_err("a fourth receiver is refused");
    assert!(refused["error"].as_str().unwrap().contains("already has 3 webhook receivers"), "{refused}");
    let listed = ops_with(&server, &["webhook", "list", "--account", &account], &env).await.unwrap();
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 3);

    let id = opened_billing(&server).await;
    let billing = id.to_string();
    let pay = ["billing", "pay", "--account", &account, "--billing", &billing, "--date", "2030-03-04"];
    let paid = ops_with(&server, &pay, &env).await.expect("paid");
    assert_eq!(paid["status"], "paid");

    let mut checked = Vec::new();
    for (receiver, secret) in receivers.iter().zip(&secrets) {
        let got = receiver.wait_for("the paid billing", |r| r.json()["data"]["billing"]["status"] == "paid").await;
        assert_eq!(got.json()["data"]["billing"], paid, "the event carries the billing as ops printed it");
        checked.push((secret.as_str(), got));
    }
    let pairs: Vec<(&str, &Received)> = checked.iter().map(|(s, r)| (*s, r)).collect();
    let verdict = standard_webhooks_verify(&pairs);
    assert_eq!(verdict["ok"], true, "{verdict}");
    // The receiver that answered 500 to its first delivery got the same delivery id again later.
    let first = receivers[1].received()[0].clone();
    let again = receivers[1]
        .wait_for("the retry", |r| r.header("webhook-id") == first.header("webhook-id") && r.at > first.at)
        .await;
    assert_eq!(again.body, first.body);

    // The log through the CLI: the paid event's three deliveries, delivered.
    let event = checked[0].1.json()["id"].as_str().unwrap().to_owned();
    let log =
        ops_with(&server, &["webhook", "deliveries", "--account", &account, "--event", &event], &env).await.unwrap();
    let statuses: Vec<&str> =
        log["deliveries"].as_array().unwrap().iter().map(|d| d["status"].as_str().unwrap()).collect();
    assert_eq!(statuses.len(), 3, "{log}");
    // The retried one may still be settling; each is delivered or about to be.
    let replayed =
        ops_with(&server, &["webhook", "replay", "--account", &account, "--event", &event], &env).await.unwrap();
    assert_eq!(
        replayed["replayed"].as_array().unwrap().len() + replayed["skipped_pending"].as_array().unwrap().len(),
        3
    );
    server.child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// The ops CLI alone (no dev server) with these variables: its exit code and its JSON (stdout on
/// success, the error on stderr otherwise).
async fn ops_alone(args: &[&str], env: &[(&str, &str)], unset: &[&str]) -> (i32, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ops"));
    command.args(args).envs(env.iter().copied()).env_remove("OPS_STACK");
    for name in unset {
        command.env_remove(name);
    }
    let output = command.output().await.expect("run ops");
    let code = output.status.code().unwrap_or(-1);
    let text = if output.status.success() { &output.stdout } else { &output.stderr };
    (code, serde_json::from_slice(text).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into())))
}

/// A table of its own (its account ids start at 1), made by `ops setup`.
async fn own_table(name: &str) -> (String, String) {
    let suffix = format!("{:08x}", rand::random::<u32>());
    let (table, prefix) = (format!("billing-{name}-{suffix}"), format!("o{suffix}-"));
    let env = [("TABLE_NAME", table.as_str()), ("QUEUE_NAME_PREFIX", prefix.as_str())];
    let (code, set_up) = ops_alone(&["setup"], &env, &[]).await;
    assert_eq!(code, 0, "{set_up}");
    (table, prefix)
}

fn ids(listed: &Value, key: &str) -> Vec<i64> {
    listed[key].as_array().unwrap_or_else(|| panic!("{listed}")).iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn ops_lists_accounts_and_their_records_a_page_at_a_time() {
    infra::testing::local_stack().await;
    let (table, _) = own_table("lists").await;
    let env = [("TABLE_NAME", table.as_str())];
    let ops = |args: Vec<&'static str>| async move {
        let (code, output) = ops_alone(&args, &env, &[]).await;
        assert_eq!(code, 0, "{args:?}: {output}");
        output
    };
    for name in ["Loja A", "Loja B", "Loja C"] {
        ops(vec!["account", "create", "--name", name]).await;
    }
    let first = ops(vec!["account", "list", "--limit", "2"]).await;
    assert_eq!((ids(&first, "accounts"), first["next_after"].as_i64()), (vec![1, 2], Some(2)));
    assert_eq!(first["accounts"][1]["name"], "Loja B");
    let rest = ops(vec!["account", "list", "--after", "2"]).await;
    assert_eq!((ids(&rest, "accounts"), rest["next_after"].clone()), (vec![3], Value::Null));

    for name in ["Banco 1", "Banco 2", "Banco 3"] {
        ops(vec!["bank-rule", "create", "--account", "1", "--name", name]).await;
    }
    ops(vec!["bank-rule", "create", "--account", "2", "--name", "Outra conta"]).await;
    let rules = ops(vec!["bank-rule", "list", "--account", "1", "--limit", "2"]).await;
    assert_eq!((ids(&rules, "bank_rules"), rules["next_after"].as_i64()), (vec![1, 2], Some(2)));
    let rules = ops(vec!["bank-rule", "list", "--account", "1", "--after", "2", "--limit", "2"]).await;
    assert_eq!((ids(&rules, "bank_rules"), rules["next_after"].clone()), (vec![3], Value::Null));
    assert_eq!(rules["bank_rules"][0]["name"], "Banco 3");

    ops(vec!["bank-account", "create", "--account", "1", "--name", "Conta", "--type", "checking"]).await;
    ops(vec!["bank-account", "create", "--account", "1", "--name", "Caixa", "--type", "cash"]).await;
    let banks = ops(vec!["bank-account", "list", "--account", "1"]).await;
    assert_eq!(ids(&banks, "bank_accounts"), vec![1, 2]);
    assert_eq!(banks["bank_accounts"][1]["account_type"], "cash");

    ops(vec!["category", "create", "--account", "1", "--description", "Mensalidades"]).await;
    ops(vec!["category", "create", "--account", "1", "--description", "Aluguel", "--type", "payable"]).await;
    let categories = ops(vec!["category", "list", "--account", "1"]).await;
    assert_eq!(ids(&categories, "bill_categories"), vec![1, 2]);
    assert_eq!(categories["bill_categories"][1]["category_type"], "payable");
    assert_eq!(ops(vec!["category", "list", "--account", "3"]).await["bill_categories"], serde_json::json!([]));

    let (code, error) = ops_alone(&["bank-rule", "list", "--account", "99"], &env, &[]).await;
    assert_eq!((code, error["error"].as_str()), (1, Some("no account 99")));
    let (code, _) = ops_alone(&["account", "list", "--limit", "0"], &env, &[]).await;
    assert_eq!(code, 2, "a limit out of 1..=1000 is a usage error");
}

#[tokio::test]
async fn local_only_commands_refuse_to_run_against_aws() {
    infra::testing::local_stack().await;
    let pay = ["billing", "pay", "--account", "1", "--billing", "1"];
    let (code, refused) = ops_alone(&pay, &[], &["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"]).await;
    assert_eq!(code, 2, "{refused}");
    let text = refused["error"].as_str().unwrap();
    assert!(text.starts_with("`billing pay` simulates the bank's payment"), "{text}");
    assert!(text.contains("runs only against the local stack") && text.contains("no AWS_ENDPOINT_URL is set"));
    // With --stack the run targets AWS even though the endpoint is the local one.
    let (code, refused) = ops_alone(&["--stack", "prod", "setup"], &[], &[]).await;
    assert_eq!(code, 2, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("(--stack was given)"), "{refused}");
}

#[tokio::test]
async fn with_stack_the_table_comes_from_the_stacks_outputs() {
    let (config, _) = infra::testing::local_stack().await;
    let (table, _) = own_table("stack").await;
    let (code, created) =
        ops_alone(&["account", "create", "--name", "Loja da pilha"], &[("TABLE_NAME", &table)], &[]).await;
    assert_eq!(code, 0, "{created}");
    let stack = format!("billing-ops-{:08x}", rand::random::<u32>());
    let template = serde_json::json!({
        "Resources": {"Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": format!("{stack}-q")}}},
        "Outputs": {
            "TableName": {"Value": table},
            "RestApiId": {"Value": "abc123"},
            "StageName": {"Value": "live"},
        }
    });
    let cloudformation = aws_sdk_cloudformation::Client::new(&config);
    cloudformation.create_stack().stack_name(&stack).template_body(template.to_string()).send().await.expect("a stack");
    // TABLE_NAME names another table: the stack's output wins.
    let env = [("TABLE_NAME", "not-this-table")];
    let (code, listed) = ops_alone(&["--stack", &stack, "account", "list"], &env, &[]).await;
    assert_eq!(code, 0, "{listed}");
    assert_eq!(listed["accounts"][0]["name"], "Loja da pilha");
    let (code, missing) = ops_alone(&["--stack", "no-such-stack", "account", "list"], &env, &[]).await;
    assert_eq!(code, 1);
    assert!(missing["error"].as_str().unwrap().contains("DescribeStacks of stack no-such-stack"), "{missing}");
    cloudformation.delete_stack().stack_name(&stack).send().await.expect("delete the stack");
}
