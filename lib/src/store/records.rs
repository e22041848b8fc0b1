//! Records an account owns (tags, groups, contacts, billings, bank rules, …), stored the same way:
//! `pk = A#<account>`, `sk = <KIND>#<id>`, the record's fields as attributes (serde), an entry in
//! the listing index with the fields lists filter on (`list_fields`), an optimistic-lock `version`,
//! and optionally a guard item that makes one value unique in the account. Creating, replacing and
//! deleting keep record, guard and whatever else the caller adds in one transaction.
//!
//! Every stored kind implements [`Stored`] (`store::stored`), the one trait that owns an item's
//! keys; a [`Record`] is a `Stored` kind by a blanket implementation (its scope is the account, its
//! keys [`Record::keys`], its index entry the listing's), with what an account's listed, versioned
//! records add: list fields, postings, a uniqueness guard; and what it counts (`store::counting`).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::counting::Counting;
use super::item::{from_attribute, from_item, to_item};
use super::postings::Posting;
use super::stored::{self, Key, Stored};
pub use super::window::Window;
use super::{keys, Condition, Item, Store, StoreError, StoreResult, Write};
use crate::values::{AccountId, RecordId};

pub trait Record: Counting + Serialize + DeserializeOwned + Send + Sync + Sized {
    /// Key prefix and listing partition suffix: `TAG`, `GROUP`.
    const KIND: &'static str;
    /// The item's `kind` attribute: [`Record::KIND`] in lower case (`tag`, `bankrule`).
    const ITEM_KIND: &'static str;
    /// Kind of the uniqueness guard, when one value must be unique in the account.
    const UNIQUE: Option<&'static str> = None;
    type Id: RecordId;
    /// What lists filter and sort on, projected into the listing index as `list_fields`.
    type ListFields: Serialize + DeserializeOwned;

    fn id(&self) -> Self::Id;
    /// The keys of the account's record `id`: the account's partition and `<KIND>#<id>` unless the
    /// kind has a partition per record (billings).
    fn keys(account: AccountId, id: Self::Id) -> (String, String) {
        (keys::account(account), keys::record(Self::KIND, id))
    }
    /// The optimistic-lock version this record was read at (stored as `version`).
    fn version(&self) -> i64;
    fn list_fields(&self) -> Self::ListFields;
    /// Sort key in the listing index; a prefix of it can narrow a list (groups by type).
    fn index_sk(&self) -> String {
        keys::record(Self::KIND, self.id())
    }
    /// The normalized value the guard protects (already case-folded).
    fn unique_value(&self) -> Option<String> {
        None
    }
    /// Whether the record has an entry in the listing index (`gsi1`); a kind whose lists read
    /// key partitions instead (billings) writes none, saving the index's write on every change.
    const LISTED: bool = true;
    /// The key-only postings its lists read (`store::postings`), kept by [`insert`], [`replace`]
    /// and [`remove`] in the record's own transaction.
    fn postings(&self, _account: AccountId) -> Vec<Posting> {
        Vec::new()
    }
    /// Whether new ids come from this process's block of the sequence ([`Store::ids_from_block`]:
    /// no write on most creates, ids unique but in creation order only within a process) rather
    /// than one `ADD` on the sequence per record.
    const IDS_FROM_BLOCKS: bool = false;
    /// Brings an item written by an earlier version of the service to today's attributes before it
    /// is read (default: nothing to do).
    fn upgrade(_item: &mut Item) {}
}

/// One page of a list and the total after filters.
pub struct Listed<R> {
    pub records: Vec<R>,
    pub total: usize,
    /// A search stopped at its bound (`postings::SEARCH_SCAN` postings read, or another documented
    /// cap): matches beyond it are neither counted nor listed. Answered as `X-Search-Partial: true`.
    pub partial: bool,
}

impl<R> Listed<R> {
    /// A page and its total, from a read that saw everything it filtered.
    pub fn new(records: Vec<R>, total: usize) -> Listed<R> {
        Listed { records, total, partial: false }
    }

    /// Nothing matched.
    pub fn empty() -> Listed<R> {
        Listed::new(Vec::new(), 0)
    }

    /// The same page, marked partial when `partial`.
    pub fn partial_if(self, partial: bool) -> Listed<R> {
        Listed { partial: self.partial || partial, ..self }
    }
}

/// The keys of the account's record `id` of kind `R`.
pub fn key_of<R: Record>(account: AccountId, id: R::Id) -> (String, String) {
    R::keys(account, id)
}

/// An account's record is stored as every kind is: under its keys, with its `kind` and, when it
/// is listed, its listing entry.
impl<R: Record> Stored for R {
    const KIND: Option<&'static str> = Some(R::ITEM_KIND);
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        R::keys(account, self.id())
    }

    fn index(&self, account: AccountId) -> Option<Key> {
        R::LISTED.then(|| (keys::listing(account, <R as Record>::KIND), self.index_sk()))
    }
}

/// The item of a record: its fields, keys, listing entry and kind ([`Stored`]), and the fields
/// its lists read.
pub fn item_of<R: Record>(account: AccountId, record: &R) -> StoreResult<Item> {
    debug_assert_eq!(R::ITEM_KIND, <R as Record>::KIND.to_lowercase());
    let mut item = stored::item_of(record, account)?;
    if R::LISTED {
        item.insert("list_fields".into(), AttributeValue::M(to_item(&record.list_fields())?));
    }
    Ok(item)
}

/// The record an item holds.
pub fn read<R: Record>(mut item: Item) -> StoreResult<R> {
    R::upgrade(&mut item);
    from_item(item)
}

/// A uniqueness guard: which record holds the value.
#[derive(Serialize, serde::Deserialize)]
struct Guard {
    owner: String,
}

impl Stored for Guard {
    const KIND: Option<&'static str> = Some("unique");
    /// The account, the guard's kind and the value it protects.
    type Scope<'a> = (AccountId, &'a str, &'a str);

    fn key(&self, (account, unique_kind, value): Self::Scope<'_>) -> Key {
        (keys::account(account), keys::unique(unique_kind, value))
    }
}

fn guard_item<R: Record>(account: AccountId, unique_kind: &str, value: &str, record: &R) -> StoreResult<Item> {
    stored::item_of(&Guard { owner: keys::record(R::KIND, record.id()) }, (account, unique_kind, value))
}

/// A fresh id from the account's sequence of `R` (from this process's block of it when
/// [`Record::IDS_FROM_BLOCKS`]).
pub async fn next_id<R: Record>(store: &Store, account: AccountId) -> StoreResult<R::Id> {
    let (pk, sk) = (keys::account(account), keys::sequence(R::KIND));
    Ok(R::Id::new(match R::IDS_FROM_BLOCKS {
        true => store.ids_from_block(pk, sk, 1).await?,
        false => store.next_id(pk, sk).await?,
    }))
}

pub async fn find<R: Record>(store: &Store, account: AccountId, id: R::Id) -> StoreResult<Option<R>> {
    let (pk, sk) = key_of::<R>(account, id);
    store.get(pk, sk).await?.map(read).transpose()
}

/// The record a reference names, when it names one (`None` for no id, or an id of no record).
pub async fn find_referenced<R: Record>(
    store: &Store,
    account: AccountId,
    id: Option<R::Id>,
) -> StoreResult<Option<R>> {
    match id {
        Some(id) => find(store, account, id).await,
        None => Ok(None),
    }
}

/// The account's records with these ids (one batch read per hundred), in the order asked; ids of
/// no record are left out.
pub async fn find_many<R: Record>(store: &Store, account: AccountId, ids: &[R::Id]) -> StoreResult<Vec<R>> {
    let keys: Vec<_> = ids.iter().map(|id| key_of::<R>(account, *id)).collect();
    store.batch_get(&keys).await?.into_iter().map(read).collect()
}

/// The postings and counter shards that follow a record from `before` to `after` (create: no
/// `before`; delete: no `after`): the postings that changed, and what moved in its counters
/// (`counting::moved`).
fn kept<R: Record>(account: AccountId, before: Option<&R>, after: Option<&R>) -> Vec<Write> {
    let postings = |record: Option<&R>| record.map(|r| r.postings(account)).unwrap_or_default();
    let mut writes = super::postings::moved(postings(before), postings(after));
    if let Some(holder) = after.or(before).map(|r| r.id().into()) {
        writes.extend(super::counting::moved(account, holder, before, after));
    }
    writes
}

/// A write that failed because the guard's value is taken becomes [`StoreError::Duplicate`].
fn duplicate_at(error: StoreError, guard_index: Option<usize>) -> StoreError {
    match guard_index {
        Some(g) if error.failed_at(g) => StoreError::Duplicate,
        _ => error,
    }
}

/// Stores a new record with its guard and `also` (links, reference checks, counters) in one
/// transaction. A taken unique value is [`StoreError::Duplicate`]; any other failed condition is
/// [`StoreError::ConditionFailed`].
pub async fn insert<R: Record>(store: &Store, account: AccountId, record: &R, also: Vec<Write>) -> StoreResult<()> {
    let (mut writes, guard_index) = inserted(account, record)?;
    writes.extend(also);
    store.write(writes).await.map_err(|e| duplicate_at(e, guard_index))
}

/// What [`insert`] writes for a new record, for a transaction that writes it beside another
/// record's change (a schedule's cycle): the record only if absent, its postings and counts, its
/// guard (whose place is given: a taken value fails there).
pub fn inserted<R: Record>(account: AccountId, record: &R) -> StoreResult<(Vec<Write>, Option<usize>)> {
    let mut writes = vec![Write::put_if(item_of(account, record)?, Condition::absent())];
    writes.extend(kept(account, None, Some(record)));
    let mut guard_index = None;
    if let (Some(kind), Some(value)) = (R::UNIQUE, record.unique_value()) {
        guard_index = Some(writes.len());
        writes.push(Write::put_if(guard_item(account, kind, &value, record)?, Condition::absent()));
    }
    Ok((writes, guard_index))
}

/// Replaces `current` by `next` (whose version must be one more), moving the guard when the
/// unique value changed, with `also` in the same transaction. A changed `current` is
/// [`StoreError::ConditionFailed`]; a taken unique value, [`StoreError::Duplicate`].
pub async fn replace<R: Record>(
    store: &Store,
    account: AccountId,
    current: &R,
    next: &R,
    also: Vec<Write>,
) -> StoreResult<()> {
    let mut writes = vec![Write::put_if(item_of(account, next)?, Condition::version(current.version()))];
    writes.extend(kept(account, Some(current), Some(next)));
    let mut guard_index = None;
    if let Some(kind) = R::UNIQUE {
        let (old, new) = (current.unique_value(), next.unique_value());
        if old != new {
            if let Some(old) = old {
                writes.push(Write::delete(keys::account(account), keys::unique(kind, &old)));
            }
            if let Some(new) = new {
                guard_index = Some(writes.len());
                writes.push(Write::put_if(guard_item(account, kind, &new, next)?, Condition::absent()));
            }
        }
    }
    writes.extend(also);
    store.write(writes).await.map_err(|e| duplicate_at(e, guard_index))
}

/// Deletes `current` and its guard, plus `also`, provided nothing changed it since it was read.
pub async fn remove<R: Record>(store: &Store, account: AccountId, current: &R, also: Vec<Write>) -> StoreResult<()> {
    let (pk, sk) = key_of::<R>(account, current.id());
    let mut writes = vec![Write::delete_if(pk, sk, Condition::version(current.version()))];
    writes.extend(kept(account, Some(current), None));
    if let (Some(kind), Some(value)) = (R::UNIQUE, current.unique_value()) {
        writes.push(Write::delete(keys::account(account), keys::unique(kind, &value)));
    }
    writes.extend(also);
    store.write(writes).await
}

/// An entry of the listing index, its fields typed.
pub struct Entry<F> {
    pub pk: String,
    pub sk: String,
    pub fields: F,
}

impl<F> Entry<F> {
    pub fn id<I: RecordId>(&self) -> Option<I> {
        keys::id_of(&self.sk).map(I::new)
    }
}

/// The fields of an index entry as `F` (missing map: every field at its default).
fn fields_of<F: DeserializeOwned>(fields: HashMap<String, AttributeValue>) -> StoreResult<F> {
    from_attribute(AttributeValue::M(fields))
}

/// Every entry of the account's listing partition of `R` (only those whose index sort key starts
/// with `prefix`, when given), with their fields typed.
pub async fn entries<R: Record>(
    store: &Store,
    account: AccountId,
    prefix: Option<&str>,
) -> StoreResult<Vec<Entry<R::ListFields>>> {
    let raw = store.index_entries(keys::listing(account, R::KIND), prefix).await?;
    raw.into_iter().map(|e| Ok(Entry { pk: e.pk, sk: e.sk, fields: fields_of::<R::ListFields>(e.fields)? })).collect()
}

/// One page of the account's records of a kind: the listing index is read whole (its entries are
/// small), filtered with `keep`, ordered by `order` (ties by id), and only the page's items are
/// fetched.
pub async fn list<R, K, F, O>(
    store: &Store,
    account: AccountId,
    prefix: Option<&str>,
    keep: F,
    order: O,
    window: Window,
) -> StoreResult<Listed<R>>
where
    R: Record,
    K: Ord,
    F: Fn(&Entry<R::ListFields>) -> bool,
    O: Fn(&Entry<R::ListFields>) -> K,
{
    let mut entries: Vec<_> = entries::<R>(store, account, prefix).await?.into_iter().filter(|e| keep(e)).collect();
    entries.sort_by_cached_key(|e| (order(e), keys::id_of(&e.sk)));
    let total = entries.len();
    let page: Vec<_> = window.slice(&entries).iter().map(|e| (e.pk.clone(), e.sk.clone())).collect();
    let records = store.batch_get(&page).await?.into_iter().map(read).collect::<StoreResult<Vec<R>>>()?;
    Ok(Listed::new(records, total))
}

/// The records of a list in order and their total, found by `positions` (id → position, from
/// its postings): the `window`'s page of them, read in one batch.
pub async fn page_of<R: Record>(
    store: &Store,
    account: crate::values::AccountId,
    positions: Vec<(i64, String)>,
    total: usize,
    window: Window,
) -> StoreResult<Listed<R>> {
    let mut positions = positions;
    positions.sort_by(|a, b| a.1.cmp(&b.1));
    let page: Vec<i64> = positions.iter().skip(window.skip).take(window.take).map(|(id, _)| *id).collect();
    let ids: Vec<R::Id> = page.iter().map(|id| <R::Id as crate::values::RecordId>::new(*id)).collect();
    let mut records = find_many::<R>(store, account, &ids).await?;
    records.sort_by_key(|r| page.iter().position(|id| *id == r.id().into()));
    Ok(Listed::new(records, total))
}
