//! The ops CLI: accounts and API tokens, against AWS or the local stack (the standard AWS_* and
//! AWS_ENDPOINT_URL variables choose which; TABLE_NAME names the table, `--stack NAME` reads it
//! and the API from the stack's outputs, `--local` reads the local stack's `.local/stack.env`:
//! `infra::target`). The command line (`infra::ops::cli`) is parsed before anything else, so
//! `--help` and `--version` need no stack. Prints JSON; errors are JSON on stderr with exit code
//! 1, and 2 for a command refused before it started (local-only against AWS, or destructive and
//! not confirmed). A reader that stops reading (`ops … | head`) ends it quietly with exit code 0:
//! the operation itself went through.

use std::io::{IsTerminal as _, Write as _};

use anyhow::Context as _;
use billing_api::store::Store;
use billing_api::values::Timestamp;
use billing_api::webhooks::deliveries::Filter;
use billing_api::webhooks::{Policy, SecretBox};
use clap::Parser as _;
use infra::cache_flush::CacheFlusher;
use infra::ops;
use infra::ops::cli::{
    AccountCommand, BankAccountCommand, BankRuleCommand, BillingCommand, CategoryCommand, Cli, Command, ContactCommand,
    Destructive, PaymentCommand, PixCommand, RemindersCommand, RemittanceCommand, ReturnCommand, SaleCommand,
    TokenCommand, WebhookCommand,
};
use infra::target::{self, Consent, LocalOnly, NotConfirmed, StackOutputs, Target};
use infra::webhooks::WebhookOps;

fn main() {
    // The arguments first: help, the version and usage errors need no configuration and no AWS
    // (clap prints them, ignoring a closed pipe, and exits 0 or 2).
    let cli = Cli::try_parse().unwrap_or_else(|error| error.exit());
    if cli.local {
        // Before the runtime's threads start, so the variables are the process's from here on.
        match target::local_env() {
            Ok(variables) => variables.into_iter().for_each(|(name, value)| std::env::set_var(name, value)),
            Err(error) => fail(&error),
        }
    }
    let runtime = tokio::runtime::Runtime::new().expect("the async runtime");
    let result = runtime.block_on(async {
        let result = run(cli).await;
        nudge_local_outbox().await;
        result
    });
    match result {
        Ok(output) => {
            let written = ops::cli::write_json(&mut std::io::stdout().lock(), &output);
            match written {
                Ok(()) => {}
                // The reader has what it wanted (`| head`): quietly, as the operation went through.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
                Err(error) => fail(&anyhow::Error::new(error).context("write the output")),
            }
        }
        Err(error) => fail(&error),
    }
}

/// After a command against the local stack, the dev server (`LOCAL_API_URL`) hands on at once the
/// events and tasks the command wrote, instead of at its next minute's sweep.
async fn nudge_local_outbox() {
    if let Ok(base_url) = std::env::var("LOCAL_API_URL") {
        CacheFlusher::DevServer { base_url }.nudge_outbox().await;
    }
}

/// The error as JSON on stderr (ignoring a closed stderr), and its exit code.
fn fail(error: &anyhow::Error) -> ! {
    let _ = writeln!(std::io::stderr().lock(), "{}", serde_json::json!({ "error": format!("{error:#}") }));
    let code = match () {
        _ if error.downcast_ref::<LocalOnly>().is_some() => LocalOnly::EXIT_CODE,
        _ if error.downcast_ref::<NotConfirmed>().is_some() => NotConfirmed::EXIT_CODE,
        _ => 1,
    };
    std::process::exit(code)
}

/// The table, API and webhook names of this run: the stack's outputs with `--stack`, else the
/// environment's variables.
struct Names {
    table: String,
    flusher: CacheFlusher,
    webhook_key_secret: Option<String>,
    /// The bucket of bank files (`FILES_BUCKET`, or the stack's `FilesBucket`).
    files_bucket: String,
    /// Where the run works, for the confirmation question.
    place: String,
}

impl Names {
    async fn resolve(config: &aws_config::SdkConfig, stack: Option<&str>) -> anyhow::Result<Self> {
        let Some(stack) = stack else {
            // The payer links of what it shows and records: PAYER_BASE_URL, else the local API's.
            if let Ok(local) = std::env::var("LOCAL_API_URL") {
                billing_api::billets::link::set_base(&local);
            }
            let table = billing_api::config::table_name();
            return Ok(Names {
                place: format!("table {table}"),
                table,
                flusher: CacheFlusher::from_env(config),
                webhook_key_secret: None,
                files_bucket: billing_api::files::bucket_name(),
            });
        };
        let outputs = StackOutputs::describe(config, stack).await?;
        if let Some(base) = &outputs.payer_base_url {
            billing_api::billets::link::set_base(base);
        }
        let flusher = CacheFlusher::ApiGateway {
            client: aws_sdk_apigateway::Client::new(config),
            rest_api_id: outputs.rest_api_id,
            stage: outputs.stage_name,
        };
        Ok(Names {
            place: format!("stack {stack}, table {}", outputs.table_name),
            table: outputs.table_name,
            flusher,
            webhook_key_secret: outputs.webhook_key_secret_arn,
            files_bucket: outputs.files_bucket.unwrap_or_else(billing_api::files::bucket_name),
        })
    }
}

/// Asks on the terminal before a destructive command against AWS (its account named by id and
/// name); `Ok` once the operator typed yes.
async fn ask_first(store: &Store, names: &Names, action: &Destructive) -> anyhow::Result<()> {
    let account = match action.account {
        Some(id) => match billing_api::accounts::find(store, id).await {
            Ok(Some(found)) => format!(" Account {id}: {}.", found.name),
            Ok(None) => format!(" Account {id} does not exist."),
            Err(_) => String::new(),
        },
        None => String::new(),
    };
    let question = format!("On AWS ({}), this will {}.{account} Go ahead?", names.place, action.what);
    let answer = tokio::task::spawn_blocking(move || {
        target::ask(&question, &mut std::io::stdin().lock(), &mut std::io::stderr().lock())
    })
    .await?
    .context("read the answer")?;
    Ok(target::confirmed(&action.what, answer)?)
}

async fn run(cli: Cli) -> anyhow::Result<serde_json::Value> {
    let stack = cli.stack.as_deref().map(str::trim).filter(|s| !s.is_empty());
    anyhow::ensure!(!(cli.local && stack.is_some()), "give --local or --stack (OPS_STACK), not both");
    let target = Target::of(stack.is_some(), |name| std::env::var(name).ok());
    if let (Target::Aws, Some((command, why))) = (target, cli.command.local_only()) {
        return Err(LocalOnly::new(command, why, stack.is_some()).into());
    }
    // Decided before anything is read, so a refusal costs no AWS call.
    let action = cli.command.destructive();
    let consent =
        target::consent(target, action.as_ref().map(|a| a.what.as_str()), cli.yes, std::io::stdin().is_terminal())?;
    let config = billing_api::config::aws().await;
    let names = Names::resolve(&config, stack).await?;
    let table = names.table.clone();
    let store = Store::new(aws_sdk_dynamodb::Client::new(&config), table.clone());
    if let (Consent::Ask, Some(action)) = (consent, &action) {
        ask_first(&store, &names, action).await?;
    }
    let flusher = names.flusher.clone();
    match cli.command {
        Command::Account(AccountCommand::List { page }) => {
            infra::listings::accounts(&store, page.after, page.limit).await
        }
        Command::BankRule(BankRuleCommand::List { account, page }) => {
            infra::listings::bank_rules(&store, account, page.after, page.limit).await
        }
        Command::BankAccount(BankAccountCommand::List { account, page }) => {
            infra::listings::bank_accounts(&store, account, page.after, page.limit).await
        }
        Command::Category(CategoryCommand::List { account, page }) => {
            infra::listings::categories(&store, account, page.after, page.limit).await
        }
        Command::BankRule(BankRuleCommand::Create { account, name, bank_symbol, agreement_code }) => {
            ops::create_bank_rule(&store, account, &name, &bank_symbol, agreement_code).await
        }
        Command::BankAccount(BankAccountCommand::Create { account, name, account_type }) => {
            ops::create_bank_account(&store, account, &name, &account_type).await
        }
        Command::Category(CategoryCommand::Create { account, description, category_type }) => {
            ops::create_category(&store, account, &description, &category_type).await
        }
        Command::Billing(BillingCommand::Legacy {
            account,
            billing_type,
            bank_rule,
            contact,
            tag,
            excluded_tags,
            group,
            description,
            amount,
            due_date,
            installments,
        }) => {
            let spec = billing_api::billings::legacy::LegacyBilling {
                billing_type,
                bank_rule_id: bank_rule,
                contact_id: contact,
                tag_id: tag,
                excluded_tag_ids: excluded_tags,
                group_id: group,
                description,
                amount,
                due_date,
                installments,
            };
            ops::create_legacy_billing(&store, account, &spec).await
        }
        Command::Billing(BillingCommand::Recount { account, billing_type }) => {
            ops::recount_billings(&store, account, billing_type).await
        }
        Command::Billing(BillingCommand::Pay { account, billing, amount, date, fee }) => {
            let amount = match amount {
                Some(amount) => amount,
                None => ops::billet_amount(&store, account, billing).await?,
            };
            let payment = billing_api::payments::bank::Reported {
                amount,
                paid_on: date.unwrap_or_else(billing_api::values::today),
                fee,
            };
            ops::pay_billing(&store, account, billing, &payment).await
        }
        Command::Contact(ContactCommand::Guardian { account, contact, guardian, clear: _ }) => {
            ops::set_financial_guardian(&store, account, contact, guardian).await
        }
        Command::Webhook(command) => webhook(&config, &names, store, command).await,
        Command::Sale(SaleCommand::Create { account, contact, total, on_account, items, payments }) => {
            infra::sales_ops::create_sale(&store, account, contact, total, on_account, items, payments).await
        }
        Command::Sale(SaleCommand::Receive { of, kind }) => {
            infra::sales_ops::receive(&store, of.account, &of.sale, of.amount, kind).await
        }
        Command::Sale(SaleCommand::Return { of, to }) => {
            infra::sales_ops::give_back(&store, of.account, &of.sale, of.amount, to).await
        }
        Command::Sale(SaleCommand::Show { account, sale }) => infra::sales_ops::show(&store, account, &sale).await,
        Command::Contact(ContactCommand::Recount { account }) => ops::recount_contacts(&store, account).await,
        Command::Contact(ContactCommand::RenameStored { account }) => {
            ops::rename_stored_contacts(&store, account).await
        }
        Command::Contact(ContactCommand::RecountReach { account, tag }) => {
            ops::recount_reach(&store, account, tag).await
        }
        Command::Contact(ContactCommand::Limit { account, contact, limit, clear: _ }) => {
            ops::set_on_account_limit(&store, account, contact, limit).await
        }
        Command::Remittance(RemittanceCommand::Create { account, bank_rule }) => {
            infra::bank_files::create_remittances(&store, &files(&config, &names), account, bank_rule).await
        }
        Command::Payment(PaymentCommand::Refunds { account, limit }) => {
            ops::payments_to_refund(&store, account, usize::from(limit)).await
        }
        Command::Pix(command) => pix(&store, &config, command).await,
        Command::Reminders(command) => reminders(&store, &config, command).await,
        Command::Gateway(command) => Box::pin(infra::gateway_ops::run(&store, command)).await,
        Command::Remittance(RemittanceCommand::List { account, limit }) => {
            infra::bank_files::list_remittances(&store, account, usize::from(limit)).await
        }
        Command::Return(ReturnCommand::Upload { file, account }) => {
            infra::bank_files::upload_return(&store, &files(&config, &names), account, &file).await
        }
        Command::Return(ReturnCommand::Show { account, file, all }) => {
            infra::bank_files::show_returns(&store, account, file.as_deref(), all).await
        }
        Command::Setup => Ok(serde_json::to_value(infra::local_stack::ensure(&config, &table).await?)?),
        Command::Account(AccountCommand::Create { name, settings }) => {
            ops::create_account(&store, &name, settings.changes(None)).await
        }
        Command::Account(AccountCommand::Update { id, name, settings }) => {
            ops::update_account(&store, &flusher, id, settings.changes(name)).await
        }
        Command::Account(AccountCommand::Show { id }) => ops::show_account(&store, id).await,
        Command::Token(TokenCommand::Create { account, name }) => ops::create_token(&store, account, &name).await,
        Command::Token(TokenCommand::List { account }) => ops::list_tokens(&store, account).await,
        Command::Token(TokenCommand::Revoke { account, id }) => ops::revoke_token(&store, &flusher, account, id).await,
    }
}

/// The bucket of bank files of this run.
fn files(config: &aws_config::SdkConfig, names: &Names) -> billing_api::files::Files {
    billing_api::files::Files::from_config(config).with_bucket(names.files_bucket.clone())
}

async fn webhook(
    config: &aws_config::SdkConfig,
    names: &Names,
    store: Store,
    command: WebhookCommand,
) -> anyhow::Result<serde_json::Value> {
    let vault = match &names.webhook_key_secret {
        Some(secret) => SecretBox::load(&aws_sdk_secretsmanager::Client::new(config), secret).await,
        None => SecretBox::from_env(config).await,
    };
    let vault = std::sync::Arc::new(vault.context("the webhook master key (WEBHOOK_KEY_SECRET_ID)")?);
    let ops = WebhookOps { store, vault, policy: Policy::from_env() };
    match command {
        WebhookCommand::Add { account, url, event_types } => ops.register(account, &url, event_types).await,
        WebhookCommand::List { account } => ops.list(account).await,
        WebhookCommand::Show { account, id } => ops.show(account, id).await,
        WebhookCommand::Remove { account, id } => ops.remove(account, id).await,
        WebhookCommand::RotateSecret { account, id } => ops.rotate_secret(account, id).await,
        WebhookCommand::Reseal { account } => ops.reseal(account).await,
        WebhookCommand::Disable { account, id } => ops.set_enabled(account, id, false).await,
        WebhookCommand::Enable { account, id } => ops.set_enabled(account, id, true).await,
        WebhookCommand::Deliveries { account, status, event, limit } => {
            let filter = Filter { status, event_id: event, failed_since: None };
            ops.deliveries(account, &filter, limit).await
        }
        WebhookCommand::Replay { account, event, failed_since, limit } => {
            let since = match failed_since {
                Some(text) => Some(
                    Timestamp::parse(&text)
                        .with_context(|| format!("--failed-since {text:?} is not an RFC 3339 time"))?,
                ),
                None => None,
            };
            ops.replay(account, event.as_deref(), since, limit).await
        }
    }
}

/// The `reminders` commands.
async fn reminders(
    store: &Store,
    config: &aws_config::SdkConfig,
    command: RemindersCommand,
) -> anyhow::Result<serde_json::Value> {
    use infra::reminder_ops;
    match command {
        RemindersCommand::Run { date, concurrency, rate } => {
            let day = date.unwrap_or_else(billing_api::values::today);
            Box::pin(reminder_ops::run_day(store, config, day, usize::from(concurrency), rate)).await
        }
        RemindersCommand::Schedule { account } => reminder_ops::show_schedule(store, account).await,
        RemindersCommand::Setup { account, email_sender, whatsapp_phone_number_id, whatsapp_template } => {
            let setup = billing_api::reminders::schedule::Setup {
                email_sender: email_sender.map(Some),
                whatsapp_phone_number_id: whatsapp_phone_number_id.map(Some),
                whatsapp_template: whatsapp_template.map(Some),
            };
            reminder_ops::set_up(store, account, setup).await
        }
        RemindersCommand::Deliveries { account, billing } => {
            reminder_ops::billing_deliveries(store, account, billing).await
        }
        RemindersCommand::Suppressed { account } => reminder_ops::suppressed(store, account).await,
        RemindersCommand::Unsuppress { account, email } => reminder_ops::unsuppress(store, account, &email).await,
        RemindersCommand::SesEvent { reminder: r, kind } => {
            Box::pin(reminder_ops::inject_ses_event(store, r.account, r.billing, r.date, &kind)).await
        }
        RemindersCommand::WhatsappEvent { reminder: r, status, error } => {
            let injected =
                reminder_ops::inject_whatsapp_event(store, r.account, r.billing, r.date, &status, error.as_deref());
            Box::pin(injected).await
        }
    }
}

/// The `pix` commands.
async fn pix(store: &Store, config: &aws_config::SdkConfig, command: PixCommand) -> anyhow::Result<serde_json::Value> {
    use billing_api::payments::pix::psp::Credentials;
    match command {
        PixCommand::Psp {
            account,
            bank_rule,
            pix_key,
            base_url,
            token_url,
            client_id,
            client_secret_file,
            certificate,
            key,
            ca,
            webhook_base,
            local_psp,
        } => {
            let credentials = match local_psp {
                true => infra::pix_ops::local_credentials(&pix_key)?,
                false => {
                    let read = |path: Option<std::path::PathBuf>, what: &str| -> anyhow::Result<String> {
                        let path = path.with_context(|| format!("{what} is required"))?;
                        std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))
                    };
                    Credentials {
                        base_url: base_url.context("--base-url is required")?,
                        token_url,
                        client_id: client_id.context("--client-id is required")?,
                        client_secret: read(client_secret_file, "--client-secret-file")?.trim().to_owned(),
                        certificate: read(certificate, "--certificate")?,
                        private_key: read(key, "--key")?,
                        ca_certificate: ca.map(|path| read(Some(path), "--ca")).transpose()?,
                        pix_key,
                    }
                }
            };
            let secrets = aws_sdk_secretsmanager::Client::new(config);
            let webhook =
                infra::pix_ops::link_psp(store, &secrets, account, bank_rule, &credentials, webhook_base.as_deref())
                    .await?;
            Ok(serde_json::json!({
                "account_id": account,
                "bank_rule_id": bank_rule,
                "secret_id": billing_api::payments::pix::psp::secret_id(account, bank_rule),
                "base_url": credentials.base_url,
                "pix_key": credentials.pix_key,
                "webhook_url": webhook,
            }))
        }
        PixCommand::Pay { account, billing, billet, date, amount, no_webhook } => {
            infra::pix_ops::pay(store, account, billing, billet, date, amount, !no_webhook).await
        }
        PixCommand::Refund { account, end_to_end_id, amount } => {
            infra::pix_ops::refund(store, account, &end_to_end_id, amount).await
        }
        PixCommand::Reconcile { hours } => {
            let done = billing_api::payments::pix::reconcile_all(store, hours).await?;
            Ok(serde_json::to_value(
                done.into_iter()
                    .map(|(link, reconciled)| serde_json::json!({ "account_id": link.account_id, "bank_rule_id": link.bank_rule_id, "reconciled": reconciled }))
                    .collect::<Vec<_>>(),
            )?)
        }
    }
}
