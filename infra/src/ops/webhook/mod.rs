//! `ops webhook …`: an account's webhook receivers, their delivery log and replays, and the
//! re-seal of signing secrets after a master key rotation. What removes, disables, rotates or
//! re-seals asks first on AWS.

use anyhow::Context as _;
use billing_api::store::Store;
use billing_api::values::{AccountId, DeliveryStatus, Timestamp, WebhookId};
use billing_api::webhooks::deliveries::Filter;
use billing_api::webhooks::{Policy, SecretBox};
use clap::Subcommand;
use serde_json::Value;

use super::confirm::Destructive;

mod deliveries;
mod receivers;
mod reseal;

pub use receivers::WebhookOps;
pub use reseal::ResealReport;

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

impl WebhookCommand {
    /// What a removal, a disable, a rotation or a re-seal takes away or replaces.
    pub fn destructive(&self) -> Option<Destructive> {
        match self {
            WebhookCommand::Remove { account, id } => Some(Destructive::on(
                *account,
                format!("remove webhook receiver {id} of account {account} (its pending deliveries fail)"),
            )),
            WebhookCommand::Disable { account, id } => Some(Destructive::on(
                *account,
                format!("disable webhook receiver {id} of account {account} (deliveries stop; pending ones fail)"),
            )),
            WebhookCommand::RotateSecret { account, id } => Some(Destructive::on(
                *account,
                format!(
                    "replace the signing secret of webhook receiver {id} of account {account} (the current one \
                     stops signing in 24 hours; a previous one still signing stops now)"
                ),
            )),
            WebhookCommand::Reseal { account } => Some(Destructive {
                what: match account {
                    Some(account) => format!(
                        "re-seal the webhook signing secrets of account {account} under the master key's first line"
                    ),
                    None => "re-seal the webhook signing secrets of every account under the master key's first line"
                        .to_owned(),
                },
                account: *account,
            }),
            _ => None,
        }
    }
}

/// Runs one `webhook` command, with the master key of the stack's secret (`key_secret`), else of
/// `WEBHOOK_KEY_SECRET_ID`.
pub async fn run(
    config: &aws_config::SdkConfig,
    key_secret: Option<&str>,
    store: Store,
    command: WebhookCommand,
) -> anyhow::Result<Value> {
    let vault = match key_secret {
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
