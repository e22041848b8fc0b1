//! The instalments of a carnê, for the page of one of them: the booklet's instalments by key (their
//! ids follow the booklet's) and their billets' links, in two batches of reads at most.

use super::page::Instalment;
use crate::billets::link;
use crate::billets::model as billets;
use crate::billings::Billing;
use crate::store::{Store, StoreError};
use crate::values::{AccountId, BillingStatus, BillingType};

/// What the payer is told of an instalment's state.
fn state_of(billing: &Billing, today: chrono::NaiveDate) -> &'static str {
    match billing.status {
        BillingStatus::Opened if billing.due_date < today => "Vencida",
        BillingStatus::Opened => "Em aberto",
        BillingStatus::Paid | BillingStatus::Available | BillingStatus::Discharged => "Paga",
        BillingStatus::Canceled => "Cancelada",
        BillingStatus::Returned => "Devolvida",
        _ => "Em processamento",
    }
}

/// The booklet's instalments when `billing` is one (none otherwise), in order.
pub(super) async fn instalments_beside(
    store: &Store,
    account: AccountId,
    billing: &Billing,
    today: chrono::NaiveDate,
) -> Result<Vec<Instalment>, StoreError> {
    let Some(booklet) = billing.parent_id.filter(|_| billing.billing_type == BillingType::Carne) else {
        return Ok(Vec::new());
    };
    if billing.installment < 1 || billing.installments < 2 {
        return Ok(Vec::new());
    }
    let siblings = crate::billings::service::instalments(store, account, booklet, billing.installments).await?;
    let tokens = siblings.iter().map(|b| async move {
        let payable = b.id != billing.id && b.status == BillingStatus::Opened;
        match b.billet_id.filter(|_| payable) {
            Some(id) => Ok(billets::find(store, account, b.id, id).await?.and_then(|billet| billet.payer_token)),
            None => Ok::<_, StoreError>(None),
        }
    });
    let tokens = futures::future::try_join_all(tokens).await?;
    Ok(siblings
        .iter()
        .zip(tokens)
        .map(|(b, token)| Instalment {
            number: b.installment,
            of: b.installments,
            due: b.due_date,
            amount: b.amount,
            state: state_of(b, today).to_owned(),
            link: token.map(|t| format!("{}{t}", link::PATH)),
            current: b.id == billing.id,
        })
        .collect())
}
