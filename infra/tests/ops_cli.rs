//! The real `ops` binary without a stack: every command's help and the version, a reader that
//! stops reading (`ops … | head -c 10`), destructive commands against AWS refused without `--yes`
//! before any AWS call, and `--local`. AWS here is a fake endpoint on 127.0.0.1 that answers every
//! request `{}` and counts them; nothing reaches the network.

use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use clap::CommandFactory as _;
use serde_json::Value;

const OPS: &str = env!("CARGO_BIN_EXE_ops");

/// The binary with none of this environment's AWS, stack or local settings, dummy credentials, no
/// instance metadata, and stdin not a terminal.
fn ops(args: &[&str]) -> Command {
    let mut command = Command::new(OPS);
    command.args(args);
    for (name, _) in std::env::vars() {
        let ours = ["TABLE_NAME", "REST_API_ID", "API_STAGE", "LOCAL_API_URL", "WEBHOOK_KEY_SECRET_ID"];
        if name.starts_with("AWS_") || name.starts_with("OPS_") || ours.contains(&name.as_str()) {
            command.env_remove(name);
        }
    }
    command
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_CONFIG_FILE", "/nonexistent/aws-config")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
        .stdin(Stdio::null());
    command
}

fn run(command: &mut Command) -> Output {
    command.output().expect("run ops")
}

/// The JSON error a failed run printed on stderr.
fn error_of(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let error: Value = serde_json::from_str(stderr.trim()).unwrap_or_else(|_| panic!("a JSON error: {stderr}"));
    error["error"].as_str().expect("an error message").to_owned()
}

/// A stdout whose reader is already gone: every write fails with a broken pipe.
fn closed_stdout() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Stdio::from(writer)
}

/// A fake AWS endpoint: answers every request `200 {}` (an empty DynamoDB answer) and counts them.
struct FakeAws {
    url: String,
    requests: Arc<AtomicUsize>,
}

impl FakeAws {
    fn start() -> FakeAws {
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let app = axum::Router::new().fallback(move || {
                    let counted = counted.clone();
                    async move {
                        counted.fetch_add(1, Ordering::SeqCst);
                        ([("content-type", "application/x-amz-json-1.0")], "{}")
                    }
                });
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        });
        FakeAws { url, requests }
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Every command path of the CLI (`["webhook", "reseal"]`, …), groups included.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, path: Vec<String>, paths: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands().filter(|sub| sub.get_name() != "help") {
            let mut next = path.clone();
            next.push(sub.get_name().to_owned());
            paths.push(next.clone());
            walk(sub, next, paths);
        }
    }
    let mut paths = vec![Vec::new()];
    walk(&infra::ops::Cli::command(), Vec::new(), &mut paths);
    paths
}

/// What `ops <path> --help` prints, checked to be a help printed without a stack.
fn help_of(path: &[String]) -> String {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let output = run(&mut ops(&args));
    assert!(output.status.success(), "{args:?}: {output:?}");
    let help = String::from_utf8(output.stdout).unwrap();
    assert!(help.contains("Usage: ops"), "{args:?}: {help}");
    assert!(output.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    help
}

#[test]
fn every_commands_help_and_the_version_need_no_stack() {
    let paths = command_paths();
    assert!(paths.len() > 40, "{} command paths", paths.len());
    for path in paths {
        help_of(&path);
    }
    let version = run(&mut ops(&["--version"]));
    assert!(version.status.success());
    assert!(String::from_utf8(version.stdout).unwrap().starts_with("ops "));
    for args in [&["help"][..], &["help", "token"], &["token", "help", "revoke"], &["-h"]] {
        let output = run(&mut ops(args));
        assert!(output.status.success() && !output.stdout.is_empty(), "{args:?}: {output:?}");
    }
}

/// Every bank layout's `bank_symbol` (lib/src/billets/banks/).
const BANK_LAYOUTS: [&str; 8] =
    ["itau", "itau_400", "bradesco", "bradesco_400", "banco_do_brasil", "santander", "caixa", "sicoob"];

/// The help texts say what the CLI works on today: the bank files' commands name every bank
/// layout they make and read, no help points to the README (its sections move to docs/), and
/// every `docs/<file>.md` a help names is in the repository.
#[test]
fn every_help_text_names_what_is_there_today() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut docs = BTreeSet::new();
    for path in command_paths() {
        let (help, words) = (help_of(&path), path.join(" "));
        assert!(!help.contains("README"), "`ops {words} --help` names the README: {help}");
        for (at, _) in help.match_indices("docs/") {
            let named: String =
                help[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c)).collect();
            if let Some(file) = named.find(".md").map(|end| &named[..end + 3]) {
                docs.insert((file.to_owned(), words.clone()));
            }
        }
        if matches!(path.first().map(String::as_str), Some("remittance" | "return")) {
            let said: BTreeSet<&str> = help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
            let missing: Vec<_> = BANK_LAYOUTS.iter().filter(|layout| !said.contains(*layout)).collect();
            assert!(missing.is_empty(), "`ops {words} --help` does not name {missing:?}: {help}");
        }
    }
    // The walk did find the pointers it checks (the runbook's, at least).
    assert!(docs.iter().any(|(file, _)| file == "docs/runbook.md"), "{docs:?}");
    for (file, words) in docs {
        assert!(root.join(&file).is_file(), "`ops {words} --help` names {file}, which is not in the repository");
    }
}

/// `ops … | head -c 10`: the reader goes away; the binary ends quietly, exit code 0, no panic.
#[test]
fn a_reader_that_stops_reading_ends_it_quietly() {
    let aws = FakeAws::start();
    let cases: [&[&str]; 4] = [&["--help"], &["--version"], &["token", "revoke", "--help"], &["account", "list"]];
    for args in cases {
        let output = run(ops(args).env("AWS_ENDPOINT_URL", &aws.url).env("TABLE_NAME", "t").stdout(closed_stdout()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(output.status.code(), Some(101), "{args:?}: {stderr}");
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    // The JSON command did run and does print when read.
    let listed = run(ops(&["account", "list"]).env("AWS_ENDPOINT_URL", &aws.url).env("TABLE_NAME", "t"));
    assert!(listed.status.success(), "{listed:?}");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed, serde_json::json!({ "accounts": [], "next_after": null }));

    // As `| head -c 10` does it: read ten bytes, then close.
    let mut child = ops(&["--help"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked") && output.status.code() != Some(101), "{stderr}");
}

const REVOKE: [&str; 6] = ["token", "revoke", "--account", "1", "--id", "2"];

#[test]
fn destructive_commands_against_aws_without_yes_and_without_a_terminal_are_refused_before_any_call() {
    let aws = FakeAws::start();
    let refusals: [&[&str]; 6] = [
        &REVOKE,
        &["account", "update", "--id", "1", "--status", "locked"],
        &["webhook", "reseal"],
        &["sale", "return", "--account", "1", "--sale", "V1", "--amount", "5.00"],
        // Refunds give real money back: the most destructive thing the CLI does.
        &["pix", "refund", "--account", "1", "--end-to-end-id", "E00000000202603201234abcdefghijk"],
        &["gateway", "refund", "--account", "1", "--billing", "2"],
    ];
    for args in refusals {
        // --stack targets AWS whatever the endpoint; the fake one would count any call.
        let output = run(ops(args).args(["--stack", "prod"]).env("AWS_ENDPOINT_URL", &aws.url));
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(output.stdout.is_empty());
        let error = error_of(&output);
        assert!(error.contains("pass --yes") && error.contains("Nothing was done"), "{error}");
    }
    assert_eq!(aws.requests(), 0, "refused before any AWS call");

    // A harmless command, and the destructive one with --yes, go on: here to the fake AWS, whose
    // answer is no stack's.
    let yes: [&[&str]; 2] = [&["token", "list", "--account", "1", "--stack", "prod"], &["--stack", "prod", "--yes"]];
    for args in yes {
        let mut command = ops(args);
        if args.contains(&"--yes") {
            command.args(REVOKE);
        }
        let output = run(command.env("AWS_ENDPOINT_URL", &aws.url));
        assert_eq!(output.status.code(), Some(1), "{args:?}: {output:?}");
        assert!(error_of(&output).contains("DescribeStacks"), "{}", error_of(&output));
    }
    assert!(aws.requests() >= 2);
}

#[test]
fn the_local_stack_asks_nothing_and_local_reads_its_file() {
    let aws = FakeAws::start();
    let dir = std::env::temp_dir().join(format!("ops-cli-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("stack.env");
    std::fs::write(
        &file,
        format!(
            "export AWS_ENDPOINT_URL={}\nexport AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1\n\
             export TABLE_NAME=billing-service\nexport WEBHOOKS_ALLOW_INSECURE_LOCAL=${{WEBHOOKS_ALLOW_INSECURE_LOCAL:-0}}\n",
            aws.url
        ),
    )
    .unwrap();

    // No confirmation locally: the revocation runs (and finds no such token in the empty table).
    let output = run(ops(&["--local"]).args(REVOKE).env("OPS_LOCAL_ENV", &file));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(error_of(&output), "account 1 has no token 2");
    assert!(aws.requests() >= 1);
    let listed = run(ops(&["--local", "account", "list"]).env("OPS_LOCAL_ENV", &file));
    assert!(listed.status.success(), "{listed:?}");

    // Without the file: say to start the local stack. With --stack too: refuse.
    let missing = run(ops(&["--local", "account", "list"]).env("OPS_LOCAL_ENV", dir.join("absent.env")));
    assert_eq!(missing.status.code(), Some(1));
    assert!(error_of(&missing).contains("start the local stack first"), "{}", error_of(&missing));
    let both = run(&mut ops(&["--local", "--stack", "prod", "account", "list"]));
    assert_eq!(both.status.code(), Some(2), "a usage error");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The ops binary against the local stack (moto, as infra/test starts it) with these variables:
/// its exit code and its JSON (stdout on success, the error on stderr otherwise).
async fn ops_local(args: &[&str], env: &[(&str, &str)]) -> (i32, Value) {
    let output = tokio::process::Command::new(OPS)
        .args(args)
        .envs(env.iter().copied())
        .env_remove("OPS_STACK")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run ops");
    let text = if output.status.success() { &output.stdout } else { &output.stderr };
    let json = serde_json::from_slice(text).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into()));
    (output.status.code().unwrap_or(-1), json)
}

/// A master key rotation as the runbook does it: the new key put first with the old one below,
/// `webhook reseal` moves every receiver of every account to the new key (and again changes
/// nothing), and once the old line is dropped every signing secret still opens, unchanged.
#[tokio::test]
async fn a_master_key_rotation_reseals_every_receiver_and_the_old_key_can_go() {
    let (config, _) = infra::testing::local_stack().await;
    // A table and a master key of its own: its accounts and receivers are this test's alone.
    let suffix = format!("{:08x}", rand::random::<u32>());
    let (table, secret) = (format!("billing-reseal-{suffix}"), format!("billing-reseal-key-{suffix}"));
    infra::local_stack::ensure_table(&aws_sdk_dynamodb::Client::new(&config), &table).await.expect("a table");
    let secrets = aws_sdk_secretsmanager::Client::new(&config);
    secrets.create_secret().name(&secret).secret_string("old-key").send().await.expect("a master key");
    let env = [
        ("TABLE_NAME", table.as_str()),
        ("WEBHOOK_KEY_SECRET_ID", secret.as_str()),
        ("WEBHOOKS_ALLOW_INSECURE_LOCAL", "1"),
    ];
    let ops = |args: Vec<String>| async move {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, output) = ops_local(&args, &env).await;
        assert_eq!(code, 0, "{args:?}: {output}");
        output
    };
    let words = |text: &str| text.split(' ').map(str::to_owned).collect::<Vec<_>>();

    let mut shown = Vec::new();
    for (account, receivers) in [(1, 2), (2, 0), (3, 1)] {
        ops(words("account create --name Loja")).await;
        for port in 0..receivers {
            let url = format!("http://127.0.0.1:{}/hook", 9000 + port);
            let added = ops(words(&format!("webhook add --account {account} --url {url}"))).await;
            let id = added["webhook"]["id"].as_i64().unwrap();
            shown.push((account, id, added["webhook"]["secret"].as_str().unwrap().to_owned()));
        }
    }

    let put = |value: &'static str| {
        let (secrets, secret) = (secrets.clone(), secret.clone());
        async move { secrets.put_secret_value().secret_id(secret).secret_string(value).send().await.expect("put") }
    };
    put("new-key\nold-key").await;
    let resealed = ops(words("webhook reseal")).await;
    let counts = |r: &Value| {
        ["accounts", "receivers", "resealed", "already_current"].map(|key| r[key].as_u64().unwrap_or(u64::MAX))
    };
    assert_eq!(counts(&resealed), [2, 3, 3, 0], "{resealed}");
    assert_eq!(resealed["unopened"], serde_json::json!([]), "{resealed}");
    assert_eq!(resealed["master_key_lines"], 2);
    let again = ops(words("webhook reseal")).await;
    assert_eq!(counts(&again), [2, 3, 0, 3], "idempotent: {again}");
    let one = ops(words("webhook reseal --account 1")).await;
    assert_eq!(counts(&one), [1, 2, 0, 2], "{one}");

    // The old key dropped: every secret opens under the new one alone, as it was.
    put("new-key").await;
    for (account, id, secret) in &shown {
        let now = ops(words(&format!("webhook show --account {account} --id {id}"))).await;
        assert_eq!(now["webhook"]["secret"].as_str(), Some(secret.as_str()), "{now}");
    }
    // Under the old key alone nothing opens any more: re-seal says so and changes nothing.
    put("old-key").await;
    let lost = ops(words("webhook reseal")).await;
    assert_eq!(lost["unopened"].as_array().map(Vec::len), Some(3), "{lost}");
    assert_eq!(lost["resealed"], 0);
    put("new-key").await;
    let _ = secrets.delete_secret().secret_id(&secret).force_delete_without_recovery(true).send().await;
}
