//! The local dev server: creates the table, queues, secret and bucket when missing, seeds the demo account,
//! prints the base URL and token, and serves `/v1` on 127.0.0.1 until Ctrl-C.

use std::path::PathBuf;

use anyhow::Context as _;
use billing_api::app::AppState;
use billing_api::auth::AuthCache;
use billing_api::http::rate_limit::RateLimits;
use billing_api::store::Store;
use billing_api::webhooks::secrets::MasterKey;
use billing_api::webhooks::{Policy, Schedule, SecretBox, Sender};
use clap::Parser;
use infra::workers::Worker;
use std::sync::Arc;

#[derive(Parser, Debug)]
#[command(about = "Serves the billing API locally against the local stack")]
struct Args {
    /// Address to listen on (loopback only by default).
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on.
    #[arg(long, env = "PORT", default_value_t = 3000)]
    port: u16,
    /// Port of the Pix webhook listener (mutual TLS), when the local PSP's certificates are there.
    #[arg(long, env = "PIX_PORT", default_value_t = 3443)]
    pix_port: u16,
    /// Where the demo account id and plain token are kept between starts (git-ignored).
    #[arg(long, env = "DEMO_FILE", default_value = ".local/demo.json")]
    demo_file: PathBuf,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    billing_api::telemetry::init();
    billing_api::app::wire();
    let args = Args::parse();
    let config = billing_api::config::aws().await;
    let table = billing_api::config::table_name();
    let resources = infra::local_stack::ensure(&config, &table)
        .await
        .context("prepare the local stack (is the moto server running? see infra/run)")?;
    let (store, stream) = infra::dev_server::streamed_store(Store::new(aws_sdk_dynamodb::Client::new(&config), table));
    let demo = infra::demo::ensure(&store, &args.demo_file).await?;

    let limits = RateLimits::from_env()?;
    let policy = Policy::from_env();
    let listener = infra::dev_server::listen(&args.host, args.port)
        .await
        .with_context(|| format!("listen on {}:{}", args.host, args.port))?;
    let base = format!("http://{}", listener.local_addr()?);
    // The PSPs' Pix webhook, over mutual TLS, when the local PSP's certificates are there (infra/run).
    let pix_tls = infra::pix_listener::PixTls::from_env();
    let pix_listener = match &pix_tls {
        Some(_) => Some(
            infra::dev_server::listen(&args.host, args.pix_port)
                .await
                .with_context(|| format!("listen on {}:{} (the Pix webhook)", args.host, args.pix_port))?,
        ),
        None => None,
    };
    billing_api::billets::link::set_base(&base);
    let remittances = infra::dev_server::remittance_every();
    print_stack(&base, &demo, &resources, &policy, &limits, remittances);
    set_up_demo_channels(&config, &store, &demo, pix_listener.as_ref()).await?;
    println!("  Try:           curl -H 'Authorization: Bearer {}' {base}/v1/tags", demo.token);
    println!("Press Ctrl-C to stop.");

    let queues = local_queues(&config, &resources);
    let vault = Arc::new(SecretBox::from_env(&config).await.context("the webhook master key")?);
    let sender = Sender {
        store: store.clone(),
        queues: queues.clone(),
        vault: vault.clone(),
        client: billing_api::webhooks::client::Client::new(policy)?,
        schedule: Schedule::from_env(),
    };
    tokio::spawn(infra::dev_server::run_outbox(stream, store.clone(), queues.clone()));
    if let Some(every) = remittances {
        spawn_remittances(&config, store.clone(), every);
    }
    spawn_workers(&config, &resources, &store, &queues, sender);
    if let Some(every) = infra::dev_server::schedules_every() {
        tokio::spawn(infra::dev_server::run_schedules(store.clone(), queues.clone(), every));
    }
    let webhooks = billing_api::state::Webhooks { key: MasterKey::ready(vault), policy };
    let state = AppState::new(store).with_rate_limits(limits).with_webhooks(webhooks);
    if let Some(listener) = pix_listener {
        let tls = pix_tls.as_ref().expect("the listener's certificates").server_config()?;
        tokio::spawn(infra::pix_listener::serve(listener, infra::pix_listener::router(state.clone()), tls));
    }
    let router = infra::dev_server::router(state, AuthCache::default());
    infra::dev_server::serve(listener, router, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}

/// What the stack is: where the API, the demo account and the local resources are.
fn print_stack(
    base: &str,
    demo: &infra::demo::Demo,
    resources: &infra::local_stack::LocalResources,
    policy: &Policy,
    limits: &RateLimits,
    remittances: Option<std::time::Duration>,
) {
    println!("Billing API (local) is up.");
    println!("  Base URL:      {base}/v1");
    println!("  Demo account:  {}", demo.account_id);
    println!("  Demo token:    {}", demo.token);
    println!("  Table:         {}", resources.table);
    println!("  Queues:        {}", resources.queues.keys().cloned().collect::<Vec<_>>().join(", "));
    println!(
        "  Workers:       billet registration, bulk expansion, webhook deliveries, settlements, cascades, Pix charges, reminders, exports (in-process, each polling the lanes its bell rings)"
    );
    println!(
        "  Webhooks:      events and tasks handed on as written (the outbox swept at start, after each ops command and every minute); {} (WEBHOOKS_ALLOW_INSECURE_LOCAL)",
        match policy.allow_insecure_local {
            true => "http://127.0.0.1 receivers allowed",
            false => "https:// receivers on public addresses only",
        }
    );
    println!("  Rate limits:   {} (RATE_LIMIT_PER_IP / RATE_LIMIT_PER_TOKEN, 0 = off)", limits);
    println!(
        "  Payer pages:   {} (each billet's url; public, PAYER_RATE_LIMIT_PER_IP)",
        billing_api::billets::link::url("<token>")
    );
    println!(
        "  Bank files:    bucket {}; remittance job {} (REMITTANCE_EVERY_SECONDS, 0 = off)",
        resources.files_bucket,
        remittances.map_or_else(|| "off".to_owned(), |every| format!("every {} s", every.as_secs()))
    );
}

/// The demo account's channels on the local stand-ins that infra/run started: Pix on its Itaú
/// rule, cards through localstripe, WhatsApp reminders; each said in a line.
async fn set_up_demo_channels(
    config: &aws_config::SdkConfig,
    store: &Store,
    demo: &infra::demo::Demo,
    pix_listener: Option<&tokio::net::TcpListener>,
) -> anyhow::Result<()> {
    if let Some(listener) = pix_listener {
        let secrets = aws_sdk_secretsmanager::Client::new(config);
        let base = format!("https://{}", listener.local_addr()?);
        let rule =
            infra::demo::ensure_pix(store, &secrets, demo.account_id, &base).await.context("the demo's Pix rule")?;
        println!("  Pix:           bank rule {rule} (Itaú) of the demo account has a Pix charge on each billet; pay one with infra/ops --local pix pay --account {} --billet <id>", demo.account_id);
    }
    match pix_listener {
        Some(listener) => println!(
            "  Pix webhook:   https://{}/pix/<account>/<rule>/pix (mutual TLS: the local PSP's CA; PIX_PORT); local PSP {}",
            listener.local_addr()?,
            std::env::var("LOCAL_PSP_URL").unwrap_or_default()
        ),
        None => println!("  Pix webhook:   off (no LOCAL_PIX_CERTS: infra/run starts the local PSP)"),
    }
    // With the local localstripe, the demo account takes cards on its billets' pages.
    let server = billing_api::billets::link::url("");
    let server = server.trim_end_matches(billing_api::billets::link::PATH);
    match infra::ops::gateway::local_setup(store, demo.account_id, server, false).await.context("the demo's card gateway")? {
        Some(_) => println!(
            "  Cards:         the demo account's billets take cards (localstripe {}); webhook {server}/gateway/stripe/{}",
            std::env::var("LOCAL_STRIPE_URL").unwrap_or_default(),
            demo.account_id
        ),
        None => println!("  Cards:         off (no LOCAL_STRIPE_URL: infra/run starts localstripe)"),
    }
    // With the local WhatsApp stand-in, the demo account sends WhatsApp reminders too.
    let whatsapp = std::env::var("AWS_ENDPOINT_URL_SOCIALMESSAGING").is_ok();
    if whatsapp {
        let setup = billing_api::reminders::schedule::Setup {
            whatsapp_phone_number_id: Some(Some(infra::ops::reminders::LOCAL_WHATSAPP_NUMBER.to_owned())),
            ..Default::default()
        };
        billing_api::reminders::schedule::set_up(store, demo.account_id, &setup)
            .await
            .context("the demo's WhatsApp number")?;
    }
    println!(
        "  Schedules:     today's cycles issued every {} (SCHEDULES_EVERY_SECONDS, 0 = off); run a day with infra/ops --local schedules run --date D",
        infra::dev_server::schedules_every().map_or_else(|| "never".to_owned(), |every| format!("{} s", every.as_secs()))
    );
    println!(
        "  Reminders:     from {} through moto's SES (read them at {}/moto-api/data.json); WhatsApp {}; run a day with infra/ops --local reminders run --date D",
        billing_api::reminders::providers::default_sender(),
        std::env::var("AWS_ENDPOINT_URL").unwrap_or_default(),
        std::env::var("AWS_ENDPOINT_URL_SOCIALMESSAGING").map_or_else(|_| "off (no local stand-in)".to_owned(), |url| format!("through the local stand-in {url}"))
    );
    Ok(())
}

/// The local queues, each tenant's messages on a lane of its own beside its queue.
fn local_queues(
    config: &aws_config::SdkConfig,
    resources: &infra::local_stack::LocalResources,
) -> billing_api::jobs::Queues {
    let url = |name: &str| resources.queues[name].clone();
    use infra::local_stack::*;
    billing_api::jobs::Queues::new(aws_sdk_sqs::Client::new(config), url(BILLET_REGISTRATION_QUEUE))
        .with_bulk_expansion(url(BULK_EXPANSION_QUEUE))
        .with_webhook_deliveries(url(WEBHOOK_DELIVERIES_QUEUE))
        .with_settlements(url(SETTLEMENTS_QUEUE))
        .with_cascades(url(CASCADES_QUEUE))
        .with_pix_charges(url(PIX_CHARGES_QUEUE))
        .with_card_releases(url(CARD_RELEASES_QUEUE))
        .with_reminders(url(REMINDERS_QUEUE))
        .with_reminder_scans(url(REMINDER_SCANS_QUEUE))
        .with_schedule_cycles(url(SCHEDULE_CYCLES_QUEUE))
        .with_exports(url(EXPORTS_QUEUE))
        .with_tenant_lanes()
}

/// The remittance job every `every`, as the template's schedule runs it hourly on AWS.
fn spawn_remittances(config: &aws_config::SdkConfig, store: Store, every: std::time::Duration) {
    let files = billing_api::files::Files::from_config(config);
    // Its own thread and single-threaded runtime: the job's future is not `Send` (its steps
    // retried by a closure borrow the store), and it needs none of the server's threads.
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        match runtime {
            Ok(runtime) => runtime.block_on(infra::dev_server::run_remittances(store, files, every)),
            Err(error) => tracing::warn!(error = ?error, "no runtime for the remittance job"),
        }
    });
}

/// Every queue's worker, in-process, each on its queue's lanes as its bell rings them.
fn spawn_workers(
    config: &aws_config::SdkConfig,
    resources: &infra::local_stack::LocalResources,
    store: &Store,
    queues: &billing_api::jobs::Queues,
    sender: Sender,
) {
    use infra::local_stack::*;
    let reminders = infra::workers::Reminders {
        store: store.clone(),
        queues: queues.clone(),
        providers: billing_api::reminders::providers::Providers::from_env(config),
    };
    let workers = [
        (SETTLEMENTS_QUEUE, Worker::Settler { store: store.clone() }),
        (CASCADES_QUEUE, Worker::Cascader { store: store.clone() }),
        (PIX_CHARGES_QUEUE, Worker::PixCharges { store: store.clone() }),
        (CARD_RELEASES_QUEUE, Worker::CardReleases { store: store.clone() }),
        (SCHEDULE_CYCLES_QUEUE, Worker::ScheduleIssuer { store: store.clone() }),
        (REMINDERS_QUEUE, Worker::Reminders(Box::new(reminders))),
        (WEBHOOK_DELIVERIES_QUEUE, Worker::WebhookSender(Box::new(sender))),
        (BILLET_REGISTRATION_QUEUE, Worker::BilletRegistrar { store: store.clone() }),
        (BULK_EXPANSION_QUEUE, Worker::BulkExpander { store: store.clone() }),
        (
            EXPORTS_QUEUE,
            Worker::Exporter { store: store.clone(), files: billing_api::files::Files::from_config(config) },
        ),
    ];
    let sqs = aws_sdk_sqs::Client::new(config);
    for (queue, worker) in workers {
        let url = resources.queues[queue].clone();
        let bell = queues.bell(&url).expect("the local queues keep lanes");
        tokio::spawn(infra::workers::run_fair_worker(sqs.clone(), url, worker, bell));
    }
}
