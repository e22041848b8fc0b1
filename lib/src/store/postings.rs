//! Postings: key-only items that let a list read only the records its filter matches, in its
//! order. A record has a posting in the partition of each filter value it carries; the sort key
//! orders the partition (`<order>#<id:010>`, or just the id) and ends in the record's id. Postings
//! are written in the transaction that writes the record, and a change writes only those whose
//! keys changed.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Item, KeyRange, Sort, Store, StoreResult, Write};

/// One posting: its keys, and an optional attribute a list reads with it (a searched text).
#[derive(Clone, Debug, PartialEq)]
pub struct Posting {
    pub pk: String,
    pub sk: String,
    pub extra: Option<(&'static str, String)>,
}

impl Posting {
    pub fn new(pk: String, sk: String) -> Self {
        Posting { pk, sk, extra: None }
    }

    pub fn item(&self) -> Item {
        let mut item = Item::from([
            ("pk".to_owned(), AttributeValue::S(self.pk.clone())),
            ("sk".to_owned(), AttributeValue::S(self.sk.clone())),
        ]);
        if let Some((name, value)) = &self.extra {
            item.insert((*name).to_owned(), AttributeValue::S(value.clone()));
        }
        item
    }
}

/// A sort key in `order`, then id.
pub fn ordered(order: &str, id: i64) -> String {
    format!("{order}#{id:010}")
}

/// The id a posting's sort key ends with.
pub fn id_at_end(sk: &str) -> Option<i64> {
    let digits = sk.get(sk.len().checked_sub(10)?..)?;
    digits.parse().ok()
}

/// A posting read back: the record's id and its position in the list (the sort key, or for a
/// posting ordered otherwise its `o` attribute).
pub fn position(item: &Item) -> Option<(i64, String)> {
    let text = |name: &str| match item.get(name) {
        Some(AttributeValue::S(value)) => Some(value.clone()),
        _ => None,
    };
    let order = text("o").or_else(|| text("sk"))?;
    Some((id_at_end(&order)?, order))
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

/// The records whose postings fall in `range` (at most `limit` read), as id → position.
pub async fn matching(store: &Store, range: &KeyRange, limit: usize) -> StoreResult<BTreeMap<i64, String>> {
    Ok(store.items_in(range, 0, limit).await?.iter().filter_map(position).collect())
}

/// The postings of `partition` (at most [`SEARCH_SCAN`]) whose order, a folded name then the id,
/// has `term` (folded the same way) in its name: a name search read from keys alone; and whether
/// it stopped at the bound (more postings were there, unread).
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
    let (items, partial) = bounded(store, &range, limit).await?;
    let found = items
        .iter()
        .filter_map(position)
        .filter(|(_, order)| order.rsplit_once('#').is_some_and(|(name, _)| name.contains(&term)))
        .collect();
    Ok((found, partial))
}

/// At most `limit` items of `range`, and whether it holds more (one item past the bound is asked
/// for, and left out): how a search that stops at its bound knows to say so.
pub async fn bounded(store: &Store, range: &KeyRange, limit: usize) -> StoreResult<(Vec<Item>, bool)> {
    let mut items = store.items_in(range, 0, limit.saturating_add(1)).await?;
    let more = items.len() > limit;
    items.truncate(limit);
    Ok((items, more))
}

/// The most postings a substring search reads: beyond it a list answers what it found among them.
pub const SEARCH_SCAN: usize = 50_000;

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

    #[test]
    fn ids_are_read_back_from_the_end_of_the_sort_key() {
        assert_eq!(id_at_end(&ordered("maria da silva", 42)), Some(42));
        assert_eq!(id_at_end("0000000007"), Some(7));
        assert_eq!(id_at_end("2026-11-23#0000000042"), Some(42));
        assert_eq!(id_at_end("short"), None);
    }
}
