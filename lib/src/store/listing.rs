//! Reading key ranges: a [`KeyRange`] (a partition of the table or of the `gsi1` listing index,
//! and a [`Sort`] range in it), read a page at a time ([`Store::page`]), skipped to a window,
//! counted, or read whole within a bound (a page's items by their keys at once, and batch puts and
//! deletes, are in `batches`). Lists of the few kinds still in the listing index
//! (bank accounts, bank rules, categories) read its partition whole (`index_entries`: keys and a
//! small `list_fields` map, the INCLUDE projection), filter and order in memory and fetch their
//! page; the others read postings (`store::postings`, `billings::list`).

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;

use super::failures::failed;
use super::{Item, Store, StoreResult};

const LIST_INDEX: &str = "gsi1";

#[derive(Clone, Debug)]
pub struct IndexEntry {
    pub pk: String,
    pub sk: String,
    pub index_sk: String,
    pub fields: HashMap<String, AttributeValue>,
}

impl IndexEntry {
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.fields.get(key) {
            Some(AttributeValue::S(v)) => Some(v),
            _ => None,
        }
    }
}

/// Which sort keys of a partition a [`KeyRange`] covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sort {
    All,
    Prefix(String),
    /// At or after this key.
    From(String),
    /// Before this key.
    Below(String),
    /// From the first key to the second, both included.
    Between(String, String),
}

/// A key range of one partition of the table, or of the listing index (`gsi1`).
#[derive(Clone, Debug)]
pub struct KeyRange {
    pub index: bool,
    pub partition: String,
    pub sort: Sort,
    pub ascending: bool,
    /// Eventually consistent (half the read units) where a moment's lag does not matter: lists.
    pub eventual: bool,
}

impl KeyRange {
    /// The sort keys of a table partition that start with `prefix`.
    pub fn prefix(partition: String, prefix: impl Into<String>, ascending: bool) -> Self {
        KeyRange { index: false, partition, sort: Sort::Prefix(prefix.into()), ascending, eventual: false }
    }

    /// An index partition, from its first entry or in `sort`'s range.
    pub fn index(partition: String, sort: Sort, ascending: bool) -> Self {
        KeyRange { index: true, partition, sort, ascending, eventual: true }
    }

    /// A table partition, in `sort`'s range, read eventually consistent (lists).
    pub fn listing(partition: String, sort: Sort, ascending: bool) -> Self {
        KeyRange { index: false, partition, sort, ascending, eventual: true }
    }
}

/// A page of a [`KeyRange`].
#[derive(Clone, Debug, Default)]
pub struct Page {
    pub items: Vec<Item>,
    /// How many items the page matched (with `Select: COUNT`, the only thing it gives).
    pub count: usize,
    /// Where the next page starts (`LastEvaluatedKey`), when there may be one.
    pub next: Option<Item>,
}

impl Store {
    /// Runs `query` to the end of its key range, one page (1 MB) per round trip, following
    /// `LastEvaluatedKey`, and hands each page's items to `each`.
    async fn query_pages(
        &self,
        query: QueryFluentBuilder,
        consistent: bool,
        what: &'static str,
        mut each: impl FnMut(Vec<Item>),
    ) -> StoreResult<()> {
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let output =
                query.clone().set_exclusive_start_key(start.take()).send().await.map_err(|e| failed(what, e))?;
            self.metered(|m| m.query(output.items(), consistent));
            each(output.items.unwrap_or_default());
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(()),
            }
        }
    }

    /// Every entry of a listing partition, optionally only those whose index sort key starts
    /// with `prefix`.
    pub async fn index_entries(&self, partition: String, prefix: Option<&str>) -> StoreResult<Vec<IndexEntry>> {
        let mut entries = Vec::new();
        let query = self
            .client()
            .query()
            .table_name(self.table())
            .index_name(LIST_INDEX)
            .expression_attribute_values(":pk", AttributeValue::S(partition));
        let query = match prefix {
            Some(prefix) => query
                .key_condition_expression("gsi1pk = :pk AND begins_with(gsi1sk, :prefix)")
                .expression_attribute_values(":prefix", AttributeValue::S(prefix.to_owned())),
            None => query.key_condition_expression("gsi1pk = :pk"),
        };
        self.query_pages(query, false, "Query on the listing index", |items| {
            for mut item in items {
                let text = |item: &mut Item, key: &str| match item.remove(key) {
                    Some(AttributeValue::S(v)) => v,
                    _ => String::new(),
                };
                let fields = match item.remove("list_fields") {
                    Some(AttributeValue::M(map)) => map,
                    _ => HashMap::new(),
                };
                entries.push(IndexEntry {
                    pk: text(&mut item, "pk"),
                    sk: text(&mut item, "sk"),
                    index_sk: text(&mut item, "gsi1sk"),
                    fields,
                });
            }
        })
        .await?;
        Ok(entries)
    }

    /// One page of a key range: at most `limit` items (one round trip), and where the next page
    /// starts when there may be more. Reads on the table are strongly consistent; on the listing
    /// index they give the keys and `list_fields` only.
    pub async fn page(&self, range: &KeyRange, limit: usize, start: Option<Item>) -> StoreResult<Page> {
        self.page_with(range, limit, start, false).await
    }

    /// [`Store::page`]; with `count`, only a count of the range's items (no `Limit`: up to 1 MB a
    /// round trip).
    async fn page_with(&self, range: &KeyRange, limit: usize, start: Option<Item>, count: bool) -> StoreResult<Page> {
        let (pk, sk) = if range.index { ("gsi1pk", "gsi1sk") } else { ("pk", "sk") };
        let mut query = self
            .client()
            .query()
            .table_name(self.table())
            .expression_attribute_names("#pk", pk)
            .expression_attribute_values(":pk", AttributeValue::S(range.partition.clone()))
            .scan_index_forward(range.ascending)
            .set_exclusive_start_key(start);
        query = match count {
            true => query.select(aws_sdk_dynamodb::types::Select::Count),
            false => query.limit(i32::try_from(limit.clamp(1, 100_000)).unwrap_or(100_000)),
        };
        let condition = match &range.sort {
            Sort::All => "#pk = :pk",
            Sort::Prefix(value) => {
                query = query.expression_attribute_values(":sk", AttributeValue::S(value.clone()));
                "#pk = :pk AND begins_with(#sk, :sk)"
            }
            Sort::From(value) => {
                query = query.expression_attribute_values(":sk", AttributeValue::S(value.clone()));
                "#pk = :pk AND #sk >= :sk"
            }
            Sort::Below(value) => {
                query = query.expression_attribute_values(":sk", AttributeValue::S(value.clone()));
                "#pk = :pk AND #sk < :sk"
            }
            Sort::Between(from, to) => {
                query = query
                    .expression_attribute_values(":sk", AttributeValue::S(from.clone()))
                    .expression_attribute_values(":to", AttributeValue::S(to.clone()));
                "#pk = :pk AND #sk BETWEEN :sk AND :to"
            }
        };
        if !matches!(range.sort, Sort::All) {
            query = query.expression_attribute_names("#sk", sk);
        }
        query = query.key_condition_expression(condition);
        query = if range.index { query.index_name(LIST_INDEX) } else { query.consistent_read(!range.eventual) };
        let output = query.send().await.map_err(|e| failed("Query a page of a key range", e))?;
        self.metered(|m| m.query(output.items(), !range.eventual));
        Ok(Page {
            count: usize::try_from(output.count).unwrap_or_default(),
            items: output.items.unwrap_or_default(),
            next: output.last_evaluated_key.filter(|key| !key.is_empty()),
        })
    }

    /// The items `skip..skip + take` of a key range, reading only the pages up to them.
    pub async fn items_in(&self, range: &KeyRange, skip: usize, take: usize) -> StoreResult<Vec<Item>> {
        let wanted = skip.saturating_add(take);
        let (mut items, mut start) = (Vec::new(), None);
        while items.len() < wanted {
            let page = self.page(range, wanted - items.len(), start).await?;
            items.extend(page.items);
            match page.next {
                Some(next) => start = Some(next),
                None => break,
            }
        }
        Ok(items.into_iter().skip(skip).take(take).collect())
    }

    /// How many items a key range holds (`Select: COUNT`: the items are read, not returned).
    pub async fn count(&self, range: &KeyRange) -> StoreResult<usize> {
        let mut total = 0;
        let mut start = None;
        loop {
            let page = self.page_with(range, 0, start, true).await?;
            total += page.count;
            match page.next {
                Some(next) => start = Some(next),
                None => return Ok(total),
            }
        }
    }

    /// The keys of the first `limit` items of a base-table partition, in one query.
    pub async fn first_keys(&self, pk: String, limit: usize) -> StoreResult<Vec<(String, String)>> {
        let output = self
            .client()
            .query()
            .table_name(self.table())
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(pk))
            .projection_expression("pk, sk")
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .send()
            .await
            .map_err(|e| failed("Query a partition's first keys", e))?;
        self.metered(|m| m.query(output.items(), false));
        Ok(output
            .items()
            .iter()
            .filter_map(|item| match (item.get("pk"), item.get("sk")) {
                (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) => Some((pk.clone(), sk.clone())),
                _ => None,
            })
            .collect())
    }

    /// The keys of every item in a base-table partition (link partitions).
    pub async fn partition_keys(&self, pk: String) -> StoreResult<Vec<(String, String)>> {
        let mut keys = Vec::new();
        let query = self
            .client()
            .query()
            .table_name(self.table())
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(pk))
            .projection_expression("pk, sk");
        self.query_pages(query, false, "Query a partition", |items| {
            for item in items {
                if let (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) = (item.get("pk"), item.get("sk")) {
                    keys.push((pk.clone(), sk.clone()));
                }
            }
        })
        .await?;
        Ok(keys)
    }

    /// Every item of a partition whose sort key starts with `prefix`, in key order or reversed
    /// (strongly consistent: small ranges read right after a write).
    pub async fn items_with_prefix(&self, pk: String, prefix: String, ascending: bool) -> StoreResult<Vec<Item>> {
        let mut items = Vec::new();
        let query = self
            .client()
            .query()
            .table_name(self.table())
            .key_condition_expression("pk = :pk AND begins_with(sk, :prefix)")
            .expression_attribute_values(":pk", AttributeValue::S(pk))
            .expression_attribute_values(":prefix", AttributeValue::S(prefix))
            .scan_index_forward(ascending)
            .consistent_read(true);
        self.query_pages(query, true, "Query a key range", |page| items.extend(page)).await?;
        Ok(items)
    }
}
