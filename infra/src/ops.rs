//! What the ops CLI does (`infra/ops`): accounts and API tokens (created "elsewhere" in the spec's
//! words), an account's bank rules, bank accounts and categories, legacy billings and their
//! payment, a contact's financial guardian and on-account limit, and the recounts of the
//! billings', contacts' and tags' counters. Each operation returns the JSON the CLI prints; token
//! operations that change access flush the authorizer cache.

use anyhow::Context as _;
use billing_api::accounts::{self, AccountChanges};
use billing_api::auth::token_record;
use billing_api::billings::billets::lifecycle;
use billing_api::billings::legacy::{self, LegacyBilling};
use billing_api::billings::service as billings;
use billing_api::billings::view::BillingView;
use billing_api::billings::Billing;
use billing_api::contacts::Contact;
use billing_api::contention::retry_in_turn;
use billing_api::editing::find_or_404;
use billing_api::payments::bank::Reported;
use billing_api::store::records;
use billing_api::store::Store;
use billing_api::values::{
    today, AccountId, BankAccountType, BillingId, CategoryType, ContactId, Money, TagId, TokenId,
};
use billing_api::{bank_accounts, bank_rules, bill_categories};
use serde_json::{json, Value};

use crate::cache_flush::CacheFlusher;

pub async fn create_account(store: &Store, name: &str, changes: AccountChanges) -> anyhow::Result<Value> {
    let account = accounts::create(store, name, changes).await?;
    Ok(json!({ "account": account }))
}

pub async fn show_account(store: &Store, id: AccountId) -> anyhow::Result<Value> {
    let account = accounts::find(store, id).await?.with_context(|| format!("no account {id}"))?;
    Ok(json!({ "account": account }))
}

/// A status, KYC or module change takes effect at once: the authorizer cache is flushed so that no
/// lookup in flight keeps the old account (`CacheFlusher::flush_settled`: twice on AWS, with the
/// authorizer's timeout between).
pub async fn update_account(
    store: &Store,
    flusher: &CacheFlusher,
    id: AccountId,
    changes: AccountChanges,
) -> anyhow::Result<Value> {
    if let Some(Some(contact)) = changes.settlement_contact_id {
        records::find::<Contact>(store, id, contact)
            .await?
            .with_context(|| format!("account {id} has no contact {contact} to pay its settlements"))?;
    }
    let account = accounts::update(store, id, changes).await?.with_context(|| format!("no account {id}"))?;
    let mut output = json!({ "account": account });
    flusher.flush_settled().await?.add_to(&mut output);
    Ok(output)
}

/// The plain token is printed here once; only its digest and last 4 characters are stored.
pub async fn create_token(store: &Store, account: AccountId, name: &str) -> anyhow::Result<Value> {
    accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    let (record, token) = token_record::create(store, account, name).await?;
    Ok(json!({
        "token": record,
        "plain_token": token.expose(),
        "notice": "Store this token now: it is shown only once and cannot be recovered."
    }))
}

pub async fn list_tokens(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    Ok(json!({ "tokens": token_record::list(store, account).await? }))
}

/// Revokes the token and flushes the authorizer cache so that no lookup in flight keeps it valid
/// (`CacheFlusher::flush_settled`: twice on AWS, with the authorizer's timeout between).
pub async fn revoke_token(
    store: &Store,
    flusher: &CacheFlusher,
    account: AccountId,
    id: TokenId,
) -> anyhow::Result<Value> {
    let record = token_record::revoke(store, account, id)
        .await?
        .with_context(|| format!("account {account} has no token {id}"))?;
    let mut output = json!({ "token": record });
    flusher.flush_settled().await?.add_to(&mut output);
    Ok(output)
}

/// A bank rule (which bank or agreement issues the billets). `bank_symbol` names the provider.
pub async fn create_bank_rule(
    store: &Store,
    account: AccountId,
    name: &str,
    bank_symbol: &str,
    agreement_code: Option<String>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let rule = bank_rules::create(store, account, name, bank_symbol, agreement_code).await?;
    Ok(json!({ "bank_rule": rule }))
}

/// A bank account; type `service` is the service's own account (refused as pay-off target).
pub async fn create_bank_account(
    store: &Store,
    account: AccountId,
    name: &str,
    account_type: &str,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let account_type: BankAccountType =
        account_type.parse().map_err(|_| anyhow::anyhow!("account type must be one of {}", BankAccountType::list()))?;
    let bank_account = bank_accounts::create(store, account, name, account_type).await?;
    Ok(json!({ "bank_account": bank_account }))
}

/// A financial category, `receivable` or `payable`.
pub async fn create_category(
    store: &Store,
    account: AccountId,
    description: &str,
    category_type: &str,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let category_type: CategoryType =
        category_type.parse().map_err(|_| anyhow::anyhow!("category type must be one of {}", CategoryType::list()))?;
    let category = bill_categories::create(store, account, description, category_type).await?;
    Ok(json!({ "bill_category": category }))
}

pub async fn require_account(store: &Store, account: AccountId) -> anyhow::Result<()> {
    accounts::find(store, account).await?.with_context(|| format!("no account {account}"))?;
    Ok(())
}

/// A legacy `schedule` or `carne` record (a booklet prints the booklet and its instalments).
pub async fn create_legacy_billing(store: &Store, account: AccountId, spec: &LegacyBilling) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let stored = legacy::create(store, account, spec).await?;
    let ids: Vec<BillingId> = stored.iter().map(|b| b.id).collect();
    Ok(json!({ "billing_type": spec.billing_type, "billing_ids": ids }))
}

/// The simulated bank settles a billing's opened billet (see
/// `payments::bank::pay`, applied as every payment is): prints the billing as the API now shows
/// it.
pub async fn pay_billing(
    store: &Store,
    account: AccountId,
    billing: BillingId,
    payment: &Reported,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let paid = billing_api::payments::bank::pay(store, account, billing, payment).await?;
    let embedded = billings::embedded(store, account, &paid).await?;
    Ok(serde_json::to_value(BillingView::new(&paid, &embedded.related(), today()))?)
}

/// The amount of the billing's current billet (what a payment defaults to).
pub async fn billet_amount(store: &Store, account: AccountId, billing: BillingId) -> anyhow::Result<Money> {
    let found =
        records::find::<Billing>(store, account, billing).await?.with_context(|| format!("no billing {billing}"))?;
    let billet = lifecycle::current(store, account, &found).await?;
    Ok(billet.with_context(|| format!("billing {billing} has no bank billet yet"))?.amount)
}

/// Health module: who pays for a patient (`None` clears it, so the patient pays).
pub async fn set_financial_guardian(
    store: &Store,
    account: AccountId,
    patient: ContactId,
    guardian: Option<ContactId>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    anyhow::ensure!(guardian != Some(patient), "a patient cannot be its own guardian");
    if let Some(id) = guardian {
        records::find::<Contact>(store, account, id).await?.with_context(|| format!("no contact {id}"))?;
    }
    records::find::<Contact>(store, account, patient).await?.with_context(|| format!("no contact {patient}"))?;
    retry_in_turn(records::key_of::<Contact>(account, patient), || async {
        let current: Contact = find_or_404(store, account, patient).await?;
        let next = Contact { financial_guardian_id: guardian, version: current.version + 1, ..current.clone() };
        records::replace(store, account, &current, &next, Vec::new()).await?;
        Ok(())
    })
    .await?;
    Ok(json!({ "contact_id": patient, "financial_guardian_id": guardian }))
}

/// The tag's reach counter set to the active customers holding it, counted again
/// (`contacts::counts::recount_reach`).
pub async fn recount_reach(store: &Store, account: AccountId, tag: TagId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let (was, counted) = billing_api::contacts::counts::recount_reach(store, account, tag).await?;
    Ok(json!({ "tag_id": tag, "reach_was": was, "reach": counted }))
}

/// The account's contacts moved to today's stored names (`contacts::service::rename_stored`).
pub async fn rename_stored_contacts(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let done = billing_api::contacts::service::rename_stored(store, account).await?;
    Ok(json!({ "renamed": done.renamed, "already": done.already, "left": done.left }))
}

/// The account's payments kept to refund (`payments::to_refund`).
pub async fn payments_to_refund(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let kept = billing_api::payments::to_refund(store, account, limit).await?;
    Ok(json!({ "to_refund": kept }))
}

/// The contact counters counted again (`contacts::counts::recount`): the counts that moved.
pub async fn recount_contacts(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let moved = billing_api::contacts::counts::recount(store, account).await?;
    let moved: Vec<Value> = moved
        .iter()
        .map(|(counter, moved)| json!({"counter": counter, "count": moved.count, "was": moved.was, "is": moved.is}))
        .collect();
    Ok(json!({ "moved": moved }))
}

/// The billings counter of a type counted again (`billings::counts::recount`): the counts that
/// moved, each with what the counter said and what the billings say.
pub async fn recount_billings(
    store: &Store,
    account: AccountId,
    billing_type: billing_api::values::BillingType,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let moved = billing_api::billings::counts::recount(store, account, billing_type).await?;
    let moved: Vec<Value> =
        moved.iter().map(|moved| json!({"count": moved.count, "was": moved.was, "is": moved.is})).collect();
    Ok(json!({ "billing_type": billing_type, "moved": moved }))
}

/// Point of sale: the most a contact may owe on account (`None`: no limit).
pub async fn set_on_account_limit(
    store: &Store,
    account: AccountId,
    contact: ContactId,
    limit: Option<Money>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    if let Some(limit) = limit {
        anyhow::ensure!(limit >= Money::ZERO && limit.cents() == limit, "the limit must be an amount of 0.00 or more");
    }
    let updated = retry_in_turn(records::key_of::<Contact>(account, contact), || async {
        let current: Contact = find_or_404(store, account, contact).await?;
        let next = Contact { on_account_limit: limit, version: current.version + 1, ..current.clone() };
        records::replace(store, account, &current, &next, Vec::new()).await?;
        Ok(next)
    })
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(
        json!({ "contact_id": contact, "on_account_limit": updated.on_account_limit, "on_account_balance": updated.on_account_balance }),
    )
}

/// The ops CLI's command line (`infra/ops`, or `ops` once installed with
/// `cargo install --path infra --bin ops --locked`): what the binary parses before it reads any
/// configuration, every flag with its help, which commands only make sense locally and which
/// change AWS in a way that asks for confirmation, and how the JSON output is written.
pub mod cli {
    use std::io::Write;

    use billing_api::accounts::AccountChanges;
    use billing_api::values::{
        AccountId, AccountStatus, BankRuleId, BillingId, BillingType, ContactId, DeliveryStatus, GroupId, Money,
        PaymentKind, RefundTo, TagId, TokenId, WebhookId,
    };
    use clap::{Parser, Subcommand, ValueEnum};

    /// An item as the CLI takes it: `description:quantity:unit price` (`Camiseta:2:39.90`).
    pub fn parse_item(text: &str) -> Result<(String, i64, Money), String> {
        let mut parts = text.rsplitn(3, ':');
        let (price, quantity, description) = (parts.next(), parts.next(), parts.next());
        match (description, quantity.and_then(|q| q.trim().parse().ok()), price.and_then(|p| Money::parse(p.trim()))) {
            (Some(description), Some(quantity), Some(price)) => Ok((description.to_owned(), quantity, price)),
            _ => Err(format!("{text:?}: an item is description:quantity:unit price, e.g. Camiseta:2:39.90")),
        }
    }

    /// A payment as the CLI takes it: `KIND=AMOUNT` (`card=50.00`).
    pub fn parse_payment(text: &str) -> Result<billing_api::pos::sales::Payment, String> {
        let (kind, amount) = text.split_once('=').ok_or_else(|| format!("{text:?}: a payment is KIND=AMOUNT"))?;
        let kind: PaymentKind = kind.trim().parse()?;
        let amount = Money::parse(amount.trim()).ok_or_else(|| format!("{text:?}: not an amount"))?;
        Ok(billing_api::pos::sales::Payment { kind, amount })
    }

    #[derive(Parser, Debug)]
    #[command(
        name = "ops",
        about = "Operations that happen outside the API: accounts, API tokens, bank rules, bank accounts, categories, legacy billings, guardians, webhook receivers, point-of-sale sales",
        long_about = "Operations that happen outside the API: accounts, API tokens, bank rules, bank accounts, categories, legacy billings, guardians, webhook receivers, point-of-sale sales.\n\n\
            Prints JSON on stdout. Errors are JSON on stderr with exit status 1; a command refused before it started (a local-only command against AWS, a destructive one not confirmed) exits with 2.\n\n\
            Where it works: with --stack NAME (or OPS_STACK) against AWS, the table, API and webhook key read from that stack's outputs; with --local against the local stack started by infra/run (.local/stack.env); otherwise from the environment (AWS_ENDPOINT_URL set: local; unset: AWS with TABLE_NAME, REST_API_ID, API_STAGE, WEBHOOK_KEY_SECRET_ID).\n\n\
            Against AWS, commands that delete, revoke, disable, lock, refund or replace secrets ask for confirmation on the terminal unless --yes is given.",
        version
    )]
    pub struct Cli {
        /// The CloudFormation stack to work on: its outputs name the table, the API and its stage
        /// (and the webhook key), and the run targets AWS.
        #[arg(long, global = true, env = "OPS_STACK", value_name = "NAME")]
        pub stack: Option<String>,
        /// Work on the local stack that infra/run started: read its settings from .local/stack.env
        /// (in this directory or the nearest parent that has one; OPS_LOCAL_ENV names another file).
        #[arg(long, global = true, conflicts_with = "stack")]
        pub local: bool,
        /// Do not ask before a destructive command against AWS (needed when stdin is not a terminal).
        #[arg(long, short = 'y', global = true)]
        pub yes: bool,
        #[command(subcommand)]
        pub command: Command,
    }

    /// Where a list page starts and how long it is (`infra::listings`).
    #[derive(clap::Args, Debug)]
    pub struct PageArgs {
        /// Start after this id (the previous page's `next_after`).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
        pub after: i64,
        /// At most this many (1 to 1000).
        #[arg(long, default_value_t = crate::listings::DEFAULT_LIMIT,
            value_parser = clap::value_parser!(u16).range(1..=i64::from(crate::listings::MAX_LIMIT)))]
        pub limit: u16,
    }

    #[derive(Subcommand, Debug)]
    pub enum Command {
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
        /// Contacts: the health module's financial guardian, the point of sale's limit.
        #[command(subcommand)]
        Contact(ContactCommand),
        /// Webhook receivers of an account, their deliveries and replays.
        #[command(subcommand)]
        Webhook(WebhookCommand),
        /// Point of sale: sales made at the store's counter, their receipts and returns.
        #[command(subcommand)]
        Sale(SaleCommand),
        /// Remittance files to the bank (Itaú CNAB 240): made now, listed.
        #[command(subcommand)]
        Remittance(RemittanceCommand),
        /// The bank's return files: uploaded and applied, shown.
        #[command(subcommand)]
        Return(ReturnCommand),
        /// Payments as every channel applies them.
        #[command(subcommand)]
        Payment(PaymentCommand),
        /// Pix: a bank rule's Pix institution (PSP), a payer's Pix on the local PSP, reconciliation.
        #[command(subcommand)]
        Pix(PixCommand),
        /// Reminders to payers: a day's run, an account's schedule and senders, a billing's
        /// deliveries, suppressed addresses, and (local stack) the providers' events.
        #[command(subcommand)]
        Reminders(RemindersCommand),
        /// Card payments: an account's checkout gateway (Stripe) and its keys, a payment's capture,
        /// release and refund, the funds' availability, and (local stack) the gateway's events.
        #[command(subcommand)]
        Gateway(GatewayCommand),
        /// Creates the table, queues, secret and bucket when missing (local stack only).
        Setup,
    }

    /// A billing's reminder of one day, which a provider's event is about.
    #[derive(clap::Args, Debug)]
    pub struct ReminderOf {
        /// The account.
        #[arg(long)]
        pub account: AccountId,
        /// The billing.
        #[arg(long)]
        pub billing: BillingId,
        /// The day of the reminder's run.
        #[arg(long)]
        pub date: chrono::NaiveDate,
    }

    #[derive(Subcommand, Debug)]
    pub enum RemindersCommand {
        /// Runs a day's reminders at once for every account, in this process (what the daily
        /// schedule runs through the queue): running the same day again sends nothing new.
        Run {
            /// YYYY-MM-DD. Default: today (São Paulo).
            #[arg(long)]
            date: Option<chrono::NaiveDate>,
            /// Reminders in flight at once.
            #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
            concurrency: u16,
            /// Reminders a second at most (default: REMINDER_SEND_RATE, else SES's default 14).
            #[arg(long)]
            rate: Option<f64>,
        },
        /// An account's schedule, as `GET /v1/reminder_schedule` shows it, with its senders.
        Schedule {
            /// The account.
            #[arg(long)]
            account: AccountId,
        },
        /// Sets an account's senders: its SES sender identity (verified in SES first), its WhatsApp
        /// number in End User Messaging Social and the approved template; "" clears one.
        Setup {
            /// The account.
            #[arg(long)]
            account: AccountId,
            /// The address e-mails come from (an SES identity of the service's AWS account).
            #[arg(long)]
            email_sender: Option<String>,
            /// The WhatsApp number's id (`phone-number-id-…`).
            #[arg(long)]
            whatsapp_phone_number_id: Option<String>,
            /// The approved WhatsApp template (default `lembrete_cobranca`).
            #[arg(long)]
            whatsapp_template: Option<String>,
        },
        /// A billing's reminder deliveries with where each went and the provider's message id.
        Deliveries {
            /// The account.
            #[arg(long)]
            account: AccountId,
            /// The billing.
            #[arg(long)]
            billing: BillingId,
        },
        /// The account's suppressed addresses (a hard bounce or a complaint).
        Suppressed {
            /// The account.
            #[arg(long)]
            account: AccountId,
        },
        /// Lifts an address's suppression (the payer fixed their mailbox, or asked again).
        Unsuppress {
            /// The account.
            #[arg(long)]
            account: AccountId,
            /// The suppressed e-mail address.
            #[arg(long)]
            email: String,
        },
        /// Feeds an SES event of a billing's e-mail reminder to the events' handler, as SES's
        /// configuration set would through SNS (local stack only: moto publishes none).
        SesEvent {
            #[command(flatten)]
            reminder: ReminderOf,
            /// DELIVERY, BOUNCE (permanent), SOFT_BOUNCE, COMPLAINT, REJECT or DELIVERY_DELAY.
            #[arg(long = "type")]
            kind: String,
        },
        /// Feeds a WhatsApp status of a billing's reminder to the events' handler, as End User
        /// Messaging Social would through SNS (local stack only).
        WhatsappEvent {
            #[command(flatten)]
            reminder: ReminderOf,
            /// sent, delivered, read or failed.
            #[arg(long)]
            status: String,
            /// With failed: the error's code (Meta's, e.g. 131026) and words.
            #[arg(long)]
            error: Option<String>,
        },
    }

    /// A billing's card payment.
    #[derive(clap::Args, Debug)]
    pub struct CardOf {
        /// The account.
        #[arg(long)]
        pub account: AccountId,
        /// The billing.
        #[arg(long)]
        pub billing: BillingId,
    }

    #[derive(Subcommand, Debug)]
    pub enum GatewayCommand {
        /// Turns an account's checkout gateway (Stripe) on with its keys, stored in Secrets
        /// Manager (again: the keys rotated); its billets' pages take cards from then on.
        Setup {
            /// The account.
            #[arg(long)]
            account: AccountId,
            /// `sk_live_…` (or a restricted key `rk_…`).
            #[arg(long, env = "STRIPE_SECRET_KEY", hide_env_values = true)]
            secret_key: String,
            /// `pk_live_…`.
            #[arg(long)]
            publishable_key: String,
            /// The webhook endpoint's signing secret `whsec_…`.
            #[arg(long, env = "STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
            webhook_secret: String,
            /// The signing secret being rolled out (accepted beside the new one).
            #[arg(long)]
            previous_webhook_secret: Option<String>,
            /// Payments wait for the account's capture (`awaiting_capture`).
            #[arg(long)]
            manual_capture: bool,
            /// Stripe's API, when not Stripe's own (a local stand-in such as localstripe).
            #[arg(long)]
            api_url: Option<String>,
            /// Stripe.js, when not Stripe's own (the local stand-in's `/v3/`).
            #[arg(long)]
            js_url: Option<String>,
        },
        /// The account's gateway: on or off, capture, its webhook endpoint's path.
        Show {
            /// The account.
            #[arg(long)]
            account: AccountId,
        },
        /// Turns the account's gateway off (its keys kept): new billets take no cards.
        Off {
            /// The account.
            #[arg(long)]
            account: AccountId,
        },
        /// Turns it back on.
        On {
            /// The account.
            #[arg(long)]
            account: AccountId,
        },
        /// Captures a billing's authorized card payment.
        Capture(CardOf),
        /// Releases a billing's authorized card payment.
        Release(CardOf),
        /// Refunds a billing's card payment whole.
        Refund(CardOf),
        /// Reads a billing's card payment back from the gateway and applies it (a payment that
        /// did not arrive: a lost webhook).
        Sync(CardOf),
        /// Makes `available` the card payments whose funds are by this day (what the daily step
        /// runs).
        Available {
            /// YYYY-MM-DD. Default: today (São Paulo).
            #[arg(long)]
            date: Option<chrono::NaiveDate>,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum PaymentCommand {
        /// The account's payments kept to refund (a billing paid twice, through two channels or
        /// after it was settled otherwise), oldest first: each with its billing, billet, channel,
        /// amount, day and why.
        Refunds {
            /// The account whose payments these are.
            #[arg(long)]
            account: AccountId,
            /// How many (oldest first).
            #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
            limit: u16,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum PixCommand {
        /// Links a bank rule to its Pix institution: the credentials go to the rule's secret in
        /// Secrets Manager (never the table), the rule's billets carry a Pix charge with a due date
        /// from then on, and, with --webhook-base, the rule's webhook is registered for the key at
        /// the PSP. With --local, the local PSP's credentials (infra/run) stand for every option
        /// but the key.
        Psp {
            /// The account the rule belongs to.
            #[arg(long)]
            account: AccountId,
            /// The bank rule.
            #[arg(long)]
            bank_rule: BankRuleId,
            /// The account's Pix key at the PSP (what its charges are paid to).
            #[arg(long)]
            pix_key: String,
            /// The PSP's API Pix base URL, e.g. https://pix.example.com/api/v2.
            #[arg(long, required_unless_present = "local_psp")]
            base_url: Option<String>,
            /// The OAuth token endpoint (default: <base-url>/oauth/token).
            #[arg(long)]
            token_url: Option<String>,
            /// The OAuth client id.
            #[arg(long, required_unless_present = "local_psp")]
            client_id: Option<String>,
            /// A file holding the OAuth client secret (not an argument: it would stay in the shell's
            /// history and the process list).
            #[arg(long, required_unless_present = "local_psp")]
            client_secret_file: Option<std::path::PathBuf>,
            /// The client certificate the PSP issued (PEM, chain after it).
            #[arg(long, required_unless_present = "local_psp")]
            certificate: Option<std::path::PathBuf>,
            /// Its private key (PEM).
            #[arg(long, required_unless_present = "local_psp")]
            key: Option<std::path::PathBuf>,
            /// The PSP's own CA (PEM), when its API is not signed by a public one.
            #[arg(long)]
            ca: Option<std::path::PathBuf>,
            /// The Pix webhook domain's base URL (the stack's `PixWebhookUrl` output; locally the dev
            /// server's Pix listener): the rule's webhook URL is registered at the PSP.
            #[arg(long)]
            webhook_base: Option<String>,
            /// The local PSP (infra/run) instead of --base-url, --client-id, --client-secret-file,
            /// --certificate, --key and --ca.
            #[arg(long = "local-psp")]
            local_psp: bool,
        },
        /// Pays a billet's Pix charge at the local PSP as a payer would (the amount the charge asks
        /// that day), and the PSP calls the webhook (local stack only).
        #[command(group(clap::ArgGroup::new("which").required(true).multiple(true).args(["billet", "billing"])))]
        Pay {
            /// The account the billet belongs to.
            #[arg(long)]
            account: AccountId,
            /// The billet whose code the payer scanned (its billing's current one).
            #[arg(long)]
            billet: Option<billing_api::values::BilletId>,
            /// Or the billing: its current billet.
            #[arg(long)]
            billing: Option<BillingId>,
            /// YYYY-MM-DD. Default: today.
            #[arg(long)]
            date: Option<chrono::NaiveDate>,
            /// Pays this amount instead of what the charge asks.
            #[arg(long)]
            amount: Option<Money>,
            /// Leaves the webhook uncalled: only the reconciliation finds the payment.
            #[arg(long)]
            no_webhook: bool,
        },
        /// Gives a Pix back to its payer (a payment kept to refund, or one the account gives back) through
        /// the PSP that received it; the same command again is the same refund.
        Refund {
            /// The account the Pix was paid to.
            #[arg(long)]
            account: AccountId,
            /// The Pix's endToEndId (as `payment refunds` lists it: provider_id).
            #[arg(long)]
            end_to_end_id: String,
            /// How much (default: all that is not given back yet).
            #[arg(long)]
            amount: Option<Money>,
        },
        /// Reads every PSP's Pix received in the last hours (GET /pix) and applies what no webhook
        /// brought, as the scheduled reconciliation does.
        Reconcile {
            /// How many hours back.
            #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(i64).range(1..=120))]
            hours: i64,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum RemittanceCommand {
        /// Makes the account's remittance files due now (every agreement whose bank takes files,
        /// or one rule's), finishing first any left open; prints where they are in the bucket.
        Create {
            /// The account whose files these are.
            #[arg(long)]
            account: AccountId,
            /// Only this bank rule's agreement.
            #[arg(long)]
            bank_rule: Option<BankRuleId>,
        },
        /// The account's latest remittance files.
        List {
            /// The account whose files these are.
            #[arg(long)]
            account: AccountId,
            /// How many (newest first).
            #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=100))]
            limit: u16,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum ReturnCommand {
        /// Puts a return file of the bank in the bucket (returns/<account>/<name>) and applies it.
        /// The same file again changes nothing; a malformed one is refused naming line and field.
        Upload {
            /// The return file (CNAB 240).
            file: std::path::PathBuf,
            /// The account whose files these are.
            #[arg(long)]
            account: AccountId,
        },
        /// The account's return files (with counts of lines applied, unchanged, not applied), or
        /// with --file the lines of one that were not applied (--all: every line).
        Show {
            /// The account whose files these are.
            #[arg(long)]
            account: AccountId,
            /// The file's SHA-256, as the list shows it.
            #[arg(long)]
            file: Option<String>,
            /// With --file: every line, applied ones too.
            #[arg(long, requires = "file")]
            all: bool,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum AccountCommand {
        /// Creates an account (active, KYC approved, point of sale off unless told otherwise).
        Create {
            /// The account's name.
            #[arg(long)]
            name: String,
            #[command(flatten)]
            settings: Settings,
        },
        /// Changes an account; the authorizer cache is flushed so the change applies at once (on
        /// AWS twice, the authorizer's timeout apart). Asks first on AWS when it locks the account
        /// out or turns something off.
        Update {
            /// The account's id.
            #[arg(long)]
            id: AccountId,
            /// A new name.
            #[arg(long)]
            name: Option<String>,
            #[command(flatten)]
            settings: Settings,
        },
        /// Shows one account.
        Show {
            /// The account's id.
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
    pub struct Settings {
        /// active, overdue, locked or canceled (anything but active answers 403 to every token).
        #[arg(long)]
        pub status: Option<AccountStatus>,
        /// Registration verification (KYC); pending answers 403 to every token.
        #[arg(long)]
        pub kyc: Option<Kyc>,
        /// Point-of-sale module.
        #[arg(long)]
        pub pos: Option<Switch>,
        /// Health module (billings name a patient; the payer defaults to the patient's guardian).
        #[arg(long)]
        pub health: Option<Switch>,
        /// Beneficiary CNPJ or CPF printed on bank billets (digits; punctuation is dropped).
        #[arg(long)]
        pub document: Option<String>,
        /// Beneficiary street address printed on bank billets.
        #[arg(long)]
        pub address: Option<String>,
        /// Beneficiary city (bank billets and the Pix code).
        #[arg(long)]
        pub city: Option<String>,
        /// Point of sale: the contact who pays settlements by transfer (`none` clears it).
        #[arg(long, value_parser = settlement_contact, value_name = "CONTACT_ID|none")]
        pub settlement_contact: Option<String>,
    }

    fn settlement_contact(text: &str) -> Result<String, String> {
        match text {
            "none" => Ok(text.to_owned()),
            id => id.parse::<ContactId>().map(|_| id.to_owned()).map_err(|_| "a contact id, or none".to_owned()),
        }
    }

    #[derive(Clone, Copy, Debug, ValueEnum)]
    pub enum Kyc {
        Approved,
        Pending,
    }

    #[derive(Clone, Copy, Debug, ValueEnum)]
    pub enum Switch {
        On,
        Off,
    }

    impl Settings {
        pub fn changes(&self, name: Option<String>) -> AccountChanges {
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

        /// The parts of the change that shut the account's integrations out or take something
        /// away (what the confirmation names); empty when there is none.
        fn restrictions(&self) -> Vec<String> {
            let mut found = Vec::new();
            if let Some(status) = self.status.filter(|s| *s != AccountStatus::Active) {
                found.push(format!("status {status} (every token answers 403)"));
            }
            if let Some(Kyc::Pending) = self.kyc {
                found.push("KYC pending (every token answers 403)".to_owned());
            }
            if let Some(Switch::Off) = self.pos {
                found.push("point of sale off (its routes answer 403)".to_owned());
            }
            if let Some(Switch::Off) = self.health {
                found.push("health module off".to_owned());
            }
            if self.settlement_contact.as_deref() == Some("none") {
                found.push("no settlement contact".to_owned());
            }
            found
        }
    }

    #[derive(Subcommand, Debug)]
    pub enum TokenCommand {
        /// Creates a token with a descriptive name and prints it once.
        Create {
            /// The account the token opens.
            #[arg(long)]
            account: AccountId,
            /// What the token is for (e.g. the integration's name).
            #[arg(long)]
            name: String,
        },
        /// Lists the account's tokens, masked.
        List {
            /// The account whose tokens to list.
            #[arg(long)]
            account: AccountId,
        },
        /// Revokes a token for good; the others keep working. The authorizer cache is flushed (on
        /// AWS twice, the authorizer's timeout apart, about 11 s). Asks first on AWS.
        Revoke {
            /// The account the token belongs to.
            #[arg(long)]
            account: AccountId,
            /// The token's id (from `token list`).
            #[arg(long)]
            id: TokenId,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum BankRuleCommand {
        /// Creates a bank rule.
        Create {
            /// The account it belongs to.
            #[arg(long)]
            account: AccountId,
            /// The rule's name.
            #[arg(long)]
            name: String,
            /// The bank or provider that issues the billets: `simulated` (the simulated bank), or a bank
            /// of remittance files: `itau`, `itau_400`, `bradesco`, `bradesco_400`, `banco_do_brasil`,
            /// `santander`, `caixa`, `sicoob` (README, "Banks").
            #[arg(long, default_value = "simulated")]
            bank_symbol: String,
            /// The agreement (convênio) with the bank, as that bank writes it (README, "Banks";
            /// checked here: `itau` 0057/12345-7/109, `bradesco` 1234-0/0012345-6/09/4567890, …).
            #[arg(long)]
            agreement_code: Option<String>,
        },
        /// Lists the account's, by id, a page at a time.
        List {
            /// The account whose rules to list.
            #[arg(long)]
            account: AccountId,
            #[command(flatten)]
            page: PageArgs,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum BankAccountCommand {
        /// Creates a bank account.
        Create {
            /// The account it belongs to.
            #[arg(long)]
            account: AccountId,
            /// The bank account's name.
            #[arg(long)]
            name: String,
            /// checking, savings, cash, or service (the service's own account).
            #[arg(long = "type", default_value = "checking")]
            account_type: String,
        },
        /// Lists the account's, by id, a page at a time.
        List {
            /// The account whose bank accounts to list.
            #[arg(long)]
            account: AccountId,
            #[command(flatten)]
            page: PageArgs,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum CategoryCommand {
        /// Creates a financial category.
        Create {
            /// The account it belongs to.
            #[arg(long)]
            account: AccountId,
            /// The category's description.
            #[arg(long)]
            description: String,
            /// receivable or payable.
            #[arg(long = "type", default_value = "receivable")]
            category_type: String,
        },
        /// Lists the account's, by id, a page at a time.
        List {
            /// The account whose categories to list.
            #[arg(long)]
            account: AccountId,
            #[command(flatten)]
            page: PageArgs,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum BillingCommand {
        /// Creates a `schedule` or a `carne` (the booklet and its monthly instalments). Individual with
        /// --contact; bulk with --tag (and --excluded-tag) or, as old records did, --group.
        Legacy {
            /// The account it belongs to.
            #[arg(long)]
            account: AccountId,
            /// schedule or carne.
            #[arg(long = "type")]
            billing_type: BillingType,
            /// The bank rule that issues its billets.
            #[arg(long)]
            bank_rule: BankRuleId,
            /// The contact billed (an individual record).
            #[arg(long)]
            contact: Option<ContactId>,
            /// Bill every customer with this tag (a bulk record).
            #[arg(long)]
            tag: Option<TagId>,
            /// Leave out customers with this tag (repeat for several).
            #[arg(long = "excluded-tag")]
            excluded_tags: Vec<TagId>,
            /// Bill every customer of this group (a bulk record, as old records did).
            #[arg(long)]
            group: Option<GroupId>,
            /// The item's description.
            #[arg(long, default_value = "Mensalidade")]
            description: String,
            /// Per record (per instalment of a booklet), e.g. 99.90, as it was made (a record older
            /// than the 5.00 minimum keeps its amount).
            #[arg(long)]
            amount: Money,
            /// YYYY-MM-DD (of the first instalment of a booklet).
            #[arg(long)]
            due_date: chrono::NaiveDate,
            /// How many instalments (booklets only).
            #[arg(long, default_value_t = 3)]
            installments: i64,
        },
        /// Counts the account's billings of a type again (the total and each status, bank rule and
        /// category, which the lists' X-Total-Count read) and moves the counter to them: the repair
        /// for billings written around the service. Reads every billing of the type.
        Recount {
            /// The account the billings belong to.
            #[arg(long)]
            account: AccountId,
            /// billing, schedule or carne.
            #[arg(long = "type", default_value = "billing")]
            billing_type: BillingType,
        },
        /// Simulates the bank's payment of a billing's opened billet: billet and billing `paid`, and a
        /// `billing.updated` event recorded for the webhook sender (local stack only).
        Pay {
            /// The account the billing belongs to.
            #[arg(long)]
            account: AccountId,
            /// The billing's id.
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
    pub struct SaleAmount {
        /// The account the sale belongs to.
        #[arg(long)]
        pub account: AccountId,
        /// The sale's code.
        #[arg(long)]
        pub sale: String,
        /// The amount, e.g. 25.00.
        #[arg(long)]
        pub amount: Money,
    }

    #[derive(Subcommand, Debug)]
    pub enum SaleCommand {
        /// Records a sale. Payments: --on-account X (what stays open) and --payment KIND=AMOUNT
        /// (cash, card, pix, store_credit); without --payment, the rest of the total is cash.
        Create {
            /// The account the sale belongs to.
            #[arg(long)]
            account: AccountId,
            /// The customer.
            #[arg(long)]
            contact: ContactId,
            /// The sale's total, e.g. 100.00.
            #[arg(long)]
            total: Money,
            /// What stays open, owed by the customer (within their limit).
            #[arg(long)]
            on_account: Option<Money>,
            /// description:quantity:unit price (repeat for several), e.g. Camiseta:2:39.90.
            #[arg(long = "item", value_parser = parse_item)]
            items: Vec<(String, i64, Money)>,
            /// KIND=AMOUNT (repeat for several), e.g. card=50.00.
            #[arg(long = "payment", value_parser = parse_payment)]
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
        /// Gives back part or all of a sale: first off what it owes, the rest refunded. Asks first
        /// on AWS.
        Return {
            #[command(flatten)]
            of: SaleAmount,
            /// cash or store_credit.
            #[arg(long, default_value = "cash")]
            to: RefundTo,
        },
        /// Shows one sale with its payments and returns.
        Show {
            /// The account the sale belongs to.
            #[arg(long)]
            account: AccountId,
            /// The sale's code.
            #[arg(long)]
            sale: String,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum ContactCommand {
        /// Point of sale: the most the contact may owe on account (--clear: no limit; asks first
        /// on AWS).
        Limit {
            /// The account the contact belongs to.
            #[arg(long)]
            account: AccountId,
            /// The contact's id.
            #[arg(long)]
            contact: ContactId,
            /// The limit, e.g. 50.00.
            #[arg(long, required_unless_present = "clear")]
            limit: Option<Money>,
            /// Remove the limit instead.
            #[arg(long, conflicts_with = "limit")]
            clear: bool,
        },
        /// Counts the account's contacts again (each type's total, groups and active ones, which the
        /// lists' X-Total-Count read, and every tag's reach and holders) and moves the counters to
        /// them: the repair for contacts written around the service. Reads every contact.
        Recount {
            /// The account the contacts belong to.
            #[arg(long)]
            account: AccountId,
        },
        /// Moves the account's contacts stored under the names before today's (a tag's postings
        /// `T<tag>`, a code's `K<hash>`, the document `d`, the tag counts `t<tag>` and
        /// `<type>#T<tag>`) to today's (`L<tag>`, `Y<hash>`, `n`, `l<tag>`, `<type>#L<tag>`),
        /// each contact in one transaction, a hundred to a read: see docs/operations.md. Safe to
        /// run again; answers how many moved, how many were already moved, and any left.
        RenameStored {
            /// The account the contacts belong to.
            #[arg(long)]
            account: AccountId,
        },
        /// Counts again the active customers holding a tag (the count a bulk billing's 202 answers
        /// from) and sets the tag's reach counter to it: the repair for contacts written around
        /// the service. Reads every holder of the tag.
        RecountReach {
            /// The account the tag belongs to.
            #[arg(long)]
            account: AccountId,
            /// The tag's id.
            #[arg(long)]
            tag: TagId,
        },
        /// Sets (or with --clear removes; asks first on AWS) the financial guardian who pays a
        /// patient's billings.
        Guardian {
            /// The account the contacts belong to.
            #[arg(long)]
            account: AccountId,
            /// The patient's contact id.
            #[arg(long)]
            contact: ContactId,
            /// The guardian's contact id.
            #[arg(long, required_unless_present = "clear")]
            guardian: Option<ContactId>,
            /// Remove the guardian instead (the patient pays).
            #[arg(long, conflicts_with = "guardian")]
            clear: bool,
        },
    }

    #[derive(Subcommand, Debug)]
    pub enum WebhookCommand {
        /// Registers a receiver URL (https://, at most 3 per account) and prints its signing secret.
        Add {
            /// The account whose events it receives.
            #[arg(long)]
            account: AccountId,
            /// Where deliveries are POSTed (https:// on a public address).
            #[arg(long)]
            url: String,
            /// The event types it receives, separated by commas (default: every type, also those
            /// added later).
            #[arg(long, value_delimiter = ',')]
            event_types: Option<Vec<String>>,
        },
        /// Lists the account's receivers (secrets masked; disabled ones say why).
        List {
            /// The account whose receivers to list.
            #[arg(long)]
            account: AccountId,
        },
        /// Shows one receiver with its signing secret.
        Show {
            /// The account the receiver belongs to.
            #[arg(long)]
            account: AccountId,
            /// The receiver's id.
            #[arg(long)]
            id: WebhookId,
        },
        /// Removes a receiver; its pending deliveries fail ("receiver removed"). Asks first on AWS.
        Remove {
            /// The account the receiver belongs to.
            #[arg(long)]
            account: AccountId,
            /// The receiver's id.
            #[arg(long)]
            id: WebhookId,
        },
        /// A new signing secret; the previous one keeps signing beside it for 24 hours. Asks first
        /// on AWS.
        RotateSecret {
            /// The account the receiver belongs to.
            #[arg(long)]
            account: AccountId,
            /// The receiver's id.
            #[arg(long)]
            id: WebhookId,
        },
        /// Re-seals signing secrets under the master key's current (first) line, after a new
        /// master key was put first (docs/runbook.md, "Rotate the webhook master key"): one
        /// account's receivers, or without --account every account's. Idempotent: prints how many
        /// were re-sealed, already current, or open under no key. Asks first on AWS.
        Reseal {
            /// Only this account's receivers. Without it, every account's, read by key: one batch
            /// read per 100 accounts, one query per account that has receivers.
            #[arg(long)]
            account: Option<AccountId>,
        },
        /// Stops deliveries to a receiver (its pending deliveries fail; replay them after enabling).
        /// Asks first on AWS.
        Disable {
            /// The account the receiver belongs to.
            #[arg(long)]
            account: AccountId,
            /// The receiver's id.
            #[arg(long)]
            id: WebhookId,
        },
        /// Resumes deliveries to a receiver (and clears its failure streak).
        Enable {
            /// The account the receiver belongs to.
            #[arg(long)]
            account: AccountId,
            /// The receiver's id.
            #[arg(long)]
            id: WebhookId,
        },
        /// The delivery log (30 days), newest first, with every attempt.
        Deliveries {
            /// The account whose deliveries to list.
            #[arg(long)]
            account: AccountId,
            /// pending, delivered or failed.
            #[arg(long)]
            status: Option<DeliveryStatus>,
            /// The deliveries of one event (evt_...).
            #[arg(long)]
            event: Option<String>,
            /// At most this many deliveries.
            #[arg(long, default_value_t = 20)]
            limit: usize,
        },
        /// Sends deliveries again with their original delivery ids.
        Replay {
            /// The account whose deliveries to send again.
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

    /// A command that deletes, revokes, disables, locks, refunds or replaces a secret: against AWS
    /// it runs only once confirmed (`crate::target::consent`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Destructive {
        /// What will happen, as the question and the refusal say it.
        pub what: String,
        /// The account it changes, when one (the question names it).
        pub account: Option<AccountId>,
    }

    impl Command {
        /// Why the command makes sense only on the local stack, for those that do.
        pub fn local_only(&self) -> Option<(&'static str, &'static str)> {
            match self {
                Command::Setup => Some(("setup", "creates the table, queues and secret that the stack deploys on AWS")),
                Command::Billing(BillingCommand::Pay { .. }) => {
                    Some(("billing pay", "simulates the bank's payment (on AWS the bank reports payments)"))
                }
                Command::Pix(PixCommand::Pay { .. }) => {
                    Some(("pix pay", "pays at the local PSP (on AWS the payer's bank pays the PSP)"))
                }
                Command::Reminders(RemindersCommand::SesEvent { .. }) => {
                    Some(("reminders ses-event", "stands for SES's events (on AWS SES publishes them)"))
                }
                Command::Reminders(RemindersCommand::WhatsappEvent { .. }) => {
                    Some(("reminders whatsapp-event", "stands for WhatsApp's statuses (on AWS Meta sends them)"))
                }
                _ => None,
            }
        }

        /// What the command destroys or takes away, for those that ask for confirmation on AWS.
        pub fn destructive(&self) -> Option<Destructive> {
            let on = |account: AccountId, what: String| Some(Destructive { what, account: Some(account) });
            match self {
                Command::Token(TokenCommand::Revoke { account, id }) => on(
                    *account,
                    format!("revoke API token {id} of account {account} for good (it answers 401 from now on)"),
                ),
                Command::Account(AccountCommand::Update { id, settings, .. }) => {
                    let restrictions = settings.restrictions();
                    match restrictions.is_empty() {
                        true => None,
                        false => on(*id, format!("change account {id}: {}", restrictions.join(", "))),
                    }
                }
                Command::Return(ReturnCommand::Upload { account, file }) => on(
                    *account,
                    format!(
                        "apply the bank's return file {} to account {account} (its billets and billings change: \
                         registered, refused, paid)",
                        file.display()
                    ),
                ),
                Command::Webhook(WebhookCommand::Remove { account, id }) => on(
                    *account,
                    format!("remove webhook receiver {id} of account {account} (its pending deliveries fail)"),
                ),
                Command::Webhook(WebhookCommand::Disable { account, id }) => on(
                    *account,
                    format!("disable webhook receiver {id} of account {account} (deliveries stop; pending ones fail)"),
                ),
                Command::Webhook(WebhookCommand::RotateSecret { account, id }) => on(
                    *account,
                    format!(
                        "replace the signing secret of webhook receiver {id} of account {account} (the current one \
                         stops signing in 24 hours; a previous one still signing stops now)"
                    ),
                ),
                Command::Webhook(WebhookCommand::Reseal { account }) => Some(Destructive {
                    what: match account {
                        Some(account) => format!(
                            "re-seal the webhook signing secrets of account {account} under the master key's first line"
                        ),
                        None => {
                            "re-seal the webhook signing secrets of every account under the master key's first line"
                                .to_owned()
                        }
                    },
                    account: *account,
                }),
                Command::Sale(SaleCommand::Return { of, to }) => on(
                    of.account,
                    format!("give back {} of sale {} of account {} (refunded as {to})", of.amount, of.sale, of.account),
                ),
                Command::Contact(ContactCommand::Guardian { account, contact, clear: true, .. }) => on(
                    *account,
                    format!(
                        "remove the financial guardian of contact {contact} of account {account} (the patient pays)"
                    ),
                ),
                Command::Contact(ContactCommand::Limit { account, contact, clear: true, .. }) => on(
                    *account,
                    format!(
                        "remove the on-account limit of contact {contact} of account {account} (it may owe any amount)"
                    ),
                ),
                _ => None,
            }
        }
    }

    /// Writes the output as pretty JSON and a newline, and flushes. A reader that went away (`ops
    /// … | head -c 10`) shows as an error of kind `BrokenPipe`, which the binary ends on quietly.
    pub fn write_json(out: &mut impl Write, value: &serde_json::Value) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        writeln!(out, "{text}")?;
        out.flush()
    }

    #[cfg(test)]
    mod tests {
        use clap::CommandFactory as _;

        use super::*;

        /// `ops` with these words.
        fn parse(words: &[&str]) -> Cli {
            Cli::try_parse_from(std::iter::once("ops").chain(words.iter().copied())).unwrap()
        }

        #[test]
        fn the_command_line_is_consistent() {
            Cli::command().debug_assert();
        }

        /// Every flag of every command has help, and every command says what it does.
        #[test]
        fn every_argument_and_command_has_help() {
            fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
                if command.get_about().is_none() && command.get_long_about().is_none() {
                    missing.push(format!("command `{path}`"));
                }
                for arg in command.get_arguments() {
                    let id = arg.get_id().as_str();
                    if matches!(id, "help" | "version") {
                        continue;
                    }
                    let help = arg.get_help().or(arg.get_long_help()).map(|h| h.to_string()).unwrap_or_default();
                    if help.trim().is_empty() {
                        missing.push(format!("`{path} --{}`", arg.get_long().unwrap_or(id)));
                    }
                }
                for sub in command.get_subcommands().filter(|sub| sub.get_name() != "help") {
                    walk(sub, &format!("{path} {}", sub.get_name()), missing);
                }
            }
            let mut command = Cli::command();
            command.build();
            let mut missing = Vec::new();
            walk(&command, "ops", &mut missing);
            assert!(missing.is_empty(), "without help text: {missing:#?}");
            // The walk did walk: the tree has every group and their commands.
            let names: Vec<_> = command.get_subcommands().map(|c| c.get_name().to_owned()).collect();
            assert!(names.contains(&"webhook".to_owned()) && names.contains(&"sale".to_owned()), "{names:?}");
        }

        #[test]
        fn global_flags_go_anywhere_and_local_excludes_stack() {
            let cli = parse(&["token", "revoke", "--account", "1", "--id", "2", "--yes", "--stack", "prod"]);
            assert!(cli.yes && !cli.local);
            assert_eq!(cli.stack.as_deref(), Some("prod"));
            assert!(parse(&["--local", "account", "list"]).local);
            let both = Cli::try_parse_from(["ops", "--local", "--stack", "prod", "account", "list"]).unwrap_err();
            assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
        }

        #[test]
        fn destructive_commands_are_the_ones_that_take_something_away() {
            let what = |words: &[&str]| parse(words).command.destructive().map(|d| (d.what, d.account));
            let revoke = what(&["token", "revoke", "--account", "1", "--id", "2"]).unwrap();
            assert_eq!(revoke.1, Some(AccountId::new(1)));
            assert!(revoke.0.starts_with("revoke API token 2 of account 1"), "{}", revoke.0);

            for words in [
                &["account", "update", "--id", "1", "--status", "locked"][..],
                &["account", "update", "--id", "1", "--status", "overdue"],
                &["account", "update", "--id", "1", "--status", "canceled"],
                &["account", "update", "--id", "1", "--kyc", "pending"],
                &["account", "update", "--id", "1", "--pos", "off"],
                &["account", "update", "--id", "1", "--health", "off"],
                &["account", "update", "--id", "1", "--settlement-contact", "none"],
                &["webhook", "remove", "--account", "1", "--id", "1"],
                &["webhook", "disable", "--account", "1", "--id", "1"],
                &["webhook", "rotate-secret", "--account", "1", "--id", "1"],
                &["webhook", "reseal", "--account", "1"],
                &["webhook", "reseal"],
                &["sale", "return", "--account", "1", "--sale", "V1", "--amount", "10.00"],
                &["contact", "guardian", "--account", "1", "--contact", "2", "--clear"],
                &["contact", "limit", "--account", "1", "--contact", "2", "--clear"],
            ] {
                assert!(what(words).is_some(), "{words:?} should ask");
            }
            let locked = what(&["account", "update", "--id", "3", "--status", "locked", "--pos", "off"]).unwrap();
            assert_eq!(
                locked.0,
                "change account 3: status locked (every token answers 403), point of sale off (its routes answer 403)"
            );
            assert_eq!(what(&["webhook", "reseal"]).unwrap().1, None);

            for words in [
                &["account", "create", "--name", "Loja"][..],
                &["account", "update", "--id", "1", "--status", "active", "--kyc", "approved", "--pos", "on"],
                &["account", "update", "--id", "1", "--name", "Outro nome", "--settlement-contact", "4"],
                &["account", "list"],
                &["token", "create", "--account", "1", "--name", "ERP"],
                &["token", "list", "--account", "1"],
                &["webhook", "add", "--account", "1", "--url", "https://example.com/hook"],
                &["webhook", "enable", "--account", "1", "--id", "1"],
                &["webhook", "replay", "--account", "1", "--event", "evt_1"],
                &["sale", "receive", "--account", "1", "--sale", "V1", "--amount", "10.00"],
                &["contact", "guardian", "--account", "1", "--contact", "2", "--guardian", "3"],
                &["contact", "limit", "--account", "1", "--contact", "2", "--limit", "50.00"],
                &["setup"],
            ] {
                assert_eq!(what(words), None, "{words:?} should not ask");
            }
        }

        /// A writer whose reader went away.
        struct ClosedPipe;

        impl Write for ClosedPipe {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }

            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }

        #[test]
        fn output_is_pretty_json_and_a_closed_pipe_is_an_error_not_a_panic() {
            let mut out = Vec::new();
            write_json(&mut out, &serde_json::json!({ "a": 1 })).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), "{\n  \"a\": 1\n}\n");
            let error = write_json(&mut ClosedPipe, &serde_json::json!({ "a": 1 })).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);
        }
    }
}
