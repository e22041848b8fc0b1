//! `PATCH /v1/billings/{id}`: the update rules of `billings::update` run against the stored
//! billing through [`change_shown`], reading the references and reserving new item ids once
//! however often a lost race runs it again.

use super::change::{change_shown, Ruled};
use super::references::{check_references, contact_blank};
use crate::billings::billets::lifecycle;
use crate::billings::input::Draft;
use crate::billings::model::Billing;
use crate::billings::update::{self, Editability};
use crate::billings::view::Embedded;
use crate::http::Fields;
use crate::refusal::Refusal;
use crate::store::{keys, Store, Write};
use crate::values::{AccountId, BillingId, ContactId, IssueType, Timestamp};

/// What an update reads or reserves once, however often it runs again after losing a race to a
/// concurrent writer, so that each new attempt costs only the billing's own read and write: the
/// payer its references give (read for a 422 naming each; the transaction checks them again) and
/// the ids of its new items.
#[derive(Default)]
struct Once {
    references: tokio::sync::Mutex<Option<(ReferenceIds, Option<ContactId>)>>,
    first_new_item: tokio::sync::OnceCell<i64>,
}

/// The ids a draft refers to.
type ReferenceIds = (
    crate::values::BankRuleId,
    Option<ContactId>,
    Option<ContactId>,
    Option<crate::values::TagId>,
    Option<crate::values::BillCategoryId>,
    Vec<crate::values::TagId>,
);

impl Once {
    /// The payer of `draft`, its references read unless an earlier attempt read the same ones.
    async fn payer(&self, store: &Store, account: AccountId, draft: &Draft) -> Result<Option<ContactId>, Refusal> {
        let ids = (
            draft.bank_rule_id,
            draft.contact_id,
            draft.patient_id,
            draft.tag_id,
            draft.bill_category_id,
            draft.excluded_tag_ids.clone(),
        );
        let mut checked = self.references.lock().await;
        if let Some((seen, payer)) = checked.as_ref() {
            if *seen == ids {
                return Ok(*payer);
            }
        }
        let payer = check_references(store, account, draft).await?;
        *checked = Some((ids, payer));
        Ok(payer)
    }

    /// The first of `count` new item ids, reserved on the first attempt that needs them.
    async fn first_new_item(&self, store: &Store, account: AccountId, count: i64) -> Result<i64, Refusal> {
        let reserve = || store.ids_from_block(keys::account(account), keys::sequence("BILLINGITEM"), count);
        Ok(*self.first_new_item.get_or_try_init(reserve).await?)
    }
}

/// The billing with an editable update applied; new items get ids from the sequence.
async fn edited(
    store: &Store,
    account: AccountId,
    health_module: bool,
    current: &Billing,
    sent: Fields<'_>,
    once: &Once,
) -> Result<(Billing, Vec<Write>), Refusal> {
    let mut errors = Vec::new();
    let cancel_penalty = update::cancel_penalty(sent, current.cancel_penalty, &mut errors);
    let draft = update::merged_draft(current, sent, health_module).map_err(|mut more| {
        errors.append(&mut more);
        Refusal::Invalid(errors.clone())
    })?;
    if !errors.is_empty() {
        return Err(Refusal::Invalid(errors));
    }
    if draft.issue_type == IssueType::Individual && draft.contact_id.is_none() && !health_module {
        return Err(Refusal::invalid(contact_blank()));
    }
    let payer = once.payer(store, account, &draft).await?;
    // The same count on every attempt: the sent elements without an id.
    let new_items = draft.items.iter().filter(|item| item.id.is_none()).count() as i64;
    let first_new = if new_items > 0 { once.first_new_item(store, account, new_items).await? } else { 0 };
    let next =
        Billing { cancel_penalty, ..current.with_draft(&draft, payer, Billing::items_from(first_new, &draft.items)) };
    // A schedule's due date is its next cycle's: its calendar moves it (`PATCH /v1/schedules`).
    let due_date = if current.recurrence.is_some() { current.due_date } else { next.due_date };
    Ok((Billing { due_date, ..next }, Vec::new()))
}

/// `PATCH /v1/billings/{id}` (§4.2 Update, §2.1 Editability): the fields the billing's editability
/// admits; a change of what its billet prints re-issues it (its registration asked for in the same
/// transaction).
pub async fn update(
    store: &Store,
    account: AccountId,
    health_module: bool,
    id: BillingId,
    sent: Fields<'_>,
) -> Result<(Billing, Embedded), Refusal> {
    let once = Once::default();
    let (billing, (), embedded) = change_shown(store, account, id, |current, billet| {
        let once = &once;
        async move {
            let (next, also) = match update::editability(&current, lifecycle::billet_editable(billet.as_ref())) {
                Editability::Frozen => return Ok(Ruled::Unchanged(())),
                Editability::DueDateOnly => (update::date_only(&current, sent).map_err(Refusal::Invalid)?, Vec::new()),
                Editability::Full => edited(store, account, health_module, &current, sent, once).await?,
            };
            let reissue = lifecycle::reissue_needed(&current, &next, billet.as_ref());
            if next == current && !reissue {
                return Ok(Ruled::Unchanged(()));
            }
            let mut next = Billing { updated_at: Timestamp::now(), ..next };
            let mut also = also;
            let billet = if reissue {
                let closed = lifecycle::reissue(&mut next, billet.as_ref());
                also.push(lifecycle::registration(account, &next)?);
                closed
            } else {
                None
            };
            Ok(Ruled::Changed { next, billet, also, announce: true, then: () })
        }
    })
    .await?;
    Ok((billing, embedded))
}
