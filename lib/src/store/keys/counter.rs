//! Keys of sharded counters and reference counts (`store::shards`, `store::refs`).

use chrono::NaiveDate;

use crate::values::AccountId;

/// What the shards of a sharded item's partition begin with (`count_shard`, reference counts).
pub const SHARD_PREFIX: &str = "SHARD#";

/// Partition of the shards of the counter of records of a kind (and subtype) of an account.
pub fn count_shards(account: AccountId, kind: &str) -> String {
    format!("A#{account}#COUNT#{kind}")
}

/// Partition of the reference-count shards of record `(kind, id)` that fall in `partition`
/// (`store::refs`).
pub fn reference_shards(account: AccountId, kind: &str, id: i64, partition: i64) -> String {
    format!("A#{account}#REFS#{kind}#{id:010}#{partition}")
}

/// Partition of the shards of `counter` (one of [`count_shards`], [`billing_count_shards`]) that
/// fall in `partition` (`store::shards`).
pub fn counter_partition(counter: &str, partition: i64) -> String {
    format!("{counter}#{partition}")
}

pub fn count_shard(shard: u32) -> String {
    format!("{SHARD_PREFIX}{shard:02}")
}

/// Per-account counter items (`UpdateItem ADD`).
pub fn counter(name: &str) -> String {
    format!("COUNT#{name}")
}

/// The partition of one day shard of `counter`'s counts per day (`<counter>#DAYS#<partition>`).
pub fn counter_days_partition(counter: &str, partition: i64) -> String {
    counter_partition(&format!("{counter}#DAYS"), partition)
}

/// The sort key of a day shard: the day first, so that a range of days is a key range.
pub fn day_shard(day: NaiveDate, shard: i64) -> String {
    format!("{day}#{shard:02}")
}

/// The bounds of the day shards from `from` to `to`, both included (either end open).
pub fn day_shards_between(from: Option<NaiveDate>, to: Option<NaiveDate>) -> (String, String) {
    let low = from.map_or_else(|| "0".to_owned(), |day| format!("{day}#"));
    let high = to.map_or_else(|| "9".to_owned(), |day| format!("{day}#~"));
    (low, high)
}

/// The day of a [`day_shard`].
pub fn day_of_shard(sk: &str) -> Option<NaiveDate> {
    sk.split_once('#')?.0.parse().ok()
}

/// The number a counter item holds (`ADD value :n`): a counter shard's total, a reference count's,
/// an account's count (`counter`). `store::item::CounterValue` reads it by the same name.
pub const COUNT_ATTRIBUTE: &str = "value";
