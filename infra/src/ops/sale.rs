//! `ops sale …`: the point of sale. The store's counter records sales, receipts and returns, which
//! the API then shows (§4.7); a return asks first on AWS. Refusals (the on-account rule, the
//! limit, amounts that do not add up) are errors: the CLI prints them and exits with status 1.

use billing_api::pos::sales::{self, SaleDraft, SaleView};
use billing_api::store::Store;
use billing_api::values::{AccountId, ContactId, Money, PaymentKind, RefundTo};
use clap::Subcommand;
use serde_json::{json, Value};

use super::confirm::Destructive;
use super::require_account;

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

impl SaleCommand {
    /// What a return gives back.
    pub fn destructive(&self) -> Option<Destructive> {
        let SaleCommand::Return { of, to } = self else { return None };
        let what = format!("give back {} of sale {} of account {} (refunded as {to})", of.amount, of.sale, of.account);
        Some(Destructive::on(of.account, what))
    }
}

/// Runs one `sale` command.
pub async fn run(store: &Store, command: SaleCommand) -> anyhow::Result<Value> {
    match command {
        SaleCommand::Create { account, contact, total, on_account, items, payments } => {
            create_sale(store, account, contact, total, on_account, items, payments).await
        }
        SaleCommand::Receive { of, kind } => receive(store, of.account, &of.sale, of.amount, kind).await,
        SaleCommand::Return { of, to } => give_back(store, of.account, &of.sale, of.amount, to).await,
        SaleCommand::Show { account, sale } => show(store, account, &sale).await,
    }
}

/// Records a sale. Without `--payment`, whatever `--on-account` leaves of the total is paid in cash.
pub async fn create_sale(
    store: &Store,
    account: AccountId,
    contact: ContactId,
    total: Money,
    on_account: Option<Money>,
    items: Vec<(String, i64, Money)>,
    mut payments: Vec<sales::Payment>,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    if let Some(amount) = on_account {
        payments.push(sales::Payment { kind: PaymentKind::OnAccount, amount });
    }
    let paid: Money = payments.iter().map(|p| p.amount).sum();
    if payments.iter().all(|p| p.kind == PaymentKind::OnAccount) && paid < total {
        payments.push(sales::Payment { kind: PaymentKind::Cash, amount: total - paid });
    }
    let draft = SaleDraft { contact_id: Some(contact), total: Some(total), items, payments };
    let sale = sales::create(store, account, &draft).await.map_err(super::refusal)?;
    Ok(json!({ "sale": SaleView::of(&sale) }))
}

pub async fn receive(
    store: &Store,
    account: AccountId,
    code: &str,
    amount: Money,
    kind: PaymentKind,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let sale = sales::receive(store, account, code, amount, kind).await.map_err(super::refusal)?;
    Ok(json!({ "sale": SaleView::of(&sale) }))
}

pub async fn give_back(
    store: &Store,
    account: AccountId,
    code: &str,
    amount: Money,
    to: RefundTo,
) -> anyhow::Result<Value> {
    require_account(store, account).await?;
    let sale = sales::give_back(store, account, code, amount, to).await.map_err(super::refusal)?;
    Ok(json!({ "sale": SaleView::of(&sale) }))
}

pub async fn show(store: &Store, account: AccountId, code: &str) -> anyhow::Result<Value> {
    let sale = sales::find(store, account, code).await?.ok_or_else(|| anyhow::anyhow!("no sale {code}"))?;
    Ok(json!({ "sale": SaleView::of(&sale) }))
}
