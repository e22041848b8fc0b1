//! Creating a billing: the ids it is written with, reserved once per request, and the one
//! transaction that writes it with its registration task and the counts of the records it names.

use super::references::read_references;
use crate::billings::billets::lifecycle;
use crate::billings::input::Draft;
use crate::billings::links;
use crate::billings::model::Billing;
use crate::billings::view::Embedded;
use crate::contention::retry_on_conflict;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::{keys, Store, Write};
use crate::values::recurrence::Recurrence;
use crate::values::{AccountId, BillingId, BillingType, ContactId, Timestamp};

/// The ids a new billing is written with: its own and its items', taken once per request from
/// this process's blocks (refilled together, in parallel, when they run out), so that every
/// attempt of the request writes the same billing.
#[derive(Clone, Copy, Debug)]
pub struct NewIds {
    pub billing: BillingId,
    pub first_item: i64,
}

impl NewIds {
    pub async fn reserve(store: &Store, account: AccountId, draft: &Draft) -> Result<NewIds, Refusal> {
        let (billing, first_item) = tokio::try_join!(new_id(store, account), new_item_ids(store, account, draft))?;
        Ok(NewIds { billing, first_item })
    }
}

/// The first of the ids of a draft's items, from this process's block.
async fn new_item_ids(store: &Store, account: AccountId, draft: &Draft) -> Result<i64, Refusal> {
    let count = draft.items.len() as i64;
    Ok(store.ids_from_block(keys::account(account), keys::sequence("BILLINGITEM"), count).await?)
}

/// A new billing id, from this process's block of the account's sequence (`Store::ids_from_block`).
pub async fn new_id(store: &Store, account: AccountId) -> Result<BillingId, Refusal> {
    Ok(BillingId::new(store.ids_from_block(keys::account(account), keys::sequence("BILLING"), 1).await?))
}

/// Writes a new billing of `draft` with these ids, paid by `payer`, with its registration task and
/// `also` in its transaction; the records it uses count it (they cannot be deleted while it
/// exists), and a record deleted since it was read fails the write (`Conflict`, for the caller's
/// retry, which reads the references again). The bank rule and the category are not checked again
/// in the transaction: no route or command deletes either, and every create checking one item would
/// make concurrent creates of an account conflict on it (docs/decisions.md).
///
/// A write whose answer was lost (DynamoDB failed or timed out after applying it) and that the
/// caller therefore runs again finds its billing already there: the ids are this request's, so
/// that billing is this request's, and it is the answer.
pub async fn insert_new(
    store: &Store,
    account: AccountId,
    ids: NewIds,
    draft: &Draft,
    payer: Option<ContactId>,
    also: Vec<Write>,
) -> Result<Billing, Refusal> {
    let items = Billing::items_from(ids.first_item, &draft.items);
    let billing = Billing::new(ids.billing, draft, payer, items, Timestamp::now());
    let mut writes = vec![lifecycle::registration(account, &billing)?];
    writes.extend(also);
    insert_once(store, account, billing, writes).await
}

/// Writes `billing` with the reference counts it moves and `also`; a write whose answer was lost
/// finds it there ([`insert_new`]).
pub(super) async fn insert_once(
    store: &Store,
    account: AccountId,
    billing: Billing,
    also: Vec<Write>,
) -> Result<Billing, Refusal> {
    let mut writes = links::reference_writes(account, None, Some(&billing));
    writes.extend(also);
    match records::insert(store, account, &billing, writes).await {
        Ok(()) => Ok(billing),
        Err(error) if error.failed_at(0) => match records::find::<Billing>(store, account, billing.id).await? {
            Some(written) => Ok(written),
            None => Err(error.into()),
        },
        Err(error) => Err(error.into()),
    }
}

/// A schedule (DESIGN §12): the terms of `draft` (its due date: the first cycle's) with
/// `recurrence`, stored as a `billing_type: schedule` record with no billet of its own (each cycle's
/// billing has one). Returns it as [`create`] does.
pub async fn create_schedule(
    store: &Store,
    account: AccountId,
    draft: &Draft,
    recurrence: Recurrence,
) -> Result<(Billing, Embedded), Refusal> {
    let ids = NewIds::reserve(store, account, draft).await?;
    let (schedule, references) = retry_on_conflict(|| async {
        let references = read_references(store, account, draft).await?;
        let items = Billing::items_from(ids.first_item, &draft.items);
        let schedule = Billing {
            billing_type: BillingType::Schedule,
            billet_generation: 0,
            recurrence: Some(recurrence),
            ..Billing::new(ids.billing, draft, references.payer, items, Timestamp::now())
        };
        Ok((insert_once(store, account, schedule, Vec::new()).await?, references))
    })
    .await?;
    let embedded =
        Embedded { contact: references.contact, tag: references.tag, billets: Vec::new(), reminders: Vec::new() };
    Ok((schedule, embedded))
}

/// An individual billing: stored with its billet's registration asked for (§2.2: in the
/// background). Returns it with what its single representation embeds, from what was read and written
/// (at most three sequential round trips: the references' batch read, the id blocks when they
/// run out, the transaction).
pub async fn create(store: &Store, account: AccountId, draft: &Draft) -> Result<(Billing, Embedded), Refusal> {
    let ids = NewIds::reserve(store, account, draft).await?;
    let (billing, references) = retry_on_conflict(|| async {
        let references = read_references(store, account, draft).await?;
        let billing = insert_new(store, account, ids, draft, references.payer, Vec::new()).await?;
        Ok((billing, references))
    })
    .await?;
    let embedded =
        Embedded { contact: references.contact, tag: references.tag, billets: Vec::new(), reminders: Vec::new() };
    Ok((billing, embedded))
}
