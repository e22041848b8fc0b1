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
    let shard = holder.rem_euclid(SHARDS);
    Write::add(partition(&counter, shard), keys::count_shard(u32::try_from(shard).unwrap_or_default()), "value", delta)
}

/// The counter's total (a query of each partition, at once).
pub async fn sum(store: &Store, counter: String) -> StoreResult<i64> {
    let reads = (0..PARTITIONS).map(|n| {
        let range = KeyRange::listing(partition(&counter, n), Sort::Prefix(keys::SHARD_PREFIX.to_owned()), true);
        async move { store.page(&range, (SHARDS / PARTITIONS) as usize, None).await }
    });
    let mut total = 0;
    for page in futures::future::try_join_all(reads).await? {
        for shard in page.items {
            total += from_item::<CounterValue>(shard)?.value;
        }
    }
    Ok(total.max(0))
}
