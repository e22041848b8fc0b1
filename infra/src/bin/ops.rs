//! The ops CLI: accounts and API tokens, against AWS or the local stack (the standard AWS_* and
//! AWS_ENDPOINT_URL variables choose which; TABLE_NAME names the table, or `--stack NAME` reads it
//! and the API from the stack's outputs: `infra::target`). Prints JSON; errors are JSON on stderr
//! with exit code 1, and 2 for a local-only command refused against AWS.

use anyhow::Context as _;
use billing_api::accounts::AccountChanges;
use billing_api::store::Store;
use billing_api::values::{
    AccountId, AccountStatus, BankRuleId, BillingId, BillingType, ContactId, DeliveryStatus, GroupId, Money,
    PaymentKind, RefundTo, TagId, Timestamp, TokenId, WebhookId,
};
use billing_api::webhooks::deliveries::Filter;
use billing_api::webhooks::{Policy, SecretBox};
use clap::{Parser, Subcommand, ValueEnum};
use infra::cache_flush::CacheFlusher;
use infra::ops;
use infra::target::{LocalOnly, StackOutputs, Target};
use infra::webhooks::WebhookOps;

#[derive(Parser, Debug)]
#[command(
    about = "Operations that happen outside the API: accounts, API tokens, bank rules, bank accounts, categories, legacy billings, guardians, webhook receivers, point-of-sale sales",
    version
)]
struct Cli {
    /// The CloudFormation stack to work on: its outputs name the table, the API and its stage
    /// (and the webhook key and queue), and the run targets AWS.
    #[arg(long, global = true, env = "OPS_STACK")]
    stack: Option<String>,
    #[command(subcommand)]
    command: Command,
}

/// Where a list page starts and how long it is (`infra::listings`).
#[derive(clap::Args, Debug)]
struct PageArgs {
    /// Start after this id (the previous page's `next_after`).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
    after: i64,
    /// At most this many (1 to 1000).
    #[arg(long, default_value_t = infra::listings::DEFAULT_LIMIT,
        value_parser = clap::value_parser!(u16).range(1..=i64::from(infra::listings::MAX_LIMIT)))]
    limit: u16,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Accounts (tenants).
    #[command(subcommand)]
    Account(AccountCommand),
    /// API tokens of an account.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Bank rules (which bank or agreement issues an account's billets).
    #[command(subcommand)]
    BankRule(BankRuleCommand),
    /// Bank accounts of an account (pay-off targets).
    #[command(subcommand)]
    BankAccount(BankAccountCommand),
    /// Financial categories (receivable or payable).
    #[command(subcommand)]
    Category(CategoryCommand),
    /// Legacy billings (recurring `schedule`, instalment booklet `carne`) migrated from elsewhere.
    #[command(subcommand)]
    Billing(BillingCommand),
    /// Contacts: the health module's financial guardian.
    #[command(subcommand)]
    Contact(ContactCommand),
    /// Webhook receivers of an account, their deliveries and replays.
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// Point of sale: sales made at the store's counter, their receipts and returns.
    #[command(subcommand)]
    Sale(SaleCommand),
    /// Creates the table, queues and secret when missing (local stack).
    Setup,
}

#[derive(Subcommand, Debug)]
enum AccountCommand {
    /// Creates an account (active, KYC approved, point of sale off unless told otherwise).
    Create {
        #[arg(long)]
        name: String,
        #[command(flatten)]
        settings: Settings,
    },
    /// Changes an account; the authorizer cache is flushed so the change applies at once.
    Update {
        #[arg(long)]
        id: AccountId,
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        settings: Settings,
    },
    Show {
        #[arg(long)]
        id: AccountId,
    },
    /// Lists accounts by id, a page at a time.
    List {
        #[command(flatten)]
        page: PageArgs,
    },
}

#[derive(clap::Args, Debug)]
struct Settings {
    /// active, overdue, locked or canceled.
    #[arg(long)]
    status: Option<AccountStatus>,
    /// Registration verification (KYC).
    #[arg(long)]
    kyc: Option<Kyc>,
    /// Point-of-sale module.
    #[arg(long)]
    pos: Option<Switch>,
    /// Health module (billings name a patient; the payer defaults to the patient's guardian).
    #[arg(long)]
    health: Option<Switch>,
    /// Beneficiary CNPJ or CPF printed on bank billets (digits; punctuation is dropped).
    #[arg(long)]
    document: Option<String>,
    /// Beneficiary street address printed on bank billets.
    #[arg(long)]
    address: Option<String>,
    /// Beneficiary city (bank billets and the Pix code).
    #[arg(long)]
    city: Option<String>,
    /// Point of sale: the contact who pays settlements by transfer (`none` clears it).
    #[arg(long, value_parser = settlement_contact)]
    settlement_contact: Option<String>,
}

fn settlement_contact(text: &str) -> Result<String, String> {
    match text {
        "none" => Ok(text.to_owned()),
        id => id.parse::<ContactId>().map(|_| id.to_owned()).map_err(|_| "a contact id, or none".to_owned()),
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Kyc {
    Approved,
    Pending,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Switch {
    On,
    Off,
}

impl Settings {
    fn changes(&self, name: Option<String>) -> AccountChanges {
        AccountChanges {
            name,
            status: self.status,
            kyc_approved: self.kyc.map(|k| matches!(k, Kyc::Approved)),
            pos_enabled: self.pos.map(|p| matches!(p, Switch::On)),
            health_module: self.health.map(|h| matches!(h, Switch::On)),
            document: self.document.clone(),
            address: self.address.clone(),
            city: self.city.clone(),
            settlement_contact_id: self.settlement_contact.as_deref().map(|c| c.parse().ok()),
        }
    }
}

#[derive(Subcommand, Debug)]
enum TokenCommand {
    /// Creates a token with a descriptive name and prints it once.
    Create {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        name: String,
    },
    /// Lists the account's tokens, masked.
    List {
        #[arg(long)]
        account: AccountId,
    },
    /// Revokes a token for good; the others keep working.
    Revoke {
        #[arg(long)]
        account: AccountId,
        /// The token's id (from `token list`).
        #[arg(long)]
        id: TokenId,
    },
}

#[derive(Subcommand, Debug)]
enum BankRuleCommand {
    Create {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        name: String,
        /// The bank or provider that issues the billets (the simulated bank: `simulated`).
        #[arg(long, default_value = "simulated")]
        bank_symbol: String,
        #[arg(long)]
        agreement_code: Option<String>,
    },
    /// Lists the account's, by id, a page at a time.
    List {
        #[arg(long)]
        account: AccountId,
        #[command(flatten)]
        page: PageArgs,
    },
}

#[derive(Subcommand, Debug)]
enum BankAccountCommand {
    Create {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        name: String,
        /// checking, savings, cash, or service (the service's own account).
        #[arg(long = "type", default_value = "checking")]
        account_type: String,
    },
    /// Lists the account's, by id, a page at a time.
    List {
        #[arg(long)]
        account: AccountId,
        #[command(flatten)]
        page: PageArgs,
    },
}

#[derive(Subcommand, Debug)]
enum CategoryCommand {
    Create {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        description: String,
        /// receivable or payable.
        #[arg(long = "type", default_value = "receivable")]
        category_type: String,
    },
    /// Lists the account's, by id, a page at a time.
    List {
        #[arg(long)]
        account: AccountId,
        #[command(flatten)]
        page: PageArgs,
    },
}

#[derive(Subcommand, Debug)]
enum BillingCommand {
    /// Creates a `schedule` or a `carne` (the booklet and its monthly instalments). Individual with
    /// --contact; bulk with --tag (and --excluded-tag) or, as old records did, --group.
    Legacy {
        #[arg(long)]
        account: AccountId,
        /// schedule or carne.
        #[arg(long = "type")]
        billing_type: BillingType,
        #[arg(long)]
        bank_rule: BankRuleId,
        #[arg(long)]
        contact: Option<ContactId>,
        #[arg(long)]
        tag: Option<TagId>,
        /// Repeat for several tags.
        #[arg(long = "excluded-tag")]
        excluded_tags: Vec<TagId>,
        #[arg(long)]
        group: Option<GroupId>,
        #[arg(long, default_value = "Mensalidade")]
        description: String,
        /// Per record (per instalment of a booklet), e.g. 99.90, as it was made (a record older
        /// than the 5.00 minimum keeps its amount).
        #[arg(long)]
        amount: Money,
        /// YYYY-MM-DD (of the first instalment of a booklet).
        #[arg(long)]
        due_date: chrono::NaiveDate,
        /// Booklets only.
        #[arg(long, default_value_t = 3)]
        installments: i64,
    },
    /// Simulates the bank's payment of a billing's opened billet: billet and billing `paid`, and a
    /// `billing.updated` event recorded for the webhook sender.
    Pay {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        billing: BillingId,
        /// What the payer paid, e.g. 135.00 (more than the billet's amount is interest, less is a
        /// discount). Default: the billet's amount.
        #[arg(long)]
        amount: Option<Money>,
        /// YYYY-MM-DD. Default: today.
        #[arg(long)]
        date: Option<chrono::NaiveDate>,
        /// The bank's fee, deducted from what is credited.
        #[arg(long, default_value = "0")]
        fee: Money,
    },
}

/// An amount of one sale of an account.
#[derive(clap::Args, Debug)]
struct SaleAmount {
    #[arg(long)]
    account: AccountId,
    /// The sale's code.
    #[arg(long)]
    sale: String,
    #[arg(long)]
    amount: Money,
}

#[derive(Subcommand, Debug)]
enum SaleCommand {
    /// Records a sale. Payments: --on-account X (what stays open) and --payment KIND=AMOUNT
    /// (cash, card, pix, store_credit); without --payment, the rest of the total is cash.
    Create {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        contact: ContactId,
        #[arg(long)]
        total: Money,
        #[arg(long)]
        on_account: Option<Money>,
        /// description:quantity:unit price (repeat for several), e.g. Camiseta:2:39.90.
        #[arg(long = "item", value_parser = infra::sales_ops::parse_item)]
        items: Vec<(String, i64, Money)>,
        /// KIND=AMOUNT (repeat for several), e.g. card=50.00.
        #[arg(long = "payment", value_parser = infra::sales_ops::parse_payment)]
        payments: Vec<billing_api::pos::sales::Payment>,
    },
    /// A receipt against a sale's open amount.
    Receive {
        #[command(flatten)]
        of: SaleAmount,
        /// cash, card or pix.
        #[arg(long, default_value = "cash")]
        kind: PaymentKind,
    },
    /// Gives back part or all of a sale: first off what it owes, the rest refunded.
    Return {
        #[command(flatten)]
        of: SaleAmount,
        /// cash or store_credit.
        #[arg(long, default_value = "cash")]
        to: RefundTo,
    },
    Show {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        sale: String,
    },
}

#[derive(Subcommand, Debug)]
enum ContactCommand {
    /// Point of sale: the most the contact may owe on account (--clear: no limit).
    Limit {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        contact: ContactId,
        #[arg(long, required_unless_present = "clear")]
        limit: Option<Money>,
        #[arg(long, conflicts_with = "limit")]
        clear: bool,
    },
    /// Sets (or with --clear removes) the financial guardian who pays a patient's billings.
    Guardian {
        #[arg(long)]
        account: AccountId,
        /// The patient's contact id.
        #[arg(long)]
        contact: ContactId,
        #[arg(long, required_unless_present = "clear")]
        guardian: Option<ContactId>,
        #[arg(long, conflicts_with = "guardian")]
        clear: bool,
    },
}

#[derive(Subcommand, Debug)]
enum WebhookCommand {
    /// Registers a receiver URL (https://, at most 3 per account) and prints its signing secret.
    Add {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        url: String,
    },
    /// Lists the account's receivers (secrets masked; disabled ones say why).
    List {
        #[arg(long)]
        account: AccountId,
    },
    /// Shows one receiver with its signing secret.
    Show {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        id: WebhookId,
    },
    /// Removes a receiver; its pending deliveries fail ("receiver removed").
    Remove {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        id: WebhookId,
    },
    /// A new signing secret; the previous one keeps signing beside it for 24 hours.
    RotateSecret {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        id: WebhookId,
    },
    /// Stops deliveries to a receiver (its pending deliveries fail; replay them after enabling).
    Disable {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        id: WebhookId,
    },
    /// Resumes deliveries to a receiver (and clears its failure streak).
    Enable {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        id: WebhookId,
    },
    /// The delivery log (30 days), newest first, with every attempt.
    Deliveries {
        #[arg(long)]
        account: AccountId,
        /// pending, delivered or failed.
        #[arg(long)]
        status: Option<DeliveryStatus>,
        /// The deliveries of one event (evt_...).
        #[arg(long)]
        event: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Sends deliveries again with their original delivery ids.
    Replay {
        #[arg(long)]
        account: AccountId,
        /// Every delivery of this event (evt_...).
        #[arg(long, required_unless_present = "failed_since", conflicts_with = "failed_since")]
        event: Option<String>,
        /// Every delivery that failed at or after this moment (RFC 3339, e.g. 2026-11-20T00:00:00Z).
        #[arg(long)]
        failed_since: Option<String>,
        /// At most this many per run (the output says whether more remain).
        #[arg(long, default_value_t = 1000)]
        limit: usize,
    },
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(output) => println!("{}", serde_json::to_string_pretty(&output).expect("JSON output")),
        Err(error) => {
            eprintln!("{}", serde_json::json!({ "error": format!("{error:#}") }));
            let refused = error.downcast_ref::<LocalOnly>().is_some();
            std::process::exit(if refused { LocalOnly::EXIT_CODE } else { 1 });
        }
    }
}

impl Command {
    /// Why the command makes sense only on the local stack, for those that do.
    fn local_only(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Command::Setup => Some(("setup", "creates the table, queues and secret that the stack deploys on AWS")),
            Command::Billing(BillingCommand::Pay { .. }) => {
                Some(("billing pay", "simulates the bank's payment (on AWS the bank reports payments)"))
            }
            _ => None,
        }
    }
}

/// The table, API and webhook names of this run: the stack's outputs with `--stack`, else the
/// environment's variables.
struct Names {
    table: String,
    flusher: CacheFlusher,
    webhook_key_secret: Option<String>,
}

impl Names {
    async fn resolve(config: &aws_config::SdkConfig, stack: Option<&str>) -> anyhow::Result<Self> {
        let Some(stack) = stack else {
            return Ok(Names {
                table: billing_api::config::table_name(),
                flusher: CacheFlusher::from_env(config),
                webhook_key_secret: None,
            });
        };
        let outputs = StackOutputs::describe(config, stack).await?;
        let flusher = CacheFlusher::ApiGateway {
            client: aws_sdk_apigateway::Client::new(config),
            rest_api_id: outputs.rest_api_id,
            stage: outputs.stage_name,
        };
        Ok(Names { table: outputs.table_name, flusher, webhook_key_secret: outputs.webhook_key_secret_arn })
    }
}

async fn run(cli: Cli) -> anyhow::Result<serde_json::Value> {
    let stack = cli.stack.as_deref().map(str::trim).filter(|s| !s.is_empty());
    let target = Target::of(stack.is_some(), |name| std::env::var(name).ok());
    if let (Target::Aws, Some((command, why))) = (target, cli.command.local_only()) {
        return Err(LocalOnly::new(command, why, stack.is_some()).into());
    }
    let config = billing_api::config::aws().await;
    let names = Names::resolve(&config, stack).await?;
    let table = names.table.clone();
    let store = Store::new(aws_sdk_dynamodb::Client::new(&config), table.clone());
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
        Command::Billing(BillingCommand::Pay { account, billing, amount, date, fee }) => {
            let amount = match amount {
                Some(amount) => amount,
                None => ops::billet_amount(&store, account, billing).await?,
            };
            let payment = billing_api::billings::service::Payment {
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
        Command::Contact(ContactCommand::Limit { account, contact, limit, clear: _ }) => {
            ops::set_on_account_limit(&store, account, contact, limit).await
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
        WebhookCommand::Add { account, url } => ops.add(account, &url).await,
        WebhookCommand::List { account } => ops.list(account).await,
        WebhookCommand::Show { account, id } => ops.show(account, id).await,
        WebhookCommand::Remove { account, id } => ops.remove(account, id).await,
        WebhookCommand::RotateSecret { account, id } => ops.rotate_secret(account, id).await,
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
