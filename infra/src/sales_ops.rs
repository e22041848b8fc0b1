//! What `infra/ops sale …` does: the store's counter records sales, receipts and returns, which
//! the API then shows (§4.7). Refusals (the on-account rule, the limit, amounts that do not add
//! up) are errors: the CLI prints them and exits with status 1.

use billing_api::pos::sales::{self, SaleDraft, SaleView};
use billing_api::refusal::Refusal;
use billing_api::store::Store;
use billing_api::values::{AccountId, ContactId, Money, PaymentKind, RefundTo};
use serde_json::{json, Value};

use crate::ops::require_account;

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
    let sale = sales::create(store, account, &draft).await.map_err(refusal)?;
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
    let sale = sales::receive(store, account, code, amount, kind).await.map_err(refusal)?;
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
    let sale = sales::give_back(store, account, code, amount, to).await.map_err(refusal)?;
    Ok(json!({ "sale": SaleView::of(&sale) }))
}

pub async fn show(store: &Store, account: AccountId, code: &str) -> anyhow::Result<Value> {
    let sale = sales::find(store, account, code).await?.ok_or_else(|| anyhow::anyhow!("no sale {code}"))?;
    Ok(json!({ "sale": SaleView::of(&sale) }))
}

/// A refusal as the operator reads it: its messages.
fn refusal(refusal: Refusal) -> anyhow::Error {
    match refusal {
        Refusal::Invalid(problems) => anyhow::anyhow!("{}", billing_api::refusal::messages(&problems).join("; ")),
        Refusal::Rule { message, .. } | Refusal::Clash { message, .. } => anyhow::anyhow!("{message}"),
        other => anyhow::anyhow!("{other}"),
    }
}
