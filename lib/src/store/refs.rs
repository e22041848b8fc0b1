//! Reference counts: how many billings use a record (a contact, a tag, a group), which refuses
//! its deletion while above zero. A count is spread over shards
//! (`A#<account>#REFS#<KIND>#<id>`, `sk = SHARD#nn`), a billing always counting in the shard of
//! its own id, so creates of billings for one contact write different items (no hot item) and a
//! shard never goes below zero. A record's delete checks, in its transaction, that every shard is
//! still zero: a billing written meanwhile makes it fail.

use aws_sdk_dynamodb::types::AttributeValue;

use super::item::{from_item, CounterValue};
use super::{keys, Condition, KeyRange, Store, StoreResult, Write};
use crate::values::AccountId;

pub const SHARDS: i64 = 8;

fn partition(account: AccountId, kind: &str, id: i64) -> String {
    format!("A#{account}#REFS#{kind}#{id:010}")
}

/// `delta` on the count of record `(kind, id)`, in the shard of `holder` (the billing's id, or
/// any number that stays the same between the holder's increment and its decrement).
pub fn moved(account: AccountId, kind: &str, id: i64, holder: i64, delta: i64) -> Write {
    let shard = u32::try_from(holder.rem_euclid(SHARDS)).unwrap_or_default();
    Write::add(partition(account, kind, id), keys::count_shard(shard), "value", delta)
}

/// How many holders the record has (one query of at most eight small items).
pub async fn count(store: &Store, account: AccountId, kind: &str, id: i64) -> StoreResult<i64> {
    let range = KeyRange::prefix(partition(account, kind, id), "SHARD#", true);
    let page = store.page(&range, SHARDS as usize, None).await?;
    let mut total = 0;
    for shard in page.items {
        total += from_item::<CounterValue>(shard)?.value;
    }
    Ok(total)
}

/// Checks, for a delete's transaction, that no shard counts a holder.
pub fn unused(account: AccountId, kind: &str, id: i64) -> Vec<Write> {
    (0..SHARDS)
        .map(|shard| Write::Check {
            pk: partition(account, kind, id),
            sk: keys::count_shard(shard as u32),
            condition: Condition::new("attribute_not_exists(#value) OR #value = :zero")
                .name("#value", "value")
                .value(":zero", AttributeValue::N("0".into())),
        })
        .collect()
}
