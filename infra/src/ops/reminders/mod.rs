//! `ops reminders …`: reminders to payers: a day's run in this process, an account's schedule and
//! senders, a billing's deliveries, suppressed addresses; and, on the local stack only, the
//! providers' events that moto does not publish (`local_providers`).

use billing_api::reminders::deliveries;
use billing_api::reminders::schedule::{self, Setup};
use billing_api::reminders::{providers, run, suppression};
use billing_api::store::Store;
use billing_api::values::{AccountId, BillingId};
use chrono::NaiveDate;
use clap::Subcommand;
use serde_json::{json, Value};

use super::require_account;

mod local_providers;

pub use local_providers::{inject_ses_event, inject_whatsapp_event, ses_event, whatsapp_event, LOCAL_WHATSAPP_NUMBER};

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

impl RemindersCommand {
    /// Why the command makes sense only on the local stack, for those that do.
    pub fn local_only(&self) -> Option<(&'static str, &'static str)> {
        match self {
            RemindersCommand::SesEvent { .. } => {
                Some(("reminders ses-event", "stands for SES's events (on AWS SES publishes them)"))
            }
            RemindersCommand::WhatsappEvent { .. } => {
                Some(("reminders whatsapp-event", "stands for WhatsApp's statuses (on AWS Meta sends them)"))
            }
            _ => None,
        }
    }
}

/// Runs one `reminders` command.
pub async fn run(store: &Store, config: &aws_config::SdkConfig, command: RemindersCommand) -> anyhow::Result<Value> {
    match command {
        RemindersCommand::Run { date, concurrency, rate } => {
            let day = date.unwrap_or_else(billing_api::values::today);
            Box::pin(run_day(store, config, day, usize::from(concurrency), rate)).await
        }
        RemindersCommand::Schedule { account } => show_schedule(store, account).await,
        RemindersCommand::Setup { account, email_sender, whatsapp_phone_number_id, whatsapp_template } => {
            let setup = Setup {
                email_sender: email_sender.map(Some),
                whatsapp_phone_number_id: whatsapp_phone_number_id.map(Some),
                whatsapp_template: whatsapp_template.map(Some),
            };
            set_up(store, account, setup).await
        }
        RemindersCommand::Deliveries { account, billing } => billing_deliveries(store, account, billing).await,
        RemindersCommand::Suppressed { account } => suppressed(store, account).await,
        RemindersCommand::Unsuppress { account, email } => unsuppress(store, account, &email).await,
        RemindersCommand::SesEvent { reminder: r, kind } => {
            Box::pin(inject_ses_event(store, r.account, r.billing, r.date, &kind)).await
        }
        RemindersCommand::WhatsappEvent { reminder: r, status, error } => {
            let injected = inject_whatsapp_event(store, r.account, r.billing, r.date, &status, error.as_deref());
            Box::pin(injected).await
        }
    }
}

/// Runs `day`'s reminders in this process (`reminders::run::run_day`), `rate` a second at most.
pub async fn run_day(
    store: &Store,
    config: &aws_config::SdkConfig,
    day: NaiveDate,
    concurrency: usize,
    rate: Option<f64>,
) -> anyhow::Result<Value> {
    let providers = providers::Providers::from_env(config);
    let providers = match rate {
        Some(rate) => providers.paced(rate),
        None => providers,
    };
    let started = std::time::Instant::now();
    let report = run::run_day(store, &providers, day, concurrency).await?;
    let mut value = serde_json::to_value(&report)?;
    value["seconds"] = json!(started.elapsed().as_secs_f64());
    Ok(value)
}

/// An account's schedule with its senders.
pub async fn show_schedule(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let schedule = schedule::of(store, account).await?;
    Ok(json!({
        "account_id": account,
        "enabled": schedule.enabled,
        "steps": schedule.steps,
        "default": schedule.is_default(),
        "email_sender": schedule.email_sender.clone().unwrap_or_else(providers::default_sender),
        "whatsapp_phone_number_id": schedule.whatsapp_phone_number_id,
        "whatsapp_template": schedule.whatsapp_template.as_deref().unwrap_or(schedule::DEFAULT_WHATSAPP_TEMPLATE),
    }))
}

/// Sets an account's senders (`""` clears one).
pub async fn set_up(store: &Store, account: AccountId, setup: Setup) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    schedule::set_up(store, account, &setup).await?;
    show_schedule(store, account).await
}

/// Every delivery of a billing (the newest [`deliveries::SHOWN`]), with where each went.
pub async fn billing_deliveries(store: &Store, account: AccountId, billing: BillingId) -> anyhow::Result<Value> {
    let found = deliveries::of_billing(store, account, billing).await?;
    Ok(json!({ "account_id": account, "billing_id": billing, "deliveries": found }))
}

pub async fn suppressed(store: &Store, account: AccountId) -> anyhow::Result<Value> {
    Ok(json!({ "account_id": account, "suppressed": suppression::list(store, account).await? }))
}

pub async fn unsuppress(store: &Store, account: AccountId, email: &str) -> anyhow::Result<Value> {
    let lifted = suppression::lift(store, account, email).await?;
    Ok(json!({ "account_id": account, "email": email.trim().to_lowercase(), "lifted": lifted }))
}
