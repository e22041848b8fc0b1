//! What happens to credits: added to a contact (idempotently by `reference`, with its balance,
//! movement and event in one transaction), and a contact's movements read a page at a time.

use serde_json::json;

use super::input::CreditDraft;
use super::model::{contact_not_found, reference_reused, StoreCredit};
use super::movement::Movement;
use super::record::credit_key;
use super::view::StoreCreditView;
use crate::contacts::Contact;
use crate::contention::retry_in_turn;
use crate::events;
use crate::http::Pagination;
use crate::refusal::{Made, Refusal};
use crate::store::stored;
use crate::store::{keys, records, KeyRange, Sort, Store, StoreResult};
use crate::values::{AccountId, ContactId, CreditMovementKind, StoreCreditId, Timestamp};

async fn find_by_reference(store: &Store, account: AccountId, reference: &str) -> StoreResult<Option<StoreCredit>> {
    stored::find(store, credit_key(account, reference)).await
}

/// Adds the credit, or finds the one its reference already added: `(credit, created)`. Accepted
/// whatever the on-account rule says of the contact (rule 5).
pub async fn add(store: &Store, account: AccountId, draft: &CreditDraft) -> Result<Made<StoreCredit>, Refusal> {
    records::find::<Contact>(store, account, draft.contact_id).await?.ok_or_else(contact_not_found)?;
    let id = once_id(store, account).await?;
    retry_in_turn(records::key_of::<Contact>(account, draft.contact_id), || async {
        if let Some(existing) = find_by_reference(store, account, &draft.reference).await? {
            if existing.contact_id == draft.contact_id && existing.amount == draft.amount {
                return Ok(Made::Existing(existing));
            }
            return Err(reference_reused(format!(
                "reference {} já foi usada com outro contato ou valor (contato {}, valor {})",
                existing.reference, existing.contact_id, existing.amount
            )));
        }
        let contact =
            records::find::<Contact>(store, account, draft.contact_id).await?.ok_or_else(contact_not_found)?;
        let mut next = Contact { version: contact.version + 1, ..contact.clone() };
        next.credit_balance = next.credit_balance + draft.amount;
        next.credit_movements += 1;
        let now = Timestamp::now();
        let credit = StoreCredit {
            id,
            reference: draft.reference.clone(),
            contact_id: contact.id,
            amount: draft.amount,
            description: draft.description.clone(),
            balance: next.credit_balance,
            created_at: now,
        };
        let movement = Movement {
            reference: Some(draft.reference.clone()),
            description: draft.description.clone(),
            ..Movement::next_of(&next, CreditMovementKind::Added, draft.amount)
        };
        let event = events::record(
            account,
            events::STORE_CREDIT_CREATED,
            json!({ "store_credit": StoreCreditView::of(&credit) }),
        )?;
        // The credit first after the contact: a reference taken meanwhile fails it, and the next
        // attempt finds the winner.
        let also = vec![stored::insert(&credit, account)?, movement.insert(account, contact.id)?, event];
        records::replace(store, account, &contact, &next, also).await?;
        Ok(Made::Created(credit))
    })
    .await
}

/// The credit's id, reserved once per request (a lost race does not burn another).
async fn once_id(store: &Store, account: AccountId) -> Result<StoreCreditId, Refusal> {
    Ok(StoreCreditId::new(store.next_id(keys::account(account), keys::sequence("STORECREDIT")).await?))
}

/// A page of the contact's movements, newest first, and how many it has.
pub async fn movements(
    store: &Store,
    account: AccountId,
    contact_id: ContactId,
    page: Pagination,
) -> Result<(Vec<Movement>, usize), Refusal> {
    let contact = records::find::<Contact>(store, account, contact_id).await?.ok_or_else(contact_not_found)?;
    let total = contact.credit_movements;
    let newest = total - i64::try_from(page.offset()).unwrap_or(i64::MAX);
    if newest < 1 {
        return Ok((Vec::new(), usize::try_from(total).unwrap_or_default()));
    }
    let oldest = (newest - i64::try_from(page.per_page).unwrap_or(i64::MAX) + 1).max(1);
    let range = KeyRange {
        index: false,
        partition: keys::pos::credit_movements(account, contact_id),
        sort: Sort::Between(keys::pos::credit_movement(oldest), keys::pos::credit_movement(newest)),
        ascending: false,
        eventual: true,
    };
    let found = store.page(&range, page.per_page, None).await?;
    let listed: Vec<Movement> = stored::read_all(found.items)?;
    Ok((listed, usize::try_from(total).unwrap_or_default()))
}
