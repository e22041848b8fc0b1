//! `ops payment …`: the account's payments ledger as the API shows it (amounts as decimal
//! strings): a page of payments, one payment, a refund, a day's statement, and the payments kept
//! to refund (a billing paid twice, or paid after it was settled otherwise).

use billing_api::payments::refunds::{self, Asked};
use billing_api::payments::rows::{self, Order, Partition, Query};
use billing_api::payments::view::PaymentView;
use billing_api::payments::{entry_of, read_payment_id, Channel, Status};
use billing_api::store::Store;
use billing_api::values::{AccountId, Money};
use chrono::NaiveDate;
use clap::Subcommand;
use serde_json::{json, Value};

use super::confirm::Destructive;
use super::require_account;

#[derive(Subcommand, Debug)]
pub enum PaymentCommand {
    /// The account's payments kept to refund (a billing paid twice, through two channels or
    /// after it was settled otherwise), oldest first, as `payment show` shows each.
    Refunds {
        /// The account whose payments these are.
        #[arg(long)]
        account: AccountId,
        /// How many (oldest first).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
    },
    /// A page of the account's payments, newest first, as `GET /v1/payments` lists them: by the
    /// day paid, or by the day credited with --credited-from or --credited-to.
    List {
        /// The account whose payments these are.
        #[arg(long)]
        account: AccountId,
        /// bank_billet, pix, credit_card or manual.
        #[arg(long, value_parser = parse_channel)]
        channel: Option<Channel>,
        /// applied, to_refund or refunded.
        #[arg(long, value_parser = parse_status)]
        status: Option<Status>,
        /// Paid on or after this day (YYYY-MM-DD).
        #[arg(long, conflicts_with_all = ["credited_from", "credited_to"])]
        paid_from: Option<NaiveDate>,
        /// Paid on or before this day.
        #[arg(long, conflicts_with_all = ["credited_from", "credited_to"])]
        paid_to: Option<NaiveDate>,
        /// Credited on or after this day: the list goes by the day credited.
        #[arg(long)]
        credited_from: Option<NaiveDate>,
        /// Credited on or before this day.
        #[arg(long)]
        credited_to: Option<NaiveDate>,
        /// How many (newest first).
        #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
        /// The `next_cursor` of the page before.
        #[arg(long)]
        cursor: Option<String>,
    },
    /// One payment, by its id (`pay_…`), and the refund under way, if any.
    Show {
        /// The account the payment belongs to.
        #[arg(long)]
        account: AccountId,
        /// The payment's id (`pay_…`, as `payment list` shows it).
        #[arg(long)]
        id: String,
    },
    /// Gives a payment back (`POST /v1/payments/{id}/refund`): a Pix through its PSP, a card through
    /// the gateway, a boleto or a pay-off recorded as given back outside. Asks first on AWS.
    Refund {
        /// The account the payment belongs to.
        #[arg(long)]
        account: AccountId,
        /// The payment's id (`pay_…`).
        #[arg(long)]
        id: String,
        /// How much (default: all that is not given back yet).
        #[arg(long)]
        amount: Option<Money>,
        /// Why, as the payment's refunds show it.
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// A day's statement, as `GET /v1/statements/{date}` shows it.
    Statement {
        /// The account.
        #[arg(long)]
        account: AccountId,
        /// The day (YYYY-MM-DD, São Paulo).
        #[arg(long)]
        date: NaiveDate,
    },
}

fn parse_channel(text: &str) -> Result<Channel, String> {
    Channel::parse(text).ok_or_else(|| format!("one of {}", Channel::list()))
}

fn parse_status(text: &str) -> Result<Status, String> {
    Status::parse(text).ok_or_else(|| "one of applied, to_refund, refunded".to_owned())
}

impl PaymentCommand {
    /// A refund gives real money back, from the account to the payer.
    pub fn destructive(&self) -> Option<Destructive> {
        let PaymentCommand::Refund { account, id, amount, .. } = self else { return None };
        let how_much = amount.map_or_else(|| "all that is not given back yet".to_owned(), |a| a.to_string());
        Some(Destructive::on(
            *account,
            format!("give back {how_much} of payment {id} of account {account} to its payer"),
        ))
    }
}

/// Runs one `payment` command.
pub async fn run(store: &Store, command: PaymentCommand) -> anyhow::Result<Value> {
    match command {
        PaymentCommand::Refunds { account, limit } => payments_to_refund(store, account, usize::from(limit)).await,
        PaymentCommand::List {
            account,
            channel,
            status,
            paid_from,
            paid_to,
            credited_from,
            credited_to,
            limit,
            cursor,
        } => {
            require_account(store, account).await?;
            let credited = credited_from.is_some() || credited_to.is_some();
            let order = if credited { Order::Credited } else { Order::Paid };
            let (from, to) = if credited { (credited_from, credited_to) } else { (paid_from, paid_to) };
            let query = Query {
                partition: Partition { order, channel, status },
                from,
                to,
                after: cursor,
                limit: usize::from(limit),
            };
            let listed = rows::list(store, account, &query).await?;
            let views: Vec<PaymentView> = listed.payments.iter().map(PaymentView::new).collect();
            Ok(json!({ "payments": views, "next_cursor": listed.next }))
        }
        PaymentCommand::Show { account, id } => {
            let (channel, provider_id) =
                read_payment_id(&id).ok_or_else(|| anyhow::anyhow!("not a payment id: {id}"))?;
            let entry = entry_of(store, account, channel, &provider_id).await?;
            let entry = entry.ok_or_else(|| anyhow::anyhow!("no payment {id} in account {account}"))?;
            // The refund under way, if any (what a `409 refund_in_progress` waits for).
            let claim = entry.claim.as_ref().map(billing_api::payments::view::RefundView::new);
            Ok(json!({ "payment": PaymentView::new(&entry), "refund_under_way": claim }))
        }
        PaymentCommand::Refund { account, id, amount, reason } => refund(store, account, &id, amount, reason).await,
        PaymentCommand::Statement { account, date } => {
            require_account(store, account).await?;
            Ok(serde_json::to_value(billing_api::payments::statement::of_day(store, account, date).await?)?)
        }
    }
}

/// Refunds the account's payment `id` as an operator (`by: ops`): the payment as it then is.
pub async fn refund(
    store: &Store,
    account: AccountId,
    id: &str,
    amount: Option<Money>,
    reason: String,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let asked = Asked { amount, reason, by: "ops" };
    let entry = refunds::refund(store, account, id, asked).await.map_err(|refused| match refused {
        billing_api::refusal::Refusal::NotFound => anyhow::anyhow!("no payment {id} in account {account}"),
        other => super::refusal(other),
    })?;
    Ok(json!({ "payment": PaymentView::new(&entry) }))
}

/// The account's payments kept to refund (`payments::to_refund`), as the API shows a payment.
pub async fn payments_to_refund(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let kept = billing_api::payments::to_refund(store, account, limit).await?;
    let views: Vec<PaymentView> = kept.iter().map(PaymentView::new).collect();
    Ok(json!({ "to_refund": views }))
}
