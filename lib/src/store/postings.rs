//! Postings: key-only items that let a list read only the records its filter matches, in its
//! order. A record has a posting in the partition of each filter value it carries; the sort key
//! orders the partition (`<order>#<id:010>`, or just the id) and ends in the record's id. Postings
//! are written in the transaction that writes the record, and a change writes only those whose
//! keys changed.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::window::Window;
use super::{Item, KeyRange, Sort, Store, StoreError, StoreResult, Write};

/// One posting: its keys, and the attributes a list reads with it (a searched text, a state).
#[derive(Clone, Debug, PartialEq)]
pub struct Posting {
    pub pk: String,
    pub sk: String,
    pub extra: Vec<(&'static str, String)>,
}

impl Posting {
    pub fn new(pk: String, sk: String) -> Self {
        Posting { pk, sk, extra: Vec::new() }
    }

    /// The posting with an attribute more.
    pub fn with(mut self, name: &'static str, value: String) -> Self {
        self.extra.push((name, value));
        self
    }

    pub fn item(&self) -> Item {
        let mut item = Item::from([
            ("pk".to_owned(), AttributeValue::S(self.pk.clone())),
            ("sk".to_owned(), AttributeValue::S(self.sk.clone())),
        ]);
        for (name, value) in &self.extra {
            item.insert((*name).to_owned(), AttributeValue::S(value.clone()));
        }
        item
    }
}

/// The id a posting's sort key ends with.
pub fn id_at_end(sk: &str) -> Option<i64> {
    let digits = sk.get(sk.len().checked_sub(10)?..)?;
    digits.parse().ok()
}

/// A posting read back: the record's id and its position in the list (the sort key, or for a
/// posting ordered otherwise the order it carries, `keys::ListedElsewhere`).
pub fn position(item: &Item) -> Option<(i64, String)> {
    let order = super::keys::ListedElsewhere::read(item).order.or_else(|| super::item::text(item, "sk"))?;
    Some((id_at_end(order)?, order.to_owned()))
}

/// The first `n` postings of each partition (ascending), merged in order: all a page within the
/// first `n` of an ordered list needs. Reads `n` key items per partition at most.
pub async fn leading(store: &Store, partitions: &[String], n: usize) -> StoreResult<Vec<(i64, String)>> {
    let mut found = Vec::new();
    if n == 0 {
        return Ok(found);
    }
    let reads = partitions.iter().map(|partition| {
        let range = KeyRange::listing(partition.clone(), Sort::All, true);
        async move { store.items_in(&range, 0, n).await }
    });
    for items in futures::future::try_join_all(reads).await? {
        found.extend(items.iter().filter_map(position));
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(found)
}

/// How far into a list a page may end and still read its leading entries beside the list's count
/// ([`leading_counted`]): one call fewer on the caller's path. A page within it that starts past
/// the end reads at most this many entries a partition for nothing; a page ending deeper reads its
/// entries once the count is known, and none when it starts past the end.
pub const BESIDE_THE_COUNT: usize = 1_000;

/// [`leading`] for a page of `window`, and the list's total from `count`: read at once when the
/// page ends within [`BESIDE_THE_COUNT`] entries (the usual first pages), the count first
/// otherwise.
pub async fn leading_counted<E: From<StoreError>>(
    store: &Store,
    partitions: &[String],
    window: Window,
    count: impl std::future::Future<Output = Result<usize, E>>,
) -> Result<(Vec<(i64, String)>, usize), E> {
    if window.end() <= BESIDE_THE_COUNT {
        let read = async { leading(store, partitions, window.end()).await.map_err(E::from) };
        return futures::try_join!(read, count);
    }
    let total = count.await?;
    Ok((leading(store, partitions, window.reach(total)).await?, total))
}

/// The records whose postings fall in `range` (at most `limit` read), as id → position.
pub async fn matching(store: &Store, range: &KeyRange, limit: usize) -> StoreResult<BTreeMap<i64, String>> {
    Ok(store.items_in(range, 0, limit).await?.iter().filter_map(position).collect())
}

/// The postings of `partition` (at most [`SEARCH_SCAN`]) whose order, a folded name then the id,
/// has `term` (folded the same way) in its name: a name search read from keys alone, keeping only
/// what matches; and whether it stopped at the bound (more postings were there, unread).
pub async fn named(store: &Store, partition: String, term: &str) -> StoreResult<(Vec<(i64, String)>, bool)> {
    named_within(store, partition, term, SEARCH_SCAN).await
}

/// [`named`] reading at most `limit` postings.
pub async fn named_within(
    store: &Store,
    partition: String,
    term: &str,
    limit: usize,
) -> StoreResult<(Vec<(i64, String)>, bool)> {
    let term = crate::values::text::sort_key(term);
    let range = KeyRange::listing(partition, Sort::All, true);
    let mut found = Vec::new();
    let partial = scan(store, &range, limit, |item| {
        let named =
            position(item).filter(|(_, order)| super::keys::order_name(order).is_some_and(|name| name.contains(&term)));
        found.extend(named);
    })
    .await?;
    Ok((found, partial))
}

/// Reads `range` a page (a megabyte) per round trip, handing each item to `each` and keeping
/// none, to its end or until `limit` items were read; answers whether it stopped at the bound
/// with more there (a page asks for one item past the bound, which is left out): how a
/// search that reads every posting of a partition holds only its matches, and says when it
/// stopped.
pub async fn scan(store: &Store, range: &KeyRange, limit: usize, mut each: impl FnMut(&Item)) -> StoreResult<bool> {
    let (mut read, mut start) = (0usize, None);
    loop {
        let wanted = limit.saturating_sub(read).saturating_add(1).min(PAGE_ITEMS);
        let page = store.page(range, wanted, start).await?;
        for item in &page.items {
            if read == limit {
                return Ok(true);
            }
            each(item);
            read += 1;
        }
        match page.next {
            Some(next) => start = Some(next),
            None => return Ok(false),
        }
    }
}

/// A page's `Limit` when a read wants all it can get: DynamoDB stops at a megabyte first.
const PAGE_ITEMS: usize = 100_000;

/// The most postings a substring search reads in one partition (a type's contacts, a tag list, one
/// of a billing type's four key or evincive shards): beyond it a list answers what it found among them and
/// says so (`X-Search-Partial`). Above a million, so that no account of the sizes the service is
/// built for meets it: 2,000,000 postings of about 60 bytes, 120 MB, are some 15,000 read units
/// and 120 round trips one after another.
pub const SEARCH_SCAN: usize = 2_000_000;

/// The writes that take the postings `before` to `after`: only those that differ.
pub fn moved(before: Vec<Posting>, after: Vec<Posting>) -> Vec<Write> {
    let by_key = |postings: Vec<Posting>| -> BTreeMap<(String, String), Posting> {
        postings.into_iter().map(|p| ((p.pk.clone(), p.sk.clone()), p)).collect()
    };
    let (old, new) = (by_key(before), by_key(after));
    let mut writes: Vec<Write> =
        old.keys().filter(|k| !new.contains_key(*k)).map(|(pk, sk)| Write::delete(pk.clone(), sk.clone())).collect();
    writes.extend(new.iter().filter(|(k, p)| old.get(*k) != Some(*p)).map(|(_, p)| Write::put(p.item())));
    writes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::keys::ordered;

    #[test]
    fn ids_are_read_back_from_the_end_of_the_sort_key() {
        assert_eq!(id_at_end(&ordered("maria da silva", 42)), Some(42));
        assert_eq!(id_at_end("0000000007"), Some(7));
        assert_eq!(id_at_end("2026-11-23#0000000042"), Some(42));
        assert_eq!(id_at_end("short"), None);
    }
}
