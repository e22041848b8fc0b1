//! Records an account owns (tags, groups, and later contacts and billings), stored the same way:
//! `pk = A#<account>`, `sk = <KIND>#<id>`, an entry in the listing index, an optimistic-lock
//! `version`, and optionally a guard item that makes one value unique in the account. Creating,
//! replacing and deleting keep record and guard in one transaction.

use std::collections::HashMap;
use std::future::Future;

use aws_sdk_dynamodb::types::AttributeValue;

use super::item::{n, s};
use super::{keys, Condition, Item, ItemExt, Store, StoreError, Write};
use crate::accounts::AccountId;
use crate::http::{ApiError, ApiResult, Pagination};
use crate::store::{retry_in_turn, retry_on_conflict};
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

/// What a list shows: one page of records and the total after filters.
pub struct Listed<R> {
    pub records: Vec<R>,
    pub total: usize,
}

pub fn item_of<R: Record>(account: AccountId, record: &R) -> Item {
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

/// The key of the account's record `id` of kind `R`.
pub fn key_of<R: Record>(account: AccountId, id: i64) -> (String, String) {
    (keys::account(account), keys::record(R::KIND, id))
}

pub async fn next_id<R: Record>(store: &Store, account: AccountId) -> ApiResult<i64> {
    Ok(store.next_id(keys::account(account), keys::sequence(R::KIND)).await?)
}

pub async fn find<R: Record>(store: &Store, account: AccountId, id: i64) -> ApiResult<Option<R>> {
    let item = store.get(keys::account(account), keys::record(R::KIND, id)).await?;
    Ok(item.map(|i| R::from_item(&i)).transpose()?)
}

/// The record a reference names, when it names one (`None` for no id, or an id of no record).
pub async fn find_referenced<R: Record>(store: &Store, account: AccountId, id: Option<i64>) -> ApiResult<Option<R>> {
    match id {
        Some(id) => find(store, account, id).await,
        None => Ok(None),
    }
}

pub async fn find_or_404<R: Record>(store: &Store, account: AccountId, id: i64) -> ApiResult<R> {
    find(store, account, id).await?.ok_or(ApiError::NotFound)
}

/// Outcome of a write whose first item is the record and second (when unique) its guard:
/// a taken unique value is `duplicate`; any other failed condition (the record's version, a
/// related item that changed) is a race that `retry_on_conflict` runs again.
fn refusal(error: StoreError, guard_index: Option<usize>, duplicate: &str) -> ApiError {
    match error {
        e if guard_index.is_some_and(|g| e.failed_at(g)) => ApiError::validation(duplicate),
        StoreError::ConditionFailed(_) => ApiError::Conflict,
        e => e.into(),
    }
}

/// Stores a new record with its guard and `also` (links, reference checks, counters) in one
/// transaction.
pub async fn insert<R: Record>(
    store: &Store,
    account: AccountId,
    record: &R,
    duplicate: &str,
    also: Vec<Write>,
) -> ApiResult<()> {
    let mut writes = vec![Write::put_if(item_of(account, record), Condition::absent())];
    let mut guard_index = None;
    if let (Some(kind), Some(value)) = (R::UNIQUE, record.unique_value()) {
        guard_index = Some(writes.len());
        writes.push(Write::put_if(guard_item(account, kind, &value, record), Condition::absent()));
    }
    writes.extend(also);
    store.write(writes).await.map_err(|e| refusal(e, guard_index, duplicate))
}

/// Replaces `current` by `next` (whose version must be one more), moving the guard when the
/// unique value changed, with `also` in the same transaction.
pub async fn replace<R: Record>(
    store: &Store,
    account: AccountId,
    current: &R,
    next: &R,
    duplicate: &str,
    also: Vec<Write>,
) -> ApiResult<()> {
    let mut writes = vec![Write::put_if(item_of(account, next), Condition::version(current.version()))];
    let mut guard_index = None;
    if let Some(kind) = R::UNIQUE {
        let (old, new) = (current.unique_value(), next.unique_value());
        if old != new {
            if let Some(old) = old {
                writes.push(Write::delete(keys::account(account), keys::unique(kind, &old)));
            }
            if let Some(new) = new {
                guard_index = Some(writes.len());
                writes.push(Write::put_if(guard_item(account, kind, &new, next), Condition::absent()));
            }
        }
    }
    writes.extend(also);
    store.write(writes).await.map_err(|e| refusal(e, guard_index, duplicate))
}

/// Deletes `current` and its guard, plus `also`, provided nothing changed it since it was read.
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
    store.write(writes).await.map_err(|e| refusal(e, None, ""))
}

/// A record the API creates, edits and deletes from parsed changes.
pub trait Editable: Record + Clone + Send + Sync {
    type Changes: Clone + Send + Sync;
    /// The 422 message when its unique value is taken.
    fn duplicate(&self) -> String;
    /// The 422 message when billings still depend on the record.
    const IN_USE: &'static str;

    /// A new record from the changes, or the 422 they deserve.
    fn create(id: i64, changes: &Self::Changes, now: Timestamp) -> ApiResult<Self>;
    /// The record with the changes applied and its version bumped, `None` when nothing changes, or
    /// the 422 they deserve.
    fn changed(&self, changes: &Self::Changes, now: Timestamp) -> ApiResult<Option<Self>>;
    /// Whether billings still depend on it (deleting is refused).
    fn in_use(&self) -> bool;

    /// Writes that belong in the transaction storing `self` over `before` (reference checks,
    /// links, counters). May read the store to refuse unknown references with a 422.
    fn related_writes(
        &self,
        _before: Option<&Self>,
        _store: &Store,
        _account: AccountId,
    ) -> impl Future<Output = ApiResult<Vec<Write>>> + Send {
        async { Ok(Vec::new()) }
    }

    /// Writes that belong in the transaction deleting it.
    fn delete_writes(&self, _account: AccountId) -> Vec<Write> {
        Vec::new()
    }

    /// Work after the delete committed, on records that pointed to it (idempotent: a retry after
    /// a failure finds less to do).
    fn after_delete(&self, _store: &Store, _account: AccountId) -> impl Future<Output = ApiResult<()>> + Send {
        async { Ok(()) }
    }
}

/// Creates a record with a new id; a lost race is retried, a taken unique value is a 422.
pub async fn create<R: Editable>(store: &Store, account: AccountId, changes: &R::Changes) -> ApiResult<R> {
    retry_on_conflict(|| async {
        let record = R::create(next_id::<R>(store, account).await?, changes, Timestamp::now())?;
        let also = record.related_writes(None, store, account).await?;
        insert(store, account, &record, &record.duplicate(), also).await?;
        Ok(record)
    })
    .await
}

/// Applies changes to the account's record `id` (404 when it has none); an update that changes
/// nothing writes nothing.
pub async fn update<R: Editable>(store: &Store, account: AccountId, id: i64, changes: &R::Changes) -> ApiResult<R> {
    retry_in_turn(key_of::<R>(account, id), || async {
        let current: R = find_or_404(store, account, id).await?;
        let Some(next) = current.changed(changes, Timestamp::now())? else {
            return Ok(current);
        };
        let also = next.related_writes(Some(&current), store, account).await?;
        replace(store, account, &current, &next, &next.duplicate(), also).await?;
        Ok(next)
    })
    .await
}

/// Deletes the account's record `id` with its guard, unless billings depend on it.
pub async fn delete<R: Editable>(store: &Store, account: AccountId, id: i64) -> ApiResult<()> {
    let removed: R = retry_in_turn(key_of::<R>(account, id), || async {
        let current: R = find_or_404(store, account, id).await?;
        if current.in_use() {
            return Err(ApiError::validation(R::IN_USE));
        }
        remove(store, account, &current, current.delete_writes(account)).await?;
        Ok(current)
    })
    .await?;
    removed.after_delete(store, account).await
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
    let mut entries: Vec<_> =
        store.index_entries(keys::listing(account, R::KIND), prefix).await?.into_iter().filter(|e| keep(e)).collect();
    entries.sort_by_cached_key(|e| (order(e), keys::id_of(&e.sk)));
    let total = entries.len();
    let page: Vec<_> = pagination.slice(&entries).iter().map(|e| (e.pk.clone(), e.sk.clone())).collect();
    let records = store.batch_get(&page).await?.iter().map(R::from_item).collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Listed { records, total })
}

/// Reads `version` and the common timestamps; used by `Record::from_item` implementations.
pub fn version_of(item: &Item) -> anyhow::Result<i64> {
    item.int("version")
}
