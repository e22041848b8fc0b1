//! Reading key ranges and batches: a [`KeyRange`] (a partition of the table or of the `gsi1`
//! listing index, and a [`Sort`] range in it), read a page at a time ([`Store::page`]), skipped to
//! a window, counted, or read whole within a bound; the page's items by their keys at once
//! (`BatchGetItem`); and batch puts and deletes. Lists of the few kinds still in the listing index
//! (bank accounts, bank rules, categories) read its partition whole (`index_entries`: keys and a
//! small `list_fields` map, the INCLUDE projection), filter and order in memory and fetch their
//! page; the others read postings (`store::postings`, `billings::list`).

use std::collections::HashMap;

use anyhow::Context as _;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};

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

/// Batch writes of [`Store::put_all`] in flight at once (16 × 25 = 400 items).
const PUT_BATCHES_AT_ONCE: usize = 16;

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

/// `BatchGetItem` takes at most this many keys.
const BATCH_GET_LIMIT: usize = 100;

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

    /// Puts these items (no conditions), 25 per `BatchWriteItem`, up to [`PUT_BATCHES_AT_ONCE`]
    /// batches at a time, asking again for what DynamoDB left unprocessed: one round trip for a
    /// few hundred key-only items, and a bounded number of requests in flight for any number.
    pub async fn put_all(&self, items: Vec<Item>) -> StoreResult<()> {
        use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
        use futures::stream::{self, StreamExt, TryStreamExt};
        let mut batches = Vec::new();
        for chunk in items.chunks(25) {
            let mut requests = Vec::new();
            for item in chunk {
                let put = PutRequest::builder().set_item(Some(item.clone())).build().context("put request")?;
                requests.push(WriteRequest::builder().put_request(put).build());
            }
            batches.push(requests);
        }
        stream::iter(batches)
            .map(|requests| self.batch_write(requests))
            .buffer_unordered(PUT_BATCHES_AT_ONCE)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(())
    }

    /// One `BatchWriteItem` of at most 25 requests, until DynamoDB has processed them all.
    async fn batch_write(&self, requests: Vec<aws_sdk_dynamodb::types::WriteRequest>) -> StoreResult<()> {
        super::gate::passed().await?;
        let mut pending = Some(HashMap::from([(self.table().to_owned(), requests)]));
        let mut round = 0u64;
        while let Some(items) = pending.take() {
            self.metered(|m| m.write());
            let output = self
                .client()
                .batch_write_item()
                .set_request_items(Some(items))
                .send()
                .await
                .map_err(|e| failed("BatchWriteItem", e))?;
            if let Some(unprocessed) = output.unprocessed_items.filter(|u| !u.is_empty()) {
                round += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20 * round.min(10))).await;
                pending = Some(unprocessed);
            }
        }
        Ok(())
    }

    /// Deletes these items, 25 per `BatchWriteItem` (one batch after another), asking again for
    /// what DynamoDB left unprocessed.
    pub async fn delete_all(&self, keys: Vec<(String, String)>) -> StoreResult<()> {
        use aws_sdk_dynamodb::types::{DeleteRequest, WriteRequest};
        for chunk in keys.chunks(25) {
            let mut requests = Vec::new();
            for (pk, sk) in chunk {
                let delete = DeleteRequest::builder()
                    .key("pk", AttributeValue::S(pk.clone()))
                    .key("sk", AttributeValue::S(sk.clone()))
                    .build()
                    .context("delete request")?;
                requests.push(WriteRequest::builder().delete_request(delete).build());
            }
            self.batch_write(requests).await?;
        }
        Ok(())
    }

    /// The items with these keys, in the order asked; keys with no item are skipped.
    pub async fn batch_get(&self, keys: &[(String, String)]) -> StoreResult<Vec<Item>> {
        let mut found: HashMap<(String, String), Item> = HashMap::new();
        for chunk in keys.chunks(BATCH_GET_LIMIT) {
            let mut request = KeysAndAttributes::builder();
            for (pk, sk) in chunk {
                request = request.keys(HashMap::from([
                    ("pk".to_owned(), AttributeValue::S(pk.clone())),
                    ("sk".to_owned(), AttributeValue::S(sk.clone())),
                ]));
            }
            let mut pending = Some(HashMap::from([(self.table().to_owned(), request.build().context("batch keys")?)]));
            let mut round = 0u32;
            while let Some(request_items) = pending.take() {
                let output = self
                    .client()
                    .batch_get_item()
                    .set_request_items(Some(request_items))
                    .send()
                    .await
                    .map_err(|e| failed("BatchGetItem", e))?;
                self.metered(|m| {
                    let empty = Vec::new();
                    let responses = output.responses.as_ref().and_then(|r| r.get(self.table()));
                    m.batch(responses.unwrap_or(&empty), false)
                });
                for item in output.responses.unwrap_or_default().remove(self.table()).unwrap_or_default() {
                    let key = (
                        item.get("pk").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default(),
                        item.get("sk").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default(),
                    );
                    found.insert(key, item);
                }
                // Keys DynamoDB did not process this time are asked again after a short pause.
                if let Some(unprocessed) = output.unprocessed_keys.filter(|u| !u.is_empty()) {
                    round += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(20 * u64::from(round.min(10)))).await;
                    pending = Some(unprocessed);
                }
            }
        }
        Ok(keys.iter().filter_map(|key| found.remove(key)).collect())
    }
}
