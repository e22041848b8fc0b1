//! Sharded counters: a count kept in up to 16 items of one partition (`sk = SHARD#nn`), a record
//! always counting in the shard of its own id. Creates of many records write different items (no
//! hot item), a shard never goes below zero, and the total is one small query.

use super::item::{from_item, CounterValue};
use super::{keys, KeyRange, Store, StoreResult, Write};

pub const SHARDS: i64 = 16;

/// `delta` on the counter `partition`, in the shard of `holder`.
pub fn add(partition: String, holder: i64, delta: i64) -> Write {
    let shard = u32::try_from(holder.rem_euclid(SHARDS)).unwrap_or_default();
    Write::add(partition, keys::count_shard(shard), "value", delta)
}

/// The counter's total.
pub async fn sum(store: &Store, partition: String) -> StoreResult<i64> {
    let range = KeyRange::listing(partition, super::Sort::Prefix("SHARD#".to_owned()), true);
    let page = store.page(&range, SHARDS as usize, None).await?;
    let mut total = 0;
    for shard in page.items {
        total += from_item::<CounterValue>(shard)?.value;
    }
    Ok(total.max(0))
}
