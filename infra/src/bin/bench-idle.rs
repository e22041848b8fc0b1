//! What an idle local stack costs: the dev server (a child process, as infra/run starts it) serves
//! BENCH_IDLE_ACCOUNTS accounts (default 1,000) a contact and a billing each, so that each has a
//! lane on the billet-registration queue, and each gets a lane on every other queue too (as a
//! black-box run leaves them); then the CPU time the moto server (`MOTO_PID`) and the dev server
//! take is read from /proc while nothing is asked, for BENCH_IDLE_SECONDS (default 60), before
//! and after a restart of the dev server (which finds every lane again at its start).
//!
//!   infra/bench idle
//!   MOTO_PID=<pid> target/debug/bench-idle [--dev-server <another dev-server binary>]

use std::io::BufRead as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use billing_api::accounts::AccountStatus;
use billing_api::store::Store;
use infra::bench_stats::setting;

/// A phase of the bench and what each process spent in it.
struct Row {
    phase: String,
    seconds: f64,
    moto: f64,
    server: f64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let accounts: usize = setting("BENCH_IDLE_ACCOUNTS").unwrap_or(1000);
    let idle = Duration::from_secs(setting("BENCH_IDLE_SECONDS").unwrap_or(60));
    let moto: u32 = setting("MOTO_PID").context("MOTO_PID: the moto server's pid (infra/bench idle sets it)")?;
    let binary = dev_server_binary()?;
    let config = billing_api::config::aws().await;
    let table = format!("billing-bench-idle-{}", std::process::id());
    infra::local_stack::ensure_table(&aws_sdk_dynamodb::Client::new(&config), &table).await?;
    billing_api::app::wire();
    let store = Store::new(aws_sdk_dynamodb::Client::new(&config), table.clone());
    let mut rows = Vec::new();

    let mut server = DevServer::start(&binary, &table)?;
    let started = Instant::now();
    let (cpu_moto, cpu_server) = (cpu_seconds(moto)?, cpu_seconds(server.pid())?);
    let lanes = serve_accounts(&store, &server.url, accounts).await?;
    let queues = infra::local_stack::ensure_queues(&aws_sdk_sqs::Client::new(&config)).await?;
    let work_queues = queues.into_iter().filter(|(name, _)| !name.ends_with("-dlq")).collect();
    make_lanes(&aws_sdk_sqs::Client::new(&config), &work_queues, &lanes).await?;
    rows.push(Row {
        phase: format!("{accounts} accounts served a billing each, {} lanes made", lanes.len() * work_queues.len()),
        seconds: started.elapsed().as_secs_f64(),
        moto: cpu_seconds(moto)? - cpu_moto,
        server: cpu_seconds(server.pid())? - cpu_server,
    });
    // What this bench wrote itself (the accounts, their rules) is the dev server's to hand on, as
    // the ops CLI's writes are: it is told so, as the CLI tells it.
    infra::cache_flush::CacheFlusher::DevServer { base_url: server.url.clone() }.nudge_outbox().await;
    rows.push(settle(moto, &server, "until the served work is done").await?);
    rows.push(measure_idle(moto, &server, idle, "idle").await?);

    server.stop();
    let mut server = DevServer::start(&binary, &table)?;
    rows.push(settle(moto, &server, "a restart: its scan of every lane").await?);
    rows.push(measure_idle(moto, &server, idle, "idle after the restart").await?);
    server.stop();
    print(&rows, accounts, &binary);
    Ok(())
}

/// The dev server binary: `--dev-server PATH`, else the one beside this bench.
fn dev_server_binary() -> anyhow::Result<std::path::PathBuf> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--dev-server") {
        return Ok(args.get(at + 1).context("--dev-server PATH")?.into());
    }
    Ok(std::env::current_exe()?.with_file_name("dev-server"))
}

/// A dev server running as a child process on a free port.
struct DevServer {
    child: Child,
    url: String,
}

impl DevServer {
    /// Starts it on `table`, answered once it prints that it is up.
    fn start(binary: &std::path::Path, table: &str) -> anyhow::Result<DevServer> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let demo = std::env::temp_dir().join(format!("bench-idle-demo-{}.json", std::process::id()));
        let mut child = Command::new(binary)
            .env("PORT", port.to_string())
            .env("TABLE_NAME", table)
            .env("DEMO_FILE", &demo)
            .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".to_owned()))
            .env("RATE_LIMIT_PER_IP", "0")
            .env("RATE_LIMIT_PER_TOKEN", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(
                std::env::temp_dir().join(format!("bench-idle-server-{port}.log")),
            )?))
            .spawn()
            .with_context(|| format!("start {}", binary.display()))?;
        let stdout = child.stdout.take().context("the dev server's output")?;
        let mut lines = std::io::BufReader::new(stdout).lines();
        loop {
            let line = lines.next().context("the dev server stopped before it was up")??;
            if line.contains("is up") {
                break;
            }
        }
        // The rest of its output, read so that it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(DevServer { child, url: format!("http://127.0.0.1:{port}") })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `accounts` new accounts, each with a contact and a billing made through the dev server (so that
/// its billet is registered through the account's lane); their ids.
async fn serve_accounts(store: &Store, url: &str, accounts: usize) -> anyhow::Result<Vec<i64>> {
    use futures::StreamExt as _;
    let http = billing_api::config::http_client();
    let made = futures::stream::iter(0..accounts)
        .map(|_| serve_one(store, &http, url))
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    made.into_iter().collect()
}

async fn serve_one(store: &Store, http: &reqwest::Client, url: &str) -> anyhow::Result<i64> {
    let (account, auth) = infra::testing::account(store, AccountStatus::Active, true, false).await;
    billing_api::bank_rules::create(store, account, "Banco simulado", "simulated", None).await?;
    let post = |path: &str, body: serde_json::Value| {
        http.post(format!("{url}/v1/{path}")).header("Authorization", &auth).json(&body).send()
    };
    let contact = post("contacts", infra::bench_stats::payer()).await?;
    anyhow::ensure!(contact.status().as_u16() == 201, "POST /v1/contacts answered {}", contact.status());
    let contact: serde_json::Value = contact.json().await?;
    let billing = serde_json::json!({"billing": {"bank_rule_id": 1, "contact_id": contact["id"], "due_date": "2030-03-04",
        "billing_items": [{"description": "Mensalidade", "quantity": 1, "amount": "150.00"}]}});
    let answer = post("billings", billing).await?;
    anyhow::ensure!(answer.status().as_u16() == 201, "POST /v1/billings answered {}", answer.status());
    Ok(account.get())
}

/// An empty lane of every account on every queue, with its queue's settings (as the service makes
/// a lane: a lane made otherwise is one the service must adopt).
async fn make_lanes(
    sqs: &aws_sdk_sqs::Client,
    queues: &std::collections::BTreeMap<String, String>,
    accounts: &[i64],
) -> anyhow::Result<()> {
    use futures::StreamExt as _;
    let mut lanes = Vec::new();
    for url in queues.values() {
        let settings = lane_settings(sqs, url).await?;
        let queue = billing_api::jobs::queue_name_of(url).to_owned();
        for account in accounts {
            lanes.push((format!("{queue}{}{account}", billing_api::jobs::LANE_INFIX), settings.clone()));
        }
    }
    let made = futures::stream::iter(lanes)
        .map(|(name, settings)| sqs.create_queue().queue_name(name).set_attributes(Some(settings)).send())
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    for result in made {
        result.context("CreateQueue (a lane)")?;
    }
    Ok(())
}

type Settings = std::collections::HashMap<aws_sdk_sqs::types::QueueAttributeName, String>;

/// A queue's visibility timeout, retention and redrive policy (as JSON: moto answers a Python
/// dict), which its lanes take.
async fn lane_settings(sqs: &aws_sdk_sqs::Client, url: &str) -> anyhow::Result<Settings> {
    use aws_sdk_sqs::types::QueueAttributeName as Name;
    let asked = sqs.get_queue_attributes().queue_url(url);
    let asked = asked.attribute_names(Name::VisibilityTimeout).attribute_names(Name::MessageRetentionPeriod);
    let answer = asked.attribute_names(Name::RedrivePolicy).send().await.context("GetQueueAttributes")?;
    let mut settings = answer.attributes.unwrap_or_default();
    if let Some(policy) = settings.remove(&Name::RedrivePolicy) {
        let json: serde_json::Value = serde_json::from_str(&policy.replace('\'', "\""))?;
        settings.insert(Name::RedrivePolicy, json.to_string());
    }
    Ok(settings)
}

/// The CPU both processes take over `idle` once the server's lanes have settled (the worker's
/// linger after the last message, and a little more).
async fn measure_idle(moto: u32, server: &DevServer, idle: Duration, phase: &str) -> anyhow::Result<Row> {
    tokio::time::sleep(infra::workers::LINGER + Duration::from_secs(5)).await;
    let (cpu_moto, cpu_server) = (cpu_seconds(moto)?, cpu_seconds(server.pid())?);
    let started = Instant::now();
    tokio::time::sleep(idle).await;
    Ok(Row {
        phase: phase.to_owned(),
        seconds: started.elapsed().as_secs_f64(),
        moto: cpu_seconds(moto)? - cpu_moto,
        server: cpu_seconds(server.pid())? - cpu_server,
    })
}

/// From a restart until moto is quiet (under 5 % of a core over 5 s, or 10 minutes at most): the
/// dev server's scan of the lanes left from before.
async fn settle(moto: u32, server: &DevServer, phase: &str) -> anyhow::Result<Row> {
    let window = Duration::from_secs(5);
    let (cpu_moto, cpu_server) = (cpu_seconds(moto)?, cpu_seconds(server.pid())?);
    let started = Instant::now();
    loop {
        let before = cpu_seconds(moto)?;
        tokio::time::sleep(window).await;
        let quiet = cpu_seconds(moto)? - before < 0.05 * window.as_secs_f64();
        if quiet || started.elapsed() > Duration::from_secs(600) {
            break;
        }
    }
    Ok(Row {
        phase: phase.to_owned(),
        seconds: started.elapsed().as_secs_f64(),
        moto: cpu_seconds(moto)? - cpu_moto,
        server: cpu_seconds(server.pid())? - cpu_server,
    })
}

/// The CPU seconds (user and system) a process has taken, from /proc/<pid>/stat.
fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).with_context(|| format!("/proc/{pid}/stat"))?;
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').context("a stat line")?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
    Ok(ticks / clock_ticks())
}

/// Clock ticks a second (`getconf CLK_TCK`; 100 where it cannot be asked).
fn clock_ticks() -> f64 {
    let asked = Command::new("getconf").arg("CLK_TCK").output();
    asked.ok().and_then(|out| String::from_utf8(out.stdout).ok()?.trim().parse().ok()).unwrap_or(100.0)
}

fn print(rows: &[Row], accounts: usize, binary: &std::path::Path) {
    println!("idle local stack: {accounts} accounts, dev server {}", binary.display());
    println!("| phase | seconds | moto CPU s | moto % of a core | dev server CPU s | dev server % of a core |");
    println!("|---|---|---|---|---|---|");
    for row in rows {
        let share = |cpu: f64| 100.0 * cpu / row.seconds;
        println!(
            "| {} | {:.0} | {:.2} | {:.1} | {:.2} | {:.1} |",
            row.phase,
            row.seconds,
            row.moto,
            share(row.moto),
            row.server,
            share(row.server)
        );
    }
}
