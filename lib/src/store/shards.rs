//! Sharded counters: a count kept in [`SHARDS`] items spread over [`PARTITIONS`] partitions
//! (`<counter>#<shard mod PARTITIONS>`, `sk = SHARD#nn`), a record always counting in the shard of
//! its own id. Concurrent creates of many records write different items (no hot item) in
//! different partitions (no partition past DynamoDB's 1,000 write units a second: at 1,000 creates
//! a second, about 500 on each), a shard never goes below zero, and the total is a small query of
//! each partition.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::item::{from_item, CounterValue};
use super::{keys, KeyRange, Sort, Store, StoreResult, Write};

/// Shards of a counter: concurrent creates of an account meet on one item only when their ids
/// fall in the same shard.
pub const SHARDS: i64 = 32;
/// Partitions the shards are spread over.
pub const PARTITIONS: i64 = 4;

/// The partition of a shard of `counter`.
fn partition(counter: &str, shard: i64) -> String {
    keys::counter::counter_partition(counter, shard.rem_euclid(PARTITIONS))
}

/// `delta` on the counter `counter`, in the shard of `holder`.
pub fn add(counter: String, holder: i64, delta: i64) -> Write {
    add_each(counter, holder, &[(keys::counter::COUNT_ATTRIBUTE.to_owned(), delta)])
}

/// Several counts kept together (one attribute each, named by the caller), each moved by its
/// delta, in the shard of `holder`: one item, however many counts move.
pub fn add_each(counter: String, holder: i64, deltas: &[(String, i64)]) -> Write {
    let shard = holder.rem_euclid(SHARDS);
    let update = deltas.iter().fold(super::Update::new(), |update, (attribute, delta)| update.add(attribute, *delta));
    let sk = keys::counter::count_shard(u32::try_from(shard).unwrap_or_default());
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

/// One count a recount moved: its name, what the counter said and what the records say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recounted {
    pub count: String,
    pub was: i64,
    pub is: i64,
}

impl Recounted {
    /// What moves the count from what the counter said to what the records say.
    fn correction(&self) -> (String, i64) {
        (self.count.clone(), self.is - self.was)
    }
}

/// Moves each count of `counter` to the number `counts` gives it (a count it leaves out, to zero),
/// in shard 0: a counter's repair from the records it counts. Answers the counts that differed,
/// each with what the counter said and what `counts` says.
pub async fn recount(store: &Store, counter: String, counts: &BTreeMap<String, i64>) -> StoreResult<Vec<Recounted>> {
    let moved = differences(&totals(store, counter.clone()).await?, counts);
    if !moved.is_empty() {
        let deltas: Vec<(String, i64)> = moved.iter().map(Recounted::correction).collect();
        store.write(vec![add_each(counter, 0, &deltas)]).await?;
    }
    Ok(moved)
}

/// The counts that differ between what a counter says and what its records say (a count one
/// leaves out is zero there): each name with both numbers.
fn differences(said: &BTreeMap<String, i64>, says: &BTreeMap<String, i64>) -> Vec<Recounted> {
    let names: std::collections::BTreeSet<&String> = said.keys().chain(says.keys()).collect();
    let count = |map: &BTreeMap<String, i64>, name: &String| map.get(name).copied().unwrap_or(0);
    names
        .into_iter()
        .map(|name| Recounted { count: name.clone(), was: count(said, name), is: count(says, name) })
        .filter(|moved| moved.was != moved.is)
        .collect()
}

/// The counts an item of a counter holds: its numeric attributes.
fn counts_in(item: &super::Item) -> impl Iterator<Item = (&String, i64)> {
    item.iter().filter_map(|(name, value)| Some((name, value.as_n().ok()?.parse::<i64>().ok()?)))
}

/// Every count a counter keeps (its numeric attributes: `value` and what [`add_each`] added), as
/// its shards add up.
async fn totals(store: &Store, counter: String) -> StoreResult<BTreeMap<String, i64>> {
    let mut totals = BTreeMap::new();
    for shard in shards_of(store, &counter).await? {
        for (name, n) in counts_in(&shard) {
            *totals.entry(name.clone()).or_default() += n;
        }
    }
    Ok(totals)
}

/// Every shard item of a counter (a query of each partition, at once).
async fn shards_of(store: &Store, counter: &str) -> StoreResult<Vec<super::Item>> {
    let reads = (0..PARTITIONS).map(|n| {
        let range =
            KeyRange::listing(partition(counter, n), Sort::Prefix(keys::counter::SHARD_PREFIX.to_owned()), true);
        async move { store.page(&range, (SHARDS / PARTITIONS) as usize, None).await }
    });
    Ok(futures::future::try_join_all(reads).await?.into_iter().flat_map(|page| page.items).collect())
}

/// Shards of a counter's counts per day: records of one day meet on one item only when their ids
/// fall in the same shard. A divisor of `refs::SHARDS`, by which a bulk expansion groups its
/// transactions (so that two of its groups never write one day's item at once).
const DAY_SHARDS: i64 = 8;
const _: () = assert!(super::refs::SHARDS % DAY_SHARDS == 0);

/// The partition of a day shard of `counter` (`<counter>#DAYS#<shard mod PARTITIONS>`).
fn day_partition(counter: &str, shard: i64) -> String {
    keys::counter::counter_days_partition(counter, shard.rem_euclid(PARTITIONS))
}

/// The sort key of a day shard: the day first, so that a range of days is a key range.
fn day_key(day: NaiveDate, shard: i64) -> String {
    keys::counter::day_shard(day, shard)
}

/// Counts by day and name: a counter's days as read ([`days`]), or what records add to them
/// ([`count_days`]).
pub type DayCounts = BTreeMap<NaiveDate, BTreeMap<String, i64>>;

/// Adds one to `days` where each of `dated` says (a record's `Counting::dated_tallies`: a day and a
/// count's name).
pub fn count_days(days: &mut DayCounts, dated: Vec<(NaiveDate, String)>) {
    for (day, name) in dated {
        *days.entry(day).or_default().entry(name).or_default() += 1;
    }
}

/// [`add_on_day`] of each day of `days`: one write a day.
pub fn add_on_days(counter: &str, holder: i64, days: DayCounts) -> Vec<Write> {
    let write = |(day, counts): (NaiveDate, BTreeMap<String, i64>)| {
        add_on_day(counter, day, holder, &counts.into_iter().collect::<Vec<_>>())
    };
    days.into_iter().map(write).collect()
}

/// Counts kept per day beside a counter (a billing's status on its due date), each moved by its
/// delta, in the day's shard of `holder`: one small item per day and shard, whatever moves.
pub fn add_on_day(counter: &str, day: NaiveDate, holder: i64, deltas: &[(String, i64)]) -> Write {
    let shard = holder.rem_euclid(DAY_SHARDS);
    let update = deltas.iter().fold(super::Update::new(), |update, (attribute, delta)| update.add(attribute, *delta));
    Write::update(day_partition(counter, shard), day_key(day, shard), update, None)
}

/// Each day's counts of `counter` from `from` to `to` (both included, either end open), as their
/// shards add up: one query of each partition, at once, reading one item per day and shard that
/// holds a count (about 60 bytes: a year of daily dates is about 50 read units).
pub async fn days(
    store: &Store,
    counter: &str,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> StoreResult<DayCounts> {
    let (low, high) = keys::counter::day_shards_between(from, to);
    let reads = (0..PARTITIONS).map(|n| {
        let range = KeyRange::listing(day_partition(counter, n), Sort::Between(low.clone(), high.clone()), true);
        async move {
            let mut read: Vec<(NaiveDate, String, i64)> = Vec::new();
            super::postings::scan(store, &range, usize::MAX, |shard| {
                let day = super::item::text(shard, "sk").and_then(keys::counter::day_of_shard);
                if let Some(day) = day {
                    read.extend(counts_in(shard).map(|(name, n)| (day, name.clone(), n)));
                }
            })
            .await?;
            Ok::<_, super::StoreError>(read)
        }
    });
    let mut days = DayCounts::new();
    for (day, name, n) in futures::future::try_join_all(reads).await?.into_iter().flatten() {
        *days.entry(day).or_default().entry(name).or_default() += n;
    }
    Ok(days)
}

/// Moves each day's counts of `counter` to what `counts` gives them (a count it leaves out, to
/// zero), in each day's shard 0: the per-day counterpart of [`recount`]. Answers the counts that
/// differed, named `<day>:<count>`, each with what the counter said and what `counts` says.
pub async fn recount_days(store: &Store, counter: &str, counts: &DayCounts) -> StoreResult<Vec<Recounted>> {
    let current = days(store, counter, None, None).await?;
    let all_days: std::collections::BTreeSet<&NaiveDate> = counts.keys().chain(current.keys()).collect();
    let empty = BTreeMap::new();
    let mut moved = Vec::new();
    let mut writes = Vec::new();
    for day in all_days {
        let differ = differences(current.get(day).unwrap_or(&empty), counts.get(day).unwrap_or(&empty));
        if !differ.is_empty() {
            let deltas: Vec<(String, i64)> = differ.iter().map(Recounted::correction).collect();
            writes.push(add_on_day(counter, *day, 0, &deltas));
            moved
                .extend(differ.into_iter().map(|moved| Recounted { count: format!("{day}:{}", moved.count), ..moved }));
        }
    }
    for write in writes {
        store.write(vec![write]).await?;
    }
    Ok(moved)
}
