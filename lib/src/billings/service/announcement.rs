//! The `billing.updated` event (§6): the billing's single representation as a transaction leaves
//! it, cut to fit the outbox's item.

use serde_json::Value;

use super::read::embedded;
use crate::billets::model::BankBillet;
use crate::billings::model::Billing;
use crate::billings::view::{BillingView, Embedded};
use crate::events;
use crate::refusal::Refusal;
use crate::store::{Store, Write};
use crate::values::{today, AccountId};

/// Largest event body the outbox keeps whole (an item holds 400 KB). A billing with many items
/// and many re-issued billets may exceed it: its event then lists only the current billet, and
/// without the items if still too large (`GET` the billing for the rest).
const EVENT_DATA_MAX_BYTES: usize = 256 * 1024;

/// The `billing.updated` event of `billing` as a transaction leaves it, `billet` written as given.
pub async fn announcement(
    store: &Store,
    account: AccountId,
    billing: &Billing,
    billet: Option<&BankBillet>,
) -> Result<Write, Refusal> {
    let mut embedded = embedded(store, account, billing).await?;
    embedded.billets = with_written(std::mem::take(&mut embedded.billets), billet);
    announcement_of(account, billing, &embedded)
}

/// The billets as a transaction leaves them: `written` in place of its stored self, or first.
pub(super) fn with_written(mut billets: Vec<BankBillet>, written: Option<&BankBillet>) -> Vec<BankBillet> {
    if let Some(written) = written {
        match billets.iter_mut().find(|b| b.id == written.id) {
            Some(stored) => *stored = written.clone(),
            None => billets.insert(0, written.clone()),
        }
    }
    billets
}

/// The `billing.updated` event of `billing` with what its representation embeds.
pub(super) fn announcement_of(account: AccountId, billing: &Billing, embedded: &Embedded) -> Result<Write, Refusal> {
    // The event's data is the single representation (§6), cut to fit an item.
    let view = BillingView::new(billing, &embedded.related(), today());
    let mut shown = serde_json::to_value(view).map_err(anyhow::Error::new)?;
    for cut in ["bank_billets", "billing_items"] {
        if shown.to_string().len() <= EVENT_DATA_MAX_BYTES {
            break;
        }
        if let Some(list) = shown.get_mut(cut).and_then(Value::as_array_mut) {
            list.truncate(usize::from(cut == "bank_billets"));
        }
    }
    Ok(events::record(account, events::BILLING_UPDATED, serde_json::json!({ "billing": shown }))?)
}
