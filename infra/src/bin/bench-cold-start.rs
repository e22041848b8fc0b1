//! Cold-start benchmark of the Lambda binaries (run it with `infra/bench cold-start`, which builds
//! them with the `coldstart` profile and starts a moto server; docs/cold-start.md).
//!
//! This process serves a minimal Lambda Runtime API on 127.0.0.1, then starts every binary of
//! `functions/Cargo.toml` (and the baselines: `hello`, the runtime alone; `hello-table`, with the
//! table client and one GetItem a call) with the environment Lambda and `template.yaml` give it,
//! hands it one event from `events/` and times, from the exec, its first `GET /next` (init) and
//! its first answer; then kills it. The table shows each init over hello's, and each first answer
//! over twice its init plus one storage round trip (hello-table's first answer less its init). BENCH_COLD_RUNS starts per binary
//! (default 20), one binary after the other in each round so that load from elsewhere on the
//! machine falls on all of them alike; a first round warms the page cache and is not counted.
//!
//! Needs `AWS_ENDPOINT_URL` (the local stack): the functions' first answers really read the table.
//! BENCH_BIN_DIR picks the binaries (default `target/coldstart`), BENCH_COLD_BINARIES a
//! comma-separated subset, BENCH_COLD_LOGS=1 prints what each binary logged in its first start, and
//! BENCH_CPU_SHARE (e.g. `0.145`, the vCPU share of a 256 MB function) runs each binary in a cgroup
//! (v1) limited to that share of one CPU.

use infra::bench_stats::{millis as ms, percentile, setting};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _};
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::mpsc;

/// The baseline binary: the runtime alone.
const HELLO: &str = "hello";
/// The second baseline: the runtime, the table client and one GetItem a call. Its first answer
/// less its init is one storage round trip from a cold process.
const HELLO_TABLE: &str = "hello-table";
/// Time a start may take before the bench gives up on it.
const GIVE_UP: Duration = Duration::from_secs(30);

/// What the emulated Runtime API saw of a started binary.
#[derive(Debug)]
enum Milestone {
    Polled(Instant),
    Answered(Instant, Answer),
}

#[derive(Debug)]
enum Answer {
    Response(String),
    Error(String),
    InitError(String),
}

/// The Runtime API of one start, on a port of its own (a killed process's last poll cannot reach
/// the next start): one event on the first poll; later polls wait until the process is killed.
#[derive(Clone)]
struct Emulator {
    function: String,
    event: Bytes,
    handed_out: Arc<AtomicBool>,
    seen: mpsc::UnboundedSender<Milestone>,
}

const REQUEST_ID: &str = "00000000-0000-4000-8000-00000000c01d";

fn invocation_headers(function: &str) -> HeaderMap {
    let deadline = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock") + Duration::from_secs(10);
    let arn = format!("arn:aws:lambda:us-east-1:123456789012:function:{function}");
    let mut headers = HeaderMap::new();
    let mut set = |name: &'static str, value: String| {
        headers.insert(name, HeaderValue::from_str(&value).expect("a header value"));
    };
    set("lambda-runtime-aws-request-id", REQUEST_ID.to_owned());
    set("lambda-runtime-deadline-ms", deadline.as_millis().to_string());
    set("lambda-runtime-invoked-function-arn", arn);
    set("lambda-runtime-trace-id", "Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=0".into());
    set("content-type", "application/json".into());
    headers
}

async fn next(State(emulator): State<Emulator>) -> Response {
    let at = Instant::now();
    if emulator.handed_out.swap(true, Ordering::SeqCst) {
        return std::future::pending().await;
    }
    let _ = emulator.seen.send(Milestone::Polled(at));
    (invocation_headers(&emulator.function), emulator.event.clone()).into_response()
}

async fn response(State(emulator): State<Emulator>, UrlPath(_): UrlPath<String>, body: String) -> StatusCode {
    let _ = emulator.seen.send(Milestone::Answered(Instant::now(), Answer::Response(body)));
    StatusCode::ACCEPTED
}

async fn error(State(emulator): State<Emulator>, UrlPath(_): UrlPath<String>, body: String) -> StatusCode {
    let _ = emulator.seen.send(Milestone::Answered(Instant::now(), Answer::Error(body)));
    StatusCode::ACCEPTED
}

async fn init_error(State(emulator): State<Emulator>, body: String) -> StatusCode {
    let _ = emulator.seen.send(Milestone::Answered(Instant::now(), Answer::InitError(body)));
    StatusCode::ACCEPTED
}

/// Serves the Runtime API on a free port of 127.0.0.1: its `host:port` and the serving task.
async fn serve(emulator: Emulator) -> anyhow::Result<(String, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let api = "/2018-06-01/runtime";
    let router = Router::new()
        .route(&format!("{api}/invocation/next"), get(next))
        .route(&format!("{api}/invocation/{{id}}/response"), post(response))
        .route(&format!("{api}/invocation/{{id}}/error"), post(error))
        .route(&format!("{api}/init/error"), post(init_error))
        .with_state(emulator);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    Ok((address, tokio::spawn(async move { axum::serve(listener, router).await })))
}

/// The workspace's root (this crate's parent folder).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_owned()
}

/// The `[[bin]]` names of `functions/Cargo.toml`, the baseline first.
fn binaries(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(name) = line.strip_prefix("name = ").filter(|_| in_bin) {
            names.push(name.trim_matches('"').to_owned());
        }
    }
    names.sort_by_key(|name| name != HELLO);
    names
}

/// The `*_QUEUE_URL` variables `template.yaml` gives each binary (by `BuildProperties.Binary`).
fn queue_variables(template: &str) -> HashMap<String, Vec<String>> {
    let mut found: HashMap<String, Vec<String>> = HashMap::new();
    let mut function: Option<String> = None;
    for line in template.lines() {
        let indent = line.len() - line.trim_start().len();
        let line = line.trim();
        if indent <= 2 && !line.is_empty() {
            function = None; // the next resource
        }
        if let Some(binary) = line.strip_prefix("Binary:") {
            function = Some(binary.trim().to_owned());
        } else if let (Some(function), Some((name, _))) = (&function, line.split_once(':')) {
            if name.ends_with("_QUEUE_URL") && name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                found.entry(function.clone()).or_default().push(name.to_owned());
            }
        }
    }
    found
}

/// The local queue a `*_QUEUE_URL` variable names (`CASCADES_QUEUE_URL` → `billing-cascades`).
fn queue_of(variable: &str) -> String {
    let base = variable.trim_end_matches("_QUEUE_URL").to_ascii_lowercase().replace('_', "-");
    format!("billing-{base}")
}

/// The event each binary answers without needing data: lists, messages about absent records.
fn event_of(binary: &str) -> anyhow::Result<Bytes> {
    let fixture = match binary {
        HELLO | HELLO_TABLE => return Ok(Bytes::from_static(br#"{"hello":"world"}"#)),
        "outbox-sweeper" => return Ok(Bytes::from_static(SCHEDULED_EVENT.as_bytes())),
        "authorizer" => "authorizer.json",
        "tags" => "tags-list.json",
        "groups" => "groups-list.json",
        "contacts" => "contacts-list.json",
        "bill-categories" => "bill-categories-list.json",
        "billings" => "billings-list.json",
        "bank-billets" => "bank-billets-list.json",
        // The fixture's token names no billet: the 404 page, after the one read of its link.
        "payer-page" => "payer-page-show.json",
        "point-of-sale" => "sales-list.json",
        // A list that opens no secret: the master key is read only by a route that needs it.
        "webhooks" => "events-list.json",
        "billet-registrar" => "billet-registration-sqs.json",
        "bulk-expander" => "bulk-expansion-sqs.json",
        "settlement-worker" => "settlement-sqs.json",
        "cascade-worker" => "cascade-sqs.json",
        "pix-charges" => "pix-charges-sqs.json",
        // No gateway for the fixture's account: nothing to release.
        "card-releases" => "card-releases-sqs.json",
        // No PSP link for the fixture's account: the Pix is not ours, nothing changes.
        "pix-webhook" => "pix-webhook.json",
        "pix-reconciler" => "pix-reconcile-schedule.json",
        // A reminder of a billing the fixture's account does not have: read, and nothing to send.
        "reminder-worker" => "reminder-worker-sqs.json",
        "reminder-planner" => "reminder-planner-schedule.json",
        // Nothing due in a fresh table: sixteen index reads, no message.
        "schedule-planner" => "schedule-planner-schedule.json",
        // A schedule the fixture's account does not have: read, and nothing to issue.
        "schedule-issuer" => "schedule-cycles-sqs.json",
        // No delivery of the fixture's reference: read, and ignored.
        "reminder-events" => "reminder-events-ses.json",
        "outbox-dispatcher" => "outbox-dispatcher-stream.json",
        "webhook-sender" => "webhook-sender-sqs.json",
        // Nothing due in a fresh table: the job reads the markers' partitions and reports.
        "remittance-job" => "remittance-schedule.json",
        // The fixture's object is not in the bucket: the read fails after the account's lookup.
        "return-files" => "return-file-s3.json",
        other => bail!("no event for the binary {other}: give it one in bench-cold-start's event_of"),
    };
    let path = root().join("events").join(fixture);
    Ok(std::fs::read(&path).with_context(|| format!("read {}", path.display()))?.into())
}

/// What EventBridge hands the sweeper each minute.
const SCHEDULED_EVENT: &str = r#"{"version":"0","id":"5f3c8d2e-0000-4000-8000-000000000001","detail-type":"Scheduled Event","source":"aws.events","account":"123456789012","time":"2026-11-22T12:00:00Z","region":"us-east-1","resources":["arn:aws:events:us-east-1:123456789012:rule/outbox-sweeper"],"detail":{}}"#;

/// A binary as the bench starts it: its path, environment and event.
struct Function {
    name: String,
    path: PathBuf,
    env: Vec<(String, String)>,
    event: Bytes,
}

/// Lambda's environment for `name` but the Runtime API's address (no `HOME`, as on Lambda), the local stack's endpoint and
/// the queue URLs `template.yaml` gives it.
fn environment(name: &str, stack: &Stack, queues: &[String]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = [
        ("AWS_LAMBDA_FUNCTION_NAME", name),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256"),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST"),
        ("AWS_LAMBDA_LOG_STREAM_NAME", "2026/11/22/[$LATEST]0123456789abcdef0123456789abcdef"),
        ("AWS_LAMBDA_LOG_GROUP_NAME", &format!("/aws/lambda/{name}")),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand"),
        ("AWS_EXECUTION_ENV", "AWS_Lambda_provided.al2023"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "ASIABENCHCOLDSTART00"),
        ("AWS_SECRET_ACCESS_KEY", "bench/cold/start/secret/access/key/0000000"),
        ("AWS_SESSION_TOKEN", "bench-cold-start-session-token"),
        ("AWS_ENDPOINT_URL", &stack.endpoint),
        ("TABLE_NAME", &stack.table),
        ("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true"),
        ("RUST_LOG", "info"),
        ("RATE_LIMIT_PER_IP", "300"),
        ("RATE_LIMIT_PER_TOKEN", "600"),
        ("WEBHOOK_KEY_SECRET_ID", &stack.webhook_key_secret),
        ("LAMBDA_TASK_ROOT", "/var/task"),
        ("LANG", "en_US.UTF-8"),
        ("TZ", ":UTC"),
        ("PATH", "/usr/local/bin:/usr/bin/:/bin:/opt/bin"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    for variable in queues {
        let url = stack.queues.get(&queue_of(variable)).cloned().unwrap_or_default();
        env.push((variable.clone(), url));
    }
    env
}

/// The local stack the functions answer from: table, queues and secret made when missing.
struct Stack {
    endpoint: String,
    table: String,
    queues: std::collections::BTreeMap<String, String>,
    webhook_key_secret: String,
}

async fn stack() -> anyhow::Result<Stack> {
    let endpoint = std::env::var("AWS_ENDPOINT_URL")
        .context("AWS_ENDPOINT_URL must name the local stack: run this with infra/bench cold-start")?;
    let config = billing_api::config::aws().await;
    let made = infra::local_stack::ensure(&config, &billing_api::config::table_name()).await?;
    Ok(Stack { endpoint, table: made.table, queues: made.queues, webhook_key_secret: made.webhook_key_secret })
}

/// One start: exec → first poll, exec → first answer, and what the answer was.
struct Sample {
    init: Duration,
    first_answer: Duration,
    answer: String,
    output: String,
}

/// Starts `function`, waits for its first answer, kills it.
async fn cold_start(function: &Function, cpu: Option<&CpuShare>) -> anyhow::Result<Sample> {
    let (seen, mut milestones) = mpsc::unbounded_channel();
    let handed_out = Arc::new(AtomicBool::new(false));
    let emulator = Emulator { function: function.name.clone(), event: function.event.clone(), handed_out, seen };
    let (runtime_api, server) = serve(emulator).await?;
    let mut command = tokio::process::Command::new(&function.path);
    command.env_clear().envs(function.env.iter().cloned()).env("AWS_LAMBDA_RUNTIME_API", runtime_api);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(cpu) = cpu {
        cpu.enter_on_exec(&mut command)?;
    }
    let started = Instant::now();
    let mut child = command.spawn().with_context(|| format!("start {}", function.path.display()))?;
    let outcome = watch(&mut milestones, &mut child).await;
    let _ = child.start_kill();
    let output = child.wait_with_output().await?;
    server.abort();
    let output = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let (polled, answered, answer) =
        outcome.with_context(|| format!("{} did not answer; its output:\n{output}", function.name))?;
    Ok(Sample { init: polled - started, first_answer: answered - started, answer: describe(&answer)?, output })
}

/// The first poll and the first answer of a started process.
async fn watch(
    milestones: &mut mpsc::UnboundedReceiver<Milestone>,
    child: &mut tokio::process::Child,
) -> anyhow::Result<(Instant, Instant, Answer)> {
    let mut polled = None;
    let deadline = tokio::time::sleep(GIVE_UP);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            milestone = milestones.recv() => match milestone.context("the emulator stopped")? {
                Milestone::Polled(at) => polled = Some(at),
                Milestone::Answered(_, Answer::InitError(body)) => bail!("init error: {body}"),
                Milestone::Answered(at, answer) => return Ok((polled.context("an answer before a poll")?, at, answer)),
            },
            status = child.wait() => bail!("exited with {}", status?),
            _ = &mut deadline => bail!("no answer within {GIVE_UP:?}"),
        }
    }
}

/// A short account of an answer: the HTTP status, the failures of a batch, the error type.
fn describe(answer: &Answer) -> anyhow::Result<String> {
    let (Answer::Response(body) | Answer::Error(body) | Answer::InitError(body)) = answer;
    let json: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    Ok(match answer {
        Answer::Error(_) => format!("error {}", json["errorType"].as_str().unwrap_or("?")),
        _ if json["statusCode"].is_number() => format!("HTTP {}", json["statusCode"]),
        _ if json["batchItemFailures"].is_array() => {
            format!("{} of batch failed", json["batchItemFailures"].as_array().map_or(0, Vec::len))
        }
        _ if json["policyDocument"].is_object() => "policy".to_owned(),
        _ => "ok".to_owned(),
    })
}

/// A cgroup (v1 `cpu`) limiting each started process to a share of one CPU, as Lambda sizes the
/// CPU by memory (1,769 MB = one vCPU). Removed when dropped.
struct CpuShare {
    dir: PathBuf,
}

impl CpuShare {
    const PERIOD_US: u64 = 10_000;

    fn new(share: f64) -> anyhow::Result<Self> {
        anyhow::ensure!(share > 0.0 && share <= 1.0, "BENCH_CPU_SHARE must be in (0, 1]");
        let dir = PathBuf::from(format!("/sys/fs/cgroup/cpu/bench-cold-start-{}", std::process::id()));
        std::fs::create_dir(&dir).with_context(|| format!("create the cgroup {} (cgroup v1, root)", dir.display()))?;
        let cpu = CpuShare { dir };
        std::fs::write(cpu.dir.join("cpu.cfs_period_us"), Self::PERIOD_US.to_string())?;
        std::fs::write(cpu.dir.join("cpu.cfs_quota_us"), ((Self::PERIOD_US as f64 * share) as u64).to_string())?;
        Ok(cpu)
    }

    /// Makes the process join the cgroup between fork and exec, so its whole start is limited.
    fn enter_on_exec(&self, command: &mut tokio::process::Command) -> anyhow::Result<()> {
        let procs = std::fs::OpenOptions::new().write(true).open(self.dir.join("cgroup.procs"))?;
        // SAFETY: between fork and exec only a write(2) on a file opened before the fork runs
        // (no allocation, no lock); "0" names the writing process.
        unsafe {
            command.pre_exec(move || (&procs).write_all(b"0"));
        }
        Ok(())
    }
}

impl Drop for CpuShare {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

fn bin_dir() -> PathBuf {
    std::env::var("BENCH_BIN_DIR").map(PathBuf::from).unwrap_or_else(|_| root().join("target/coldstart"))
}

/// The functions to start, with their environment and event.
fn functions(stack: &Stack) -> anyhow::Result<Vec<Function>> {
    let root = root();
    let bin_dir = bin_dir();
    let manifest = std::fs::read_to_string(root.join("functions/Cargo.toml"))?;
    let queues = queue_variables(&std::fs::read_to_string(root.join("template.yaml"))?);
    let only: Option<Vec<String>> =
        std::env::var("BENCH_COLD_BINARIES").ok().map(|list| list.split(',').map(|s| s.trim().to_owned()).collect());
    let mut chosen = Vec::new();
    for name in binaries(&manifest) {
        if only.as_ref().is_some_and(|only| !only.contains(&name)) {
            continue;
        }
        let path = bin_dir.join(&name);
        anyhow::ensure!(path.is_file(), "{} is missing: build it with the coldstart profile", path.display());
        let env = environment(&name, stack, queues.get(&name).map_or(&[][..], Vec::as_slice));
        chosen.push(Function { event: event_of(&name)?, name, path, env });
    }
    Ok(chosen)
}

/// The markdown table: init median and p90, first answer median, init against the baseline,
/// and the first answer against its bar: twice the function's init plus one storage
/// round trip (`hello-table`'s first answer less its init, medians).
fn report(functions: &[Function], samples: &[Vec<Sample>]) -> String {
    let median_init = |runs: &[Sample]| {
        let mut inits: Vec<Duration> = runs.iter().map(|s| s.init).collect();
        inits.sort();
        (percentile(&inits, 0.5), percentile(&inits, 0.9))
    };
    let median_first = |runs: &[Sample]| {
        let mut firsts: Vec<Duration> = runs.iter().map(|s| s.first_answer).collect();
        firsts.sort();
        percentile(&firsts, 0.5)
    };
    let of = |name: &str| functions.iter().position(|f| f.name == name);
    let hello = of(HELLO).map(|i| median_init(&samples[i]).0);
    let round_trip = of(HELLO_TABLE).map(|i| median_first(&samples[i]).saturating_sub(median_init(&samples[i]).0));
    let mut out = String::new();
    if let Some(round_trip) = round_trip {
        out.push_str(&format!("One storage round trip from a cold process ({HELLO_TABLE}): {} ms\n\n", ms(round_trip)));
    }
    out.push_str(
        "| binary | init median (ms) | init p90 (ms) | first answer median (ms) | init / hello | first answer / (2 × init + 1 round trip) | answer |\n\
         |---|---:|---:|---:|---:|---:|---|\n",
    );
    for (function, runs) in functions.iter().zip(samples) {
        let (init, init_p90) = median_init(runs);
        let first = median_first(runs);
        let ratio = hello.map_or("–".to_owned(), |h| format!("{:.2}×", init.as_secs_f64() / h.as_secs_f64()));
        let bar = round_trip.map_or("–".to_owned(), |trip| {
            format!("{:.2}", first.as_secs_f64() / (2.0 * init.as_secs_f64() + trip.as_secs_f64()))
        });
        let answer = runs.first().map_or("", |s| s.answer.as_str());
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            function.name,
            ms(init),
            ms(init_p90),
            ms(first),
            ratio,
            bar,
            answer
        ));
    }
    out
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let runs: usize = setting("BENCH_COLD_RUNS").unwrap_or(20).max(1);
    let logs = std::env::var_os("BENCH_COLD_LOGS").is_some();
    let cpu = setting::<f64>("BENCH_CPU_SHARE").map(CpuShare::new).transpose()?;
    let stack = stack().await?;
    let functions = functions(&stack)?;
    let mut samples: Vec<Vec<Sample>> = functions.iter().map(|_| Vec::new()).collect();
    for round in 0..=runs {
        for (function, taken) in functions.iter().zip(samples.iter_mut()) {
            let sample = cold_start(function, cpu.as_ref()).await?;
            if round == 0 && logs {
                eprintln!("--- {} ({}):\n{}", function.name, sample.answer, sample.output);
            }
            if round > 0 {
                taken.push(sample); // round 0 warms the page cache
            }
        }
    }
    let share = cpu.as_ref().map_or("all of the machine's CPU".to_owned(), |_| {
        format!("a {} share of one CPU", std::env::var("BENCH_CPU_SHARE").unwrap_or_default())
    });
    println!(
        "Cold starts: {runs} per binary, {share}, {} cores, binaries of {}\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        bin_dir().display()
    );
    print!("{}", report(&functions, &samples));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_variables_by_binary() {
        let template = "Resources:\n  TagsFunction:\n    Type: AWS::Serverless::Function\n    Metadata:\n      \
                        BuildProperties:\n        Binary: tags\n    Properties:\n      Environment:\n        \
                        Variables:\n          CASCADES_QUEUE_URL: !Ref CascadesQueue\n  CascadesQueue:\n    \
                        Type: AWS::SQS::Queue\n    Properties:\n      X_QUEUE_URL: no\n";
        let found = queue_variables(template);
        assert_eq!(found["tags"], vec!["CASCADES_QUEUE_URL".to_owned()]);
        assert_eq!(found.len(), 1);
        assert_eq!(queue_of("BILLET_REGISTRATION_QUEUE_URL"), "billing-billet-registration");
    }

    #[test]
    fn binaries_baseline_first() {
        let manifest = "[package]\nname = \"functions\"\n[[bin]]\nname = \"tags\"\n[[bin]]\nname = \"hello\"\n";
        assert_eq!(binaries(manifest), vec!["hello".to_owned(), "tags".to_owned()]);
    }
}
