//! Records an account owns (tags, groups, and later contacts and billings), stored the same way:
//! `pk = A#<account>`, `sk = <KIND>#<id>`, an entry in the listing index, an optimistic-lock
//! `version`, and optionally a guard item that makes one value unique in the account. Creating,
//! replacing and deleting keep record and guard in one transaction.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::item::{n, s};
use super::{keys, Condition, Item, ItemExt, Store, StoreError, Write};
use crate::accounts::AccountId;
use crate::http::{ApiError, ApiResult, Pagination};
use crate::store::retry_on_conflict;
use crate::time::Timestamp;

pub trait Record: Sized {
    /// Key prefix and listing partition suffix: `TAG`, `GROUP`.
    const KIND: &'static str;
    /// Kind of the uniqueness guard, when one value must be unique in the account.
    const UNIQUE: Option<&'static str> = None;

    fn id(&self) -> i64;
    fn version(&self) -> i64;
    /// Attributes other than keys, `kind`, `version` and `list_fields`.
    fn attributes(&self) -> Item;
    fn from_item(item: &Item) -> anyhow::Result<Self>;
    /// What lists filter and sort on, projected into the listing index.
    fn list_fields(&self) -> HashMap<String, AttributeValue>;
    /// Sort key in the listing index; a prefix of it can narrow a list (groups by type).
    fn index_sk(&self) -> String {
        keys::record(Self::KIND, self.id())
    }
    /// The normalized value the guard protects (already case-folded).
    fn unique_value(&self) -> Option<String> {
        None
    }
}

/// A record the API creates, edits and deletes from parsed changes.
pub trait Editable: Record + Clone {
    type Changes: Clone;
    /// The 422 message when the unique value is taken.
    const DUPLICATE: &'static str;
    /// The 422 message when billings still depend on the record.
    const IN_USE: &'static str;

    fn create(id: i64, changes: Self::Changes, now: Timestamp) -> Self;
    /// The record with the changes applied and its version bumped, or `None` when nothing changes.
    fn changed(&self, changes: &Self::Changes, now: Timestamp) -> Option<Self>;
    /// Whether billings still depend on it (deleting is refused).
    fn in_use(&self) -> bool;
}

/// Creates a record with a new id; a lost race is retried, a taken unique value is a 422.
pub async fn create<R: Editable>(store: &Store, account: AccountId, changes: R::Changes) -> ApiResult<R> {
    retry_on_conflict(|| async {
        let record = R::create(next_id::<R>(store, account).await?, changes.clone(), Timestamp::now());
        insert(store, account, &record, R::DUPLICATE).await?;
        Ok(record)
    })
    .await
}

/// Applies changes to the account's record `id` (404 when it has none); an update that changes
/// nothing writes nothing.
pub async fn update<R: Editable>(store: &Store, account: AccountId, id: i64, changes: R::Changes) -> ApiResult<R> {
    retry_on_conflict(|| async {
        let current: R = find_or_404(store, account, id).await?;
        let Some(next) = current.changed(&changes, Timestamp::now()) else {
            return Ok(current);
        };
        replace(store, account, &current, &next, R::DUPLICATE).await?;
        Ok(next)
    })
    .await
}

/// Deletes the account's record `id` with its guard, unless billings depend on it.
pub async fn delete<R: Editable>(store: &Store, account: AccountId, id: i64, also: Vec<Write>) -> ApiResult<()> {
    retry_on_conflict(|| async {
        let current: R = find_or_404(store, account, id).await?;
        if current.in_use() {
            return Err(ApiError::validation(R::IN_USE));
        }
        remove(store, account, &current, also.clone()).await
    })
    .await
}

/// What a list shows: one page of records and the total after filters.
pub struct Listed<R> {
    pub records: Vec<R>,
    pub total: usize,
}

fn item_of<R: Record>(account: AccountId, record: &R) -> Item {
    let mut item = record.attributes();
    item.insert("pk".into(), s(keys::account(account)));
    item.insert("sk".into(), s(keys::record(R::KIND, record.id())));
    item.insert("gsi1pk".into(), s(keys::listing(account, R::KIND)));
    item.insert("gsi1sk".into(), s(record.index_sk()));
    item.insert("kind".into(), s(R::KIND.to_lowercase()));
    item.insert("version".into(), n(record.version()));
    item.insert("list_fields".into(), AttributeValue::M(record.list_fields()));
    item
}

fn guard_item<R: Record>(account: AccountId, unique_kind: &str, value: &str, record: &R) -> Item {
    HashMap::from([
        ("pk".into(), s(keys::account(account))),
        ("sk".into(), s(keys::unique(unique_kind, value))),
        ("kind".into(), s("unique")),
        ("owner".into(), s(keys::record(R::KIND, record.id()))),
    ])
}

pub async fn next_id<R: Record>(store: &Store, account: AccountId) -> ApiResult<i64> {
    Ok(store.next_id(keys::account(account), keys::sequence(R::KIND)).await?)
}

pub async fn find<R: Record>(store: &Store, account: AccountId, id: i64) -> ApiResult<Option<R>> {
    let item = store.get(keys::account(account), keys::record(R::KIND, id)).await?;
    Ok(item.map(|i| R::from_item(&i)).transpose()?)
}

pub async fn find_or_404<R: Record>(store: &Store, account: AccountId, id: i64) -> ApiResult<R> {
    find(store, account, id).await?.ok_or(ApiError::NotFound)
}

/// Stores a new record with its guard. A taken unique value fails with `duplicate`.
pub async fn insert<R: Record>(store: &Store, account: AccountId, record: &R, duplicate: &str) -> ApiResult<()> {
    let mut writes = vec![Write::put_if(item_of(account, record), Condition::absent())];
    if let (Some(kind), Some(value)) = (R::UNIQUE, record.unique_value()) {
        writes.push(Write::put_if(guard_item(account, kind, &value, record), Condition::absent()));
    }
    match store.write(writes).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_at(1) => Err(ApiError::validation(duplicate)),
        Err(e) => Err(e.into()),
    }
}

/// Replaces `current` by `next` (whose version must be one more), moving the guard when the
/// unique value changed. A concurrent change of the record is a conflict the caller retries.
pub async fn replace<R: Record>(store: &Store, account: AccountId, current: &R, next: &R, duplicate: &str) -> ApiResult<()> {
    let mut writes = vec![Write::put_if(item_of(account, next), Condition::version(current.version()))];
    if let Some(kind) = R::UNIQUE {
        let (old, new) = (current.unique_value(), next.unique_value());
        if old != new {
            if let Some(old) = old {
                writes.push(Write::delete(keys::account(account), keys::unique(kind, &old)));
            }
            if let Some(new) = new {
                writes.push(Write::put_if(guard_item(account, kind, &new, next), Condition::absent()));
            }
        }
    }
    let guard_index = writes.len() - 1;
    match store.write(writes).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_at(0) => Err(ApiError::Conflict),
        Err(e) if guard_index > 0 && e.failed_at(guard_index) => Err(ApiError::validation(duplicate)),
        Err(e) => Err(e.into()),
    }
}

/// Deletes `current` and its guard, plus `also` (links, counters) in the same transaction, provided
/// nothing changed it since it was read.
pub async fn remove<R: Record>(store: &Store, account: AccountId, current: &R, also: Vec<Write>) -> ApiResult<()> {
    let mut writes = vec![Write::delete_if(
        keys::account(account),
        keys::record(R::KIND, current.id()),
        Condition::version(current.version()),
    )];
    if let (Some(kind), Some(value)) = (R::UNIQUE, current.unique_value()) {
        writes.push(Write::delete(keys::account(account), keys::unique(kind, &value)));
    }
    writes.extend(also);
    match store.write(writes).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_at(0) => Err(ApiError::Conflict),
        Err(StoreError::ConditionFailed(_)) => Err(ApiError::Conflict),
        Err(e) => Err(e.into()),
    }
}

/// One page of the account's records of a kind: the listing index is read whole (its entries are
/// small), filtered with `keep`, ordered by `order`, and only the page's items are fetched.
pub async fn list<R, K, F, O>(
    store: &Store,
    account: AccountId,
    prefix: Option<&str>,
    keep: F,
    order: O,
    pagination: Pagination,
) -> ApiResult<Listed<R>>
where
    R: Record,
    K: Ord,
    F: Fn(&super::IndexEntry) -> bool,
    O: Fn(&super::IndexEntry) -> K,
{
    let mut entries: Vec<_> = store
        .index_entries(keys::listing(account, R::KIND), prefix)
        .await?
        .into_iter()
        .filter(|e| keep(e))
        .collect();
    entries.sort_by_cached_key(|e| (order(e), keys::id_of(&e.sk)));
    let total = entries.len();
    let page: Vec<_> = pagination.slice(&entries).iter().map(|e| (e.pk.clone(), e.sk.clone())).collect();
    let records = store
        .batch_get(&page)
        .await?
        .iter()
        .map(R::from_item)
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Listed { records, total })
}

/// Reads `version` and the common timestamps; used by `Record::from_item` implementations.
pub fn version_of(item: &Item) -> anyhow::Result<i64> {
    item.int("version")
}
