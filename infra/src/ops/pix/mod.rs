//! `ops pix …`: Pix on a bank rule's billets: the rule linked to its Pix institution (PSP), a Pix
//! given back to its payer through the PSP, the reconciliation of what no webhook brought; and, on
//! the local stack only, a payer's Pix at the local PSP (`local_psp`).

use anyhow::Context as _;
use billing_api::payments::pix::{psp, routes};
use billing_api::store::Store;
use billing_api::values::{AccountId, BankRuleId, BillingId, Money};
use clap::Subcommand;
use serde_json::Value;

use super::confirm::Destructive;

pub mod local_psp;

pub use local_psp::{local_act, local_charge, local_client_id, local_credentials, notify_again, pay, psp_side_client};

#[derive(Subcommand, Debug)]
pub enum PixCommand {
    /// Links a bank rule to its Pix institution: the credentials go to the rule's secret in
    /// Secrets Manager (never the table), the rule's billets carry a Pix charge with a due date
    /// from then on, and, with --webhook-base, the rule's webhooks are registered at the PSP (the
    /// key's, and Pix Automático's `webhookrec` and `webhookcobr`). With --local, the local PSP's credentials (infra/run) stand for every option
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
    /// the PSP that received it; the same command again is the same refund. Asks first on AWS.
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

impl PixCommand {
    /// What a refund gives back: real money, from the account to the payer.
    pub fn destructive(&self) -> Option<Destructive> {
        let PixCommand::Refund { account, end_to_end_id, amount } = self else { return None };
        let how_much = match amount {
            Some(amount) => format!("{amount}"),
            None => "all that is not given back yet".to_owned(),
        };
        let what =
            format!("give back {how_much} of Pix {end_to_end_id} of account {account} to its payer (through its PSP)");
        Some(Destructive::on(*account, what))
    }

    /// Why the command makes sense only on the local stack, for those that do.
    pub fn local_only(&self) -> Option<(&'static str, &'static str)> {
        match self {
            PixCommand::Pay { .. } => Some(("pix pay", "pays at the local PSP (on AWS the payer's bank pays the PSP)")),
            _ => None,
        }
    }
}

/// Runs one `pix` command.
pub async fn run(store: &Store, config: &aws_config::SdkConfig, command: PixCommand) -> anyhow::Result<Value> {
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
                true => local_credentials(&pix_key)?,
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
            let webhook = link_psp(store, &secrets, account, bank_rule, &credentials, webhook_base.as_deref()).await?;
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
            pay(store, account, billing, billet, date, amount, !no_webhook).await
        }
        PixCommand::Refund { account, end_to_end_id, amount } => refund(store, account, &end_to_end_id, amount).await,
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

/// Links bank rule `rule` to the PSP of `credentials`: checks them, keeps them in the rule's secret
/// (Secrets Manager), marks the rule, and, given the webhook domain's base URL, registers the
/// rule's webhook for the key at the PSP (`PUT /webhook/{chave}`, and Pix Automático's
/// `PUT /webhookrec` and `PUT /webhookcobr`). Returns the webhook URL
/// registered, if any.
pub async fn link_psp(
    store: &Store,
    secrets: &aws_sdk_secretsmanager::Client,
    account: AccountId,
    rule: BankRuleId,
    credentials: &psp::Credentials,
    webhook_base: Option<&str>,
) -> anyhow::Result<Option<String>> {
    credentials.check()?;
    let secret_id = psp::secret_id(account, rule);
    billing_api::payments::secrets::store(secrets, &secret_id, credentials).await?;
    billing_api::bank_rules::set_pix(store, account, rule, Some(secret_id)).await?;
    let Some(base) = webhook_base else { return Ok(None) };
    let url = format!("{}{}", base.trim_end_matches('/'), routes::path(account, rule));
    let client = psp::Psp::new(credentials.clone())?;
    client.register_webhook(&url).await.context("registering the webhook at the PSP")?;
    // Pix Automático's, at the same URL (the PSP adds `/rec` and `/cobr`).
    client.register_recurring_webhooks(&url).await.context("registering the Pix Automático webhooks at the PSP")?;
    Ok(Some(url))
}

/// Gives a Pix back to its payer through the PSP that received it: `payment refund` of the Pix's
/// payment (`PUT /pix/{e2eid}/devolucao/{id}`), `amount` or what is not given back yet.
pub async fn refund(
    store: &Store,
    account: AccountId,
    end_to_end_id: &str,
    amount: Option<billing_api::values::Money>,
) -> anyhow::Result<Value> {
    use billing_api::payments::{payment_id, Channel};
    let id = payment_id(Channel::Pix, end_to_end_id);
    super::payment::refund(store, account, &id, amount, String::new()).await
}
