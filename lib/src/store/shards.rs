//! Sharded counters: a count kept in [`SHARDS`] items spread over [`PARTITIONS`] partitions
//! (`<counter>#<shard mod PARTITIONS>`, `sk = SHARD#nn`), a record always counting in the shard of
//! its own id. Concurrent creates of many records write different items (no hot item) in
//! different partitions (no partition past DynamoDB's 1,000 write units a second: at 1,000 creates
//! a second, about 500 on each), a shard never goes below zero, and the total is a small query of
//! each partition.

use super::item::{from_item, CounterValue};
use super::{keys, KeyRange, Sort, Store, StoreResult, Write};

/// Shards of a counter: concurrent creates of an account meet on one item only when their ids
/// fall in the same shard.
pub const SHARDS: i64 = 32;
/// Partitions the shards are spread over.
pub const PARTITIONS: i64 = 4;

/// The partition of a shard of `counter`.
fn partition(counter: &str, shard: i64) -> String {
    keys::counter_partition(counter, shard.rem_euclid(PARTITIONS))
}

/// `delta` on the counter `counter`, in the shard of `holder`.
pub fn add(counter: String, holder: i64, delta: i64) -> Write {
    add_each(counter, holder, &[("value".to_owned(), delta)])
}

/// Several counts kept together (one attribute each, named by the caller), each moved by its
/// delta, in the shard of `holder`: one item, however many counts move.
pub fn add_each(counter: String, holder: i64, deltas: &[(String, i64)]) -> Write {
    let shard = holder.rem_euclid(SHARDS);
    let update = deltas.iter().fold(super::Update::new(), |update, (attribute, delta)| update.add(attribute, *delta));
    let sk = keys::count_shard(u32::try_from(shard).unwrap_or_default());
    Write::update(partition(&counter, shard), sk, update, None)
}

/// The counter's total (a query of each partition, at once).
pub async fn sum(store: &Store, counter: String) -> StoreResult<i64> {
    let mut total = 0;
    for shard in shards_of(store, &counter).await? {
        total += from_item::<CounterValue>(shard)?.value;
    }
    Ok(total.max(0))
}

/// The total of one of the counts [`add_each`] keeps in `counter`, as its shards add up (below
/// zero when a count was taken off that was never added).
pub async fn sum_of(store: &Store, counter: String, attribute: &str) -> StoreResult<i64> {
    Ok(sums_of(store, counter, &[attribute]).await?[0])
}

/// [`sum_of`] for several counts of one counter, read once.
pub async fn sums_of(store: &Store, counter: String, attributes: &[&str]) -> StoreResult<Vec<i64>> {
    let shards = shards_of(store, &counter).await?;
    let value = |shard: &super::Item, attribute: &str| {
        shard.get(attribute).and_then(|v| v.as_n().ok()).and_then(|n| n.parse::<i64>().ok())
    };
    Ok(attributes.iter().map(|a| shards.iter().filter_map(|shard| value(shard, a)).sum::<i64>()).collect())
}

/// Moves each count of `counter` to the number `counts` gives it (a count it leaves out, to zero),
/// in shard 0: a counter's repair from the records it counts. Answers the counts that differed,
/// each with what the counter said and what `counts` says.
pub async fn recount(
    store: &Store,
    counter: String,
    counts: &std::collections::BTreeMap<String, i64>,
) -> StoreResult<Vec<(String, i64, i64)>> {
    let current = totals(store, counter.clone()).await?;
    let names: std::collections::BTreeSet<&String> = counts.keys().chain(current.keys()).collect();
    let count = |map: &std::collections::BTreeMap<String, i64>, name: &String| map.get(name).copied().unwrap_or(0);
    let moved: Vec<(String, i64, i64)> = names
        .into_iter()
        .map(|name| (name.clone(), count(&current, name), count(counts, name)))
        .filter(|(_, was, is)| was != is)
        .collect();
    if !moved.is_empty() {
        let deltas: Vec<(String, i64)> = moved.iter().map(|(name, was, is)| (name.clone(), is - was)).collect();
        store.write(vec![add_each(counter, 0, &deltas)]).await?;
    }
    Ok(moved)
}

/// Every count a counter keeps (its numeric attributes: `value` and what [`add_each`] added), as
/// its shards add up.
async fn totals(store: &Store, counter: String) -> StoreResult<std::collections::BTreeMap<String, i64>> {
    let mut totals = std::collections::BTreeMap::new();
    for shard in shards_of(store, &counter).await? {
        for (name, value) in &shard {
            if let Some(n) = value.as_n().ok().and_then(|n| n.parse::<i64>().ok()) {
                *totals.entry(name.clone()).or_default() += n;
            }
        }
    }
    Ok(totals)
}

/// Every shard item of a counter (a query of each partition, at once).
async fn shards_of(store: &Store, counter: &str) -> StoreResult<Vec<super::Item>> {
    let reads = (0..PARTITIONS).map(|n| {
        let range = KeyRange::listing(partition(counter, n), Sort::Prefix(keys::SHARD_PREFIX.to_owned()), true);
        async move { store.page(&range, (SHARDS / PARTITIONS) as usize, None).await }
    });
    Ok(futures::future::try_join_all(reads).await?.into_iter().flat_map(|page| page.items).collect())
}
