//! Postings: key-only items that let a list read only the records its filter matches, in its
//! order. A record has a posting in the partition of each filter value it carries; the sort key
//! orders the partition (`<order>#<id:010>`, or just the id) and ends in the record's id. Postings
//! are written in the transaction that writes the record, and a change writes only those whose
//! keys changed.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Item, Write};

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
