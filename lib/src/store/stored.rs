//! One way to store a record: its type implements [`Stored`] (an account's listed, versioned
//! records through [`super::records::Record`], by a blanket implementation), and is written and
//! read only through this module and `records`, which writes through it.
//!
//! The type holds its fields and nothing else: no `pk`, `sk` or `kind`. [`Stored::key`] builds its
//! keys (with the functions of [`super::keys`], from its fields and, when they do not say it all,
//! a scope: the owning account, …); the store adds `pk`, `sk`, `kind` and, when [`Stored::index`]
//! gives one, the `gsi1` index keys to the item on write, and a read ignores them (serde skips
//! attributes a type does not name). A type that needs something back from its key (a token's
//! digest) takes it in [`Stored::found_at`], parsed by a function of [`super::keys`].

use std::future::Future;

use futures::FutureExt as _;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::item::{from_item, keyed, KeyItem};
use super::{Condition, Item, Store, StoreResult, Update, Write};

/// An item's table keys: `pk`, `sk`.
pub type Key = (String, String);

/// A kind of record stored as one item, mapped by serde. See the module's documentation.
pub trait Stored: Serialize + DeserializeOwned {
    /// The item's `kind` attribute (`sale`, `delivery`, …); `None` for a kind whose items never
    /// had one (idempotency claims).
    const KIND: Option<&'static str>;
    /// What its keys need beside its own fields: `()` when its fields say it all, the owning
    /// `AccountId` for most kinds, a tuple for a kind kept under another record.
    type Scope<'a>: Copy;

    /// Its keys, built by [`super::keys`].
    fn key(&self, scope: Self::Scope<'_>) -> Key;

    /// Its entry in the `gsi1` index, when it has one now (a pending event, an open sale).
    fn index(&self, _scope: Self::Scope<'_>) -> Option<Key> {
        None
    }

    /// Takes back what a read needs from the item's keys (default: nothing).
    fn found_at(&mut self, _key: &Key) {}
}

/// The item of a record: its fields, keys, `kind` and index keys.
pub fn item_of<T: Stored>(record: &T, scope: T::Scope<'_>) -> StoreResult<Item> {
    keyed(record, record.key(scope), T::KIND, record.index(scope))
}

/// The record an item holds.
pub fn read<T: Stored>(item: Item) -> StoreResult<T> {
    let key = KeyItem::keys_of(&item);
    let mut record: T = from_item(item)?;
    record.found_at(&key);
    Ok(record)
}

/// The records items hold, in their order.
pub fn read_all<T: Stored>(items: Vec<Item>) -> StoreResult<Vec<T>> {
    items.into_iter().map(read).collect()
}

/// The write that stores a record, whatever is there.
pub fn put<T: Stored>(record: &T, scope: T::Scope<'_>) -> StoreResult<Write> {
    Ok(Write::put(item_of(record, scope)?))
}

/// The write that stores a new record: its key must be free.
pub fn insert<T: Stored>(record: &T, scope: T::Scope<'_>) -> StoreResult<Write> {
    put_if(record, scope, Condition::absent())
}

/// The write that stores a record under `condition` (on the item there now).
pub fn put_if<T: Stored>(record: &T, scope: T::Scope<'_>, condition: Condition) -> StoreResult<Write> {
    Ok(Write::put_if(item_of(record, scope)?, condition))
}

/// The write that changes some attributes of a stored record, under `condition`.
pub fn update<T: Stored>(record: &T, scope: T::Scope<'_>, change: Update, condition: Condition) -> Write {
    let (pk, sk) = record.key(scope);
    Write::update(pk, sk, change, Some(condition))
}

/// The write that deletes a stored record, under `condition`.
pub fn delete_if<T: Stored>(record: &T, scope: T::Scope<'_>, condition: Condition) -> Write {
    let (pk, sk) = record.key(scope);
    Write::delete_if(pk, sk, condition)
}

/// The record stored under `key` (a strongly consistent read). A plain mapping of the read's
/// future, not a future of its own: the authorizer's future is already near the compiler's
/// layout depth limit, which one more `async` layer on its reads passes.
pub fn find<T: Stored>(store: &Store, (pk, sk): Key) -> impl Future<Output = StoreResult<Option<T>>> + Send + '_ {
    store.get(pk, sk).map(|found| found?.map(read).transpose())
}

/// The records stored under `keys` (one batch read per hundred); keys of nothing are left out.
pub async fn find_many<T: Stored>(store: &Store, keys: &[Key]) -> StoreResult<Vec<T>> {
    read_all(store.batch_get(keys).await?)
}

/// The records of a partition whose sort keys start with `prefix`, in key order.
pub async fn with_prefix<T: Stored>(store: &Store, pk: String, prefix: String, ascending: bool) -> StoreResult<Vec<T>> {
    read_all(store.items_with_prefix(pk, prefix, ascending).await?)
}
