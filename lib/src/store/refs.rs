//! Reference counts: how many billings use a record (a contact, a tag, a group), which refuses
//! its deletion while above zero. A count is spread over shards in a few partitions
//! (`A#<account>#REFS#<KIND>#<id>#<shard mod 4>`, `sk = SHARD#nn`), a billing always counting in
//! the shard of its own id, so creates of billings for one contact write different items (no hot
//! item, and no partition past DynamoDB's write limit) and a shard never goes below zero. A record's delete checks, in its transaction, that every shard is
//! still zero, and marks each shard `gone`: a billing written meanwhile makes the delete fail, and
//! a billing written after it fails on the mark. So a holder's increment is also the check that
//! the record still exists, without a `ConditionCheck` on the record (two write units fewer per
//! reference in a transaction). Ids are never reused, so the marks stay.

use super::item::{from_item, CounterValue};
use super::{keys, Condition, KeyRange, Store, StoreResult, Update, Write};
use crate::values::AccountId;

pub const SHARDS: i64 = 8;
/// Partitions the shards are spread over.
const PARTITIONS: i64 = 4;

fn partition(account: AccountId, kind: &str, id: i64, shard: i64) -> String {
    keys::counter::reference_shards(account, kind, id, shard.rem_euclid(PARTITIONS))
}

/// `delta` on the count of record `(kind, id)`, in the shard of `holder` (the billing's id, or
/// any number that stays the same between the holder's increment and its decrement).
/// A positive delta fails on a deleted record (its shards' `gone` mark).
pub fn moved(account: AccountId, kind: &str, id: i64, holder: i64, delta: i64) -> Write {
    let shard = holder.rem_euclid(SHARDS);
    let update = Update::new().add(keys::counter::COUNT_ATTRIBUTE, delta);
    let alive = (delta > 0).then(|| Condition::missing("gone"));
    let sk = keys::counter::count_shard(u32::try_from(shard).unwrap_or_default());
    Write::update(partition(account, kind, id, shard), sk, update, alive)
}

/// How many holders the record has (a query of each partition, at once: eight small items in all).
pub async fn count(store: &Store, account: AccountId, kind: &str, id: i64) -> StoreResult<i64> {
    let reads = (0..PARTITIONS).map(|n| {
        let range = KeyRange::prefix(partition(account, kind, id, n), keys::counter::SHARD_PREFIX, true);
        async move { store.page(&range, SHARDS as usize, None).await }
    });
    let mut total = 0;
    for page in futures::future::try_join_all(reads).await? {
        for shard in page.items {
            total += from_item::<CounterValue>(shard)?.value;
        }
    }
    Ok(total)
}

/// For a delete's transaction: every shard still counts no holder, and is marked `gone`.
pub fn unused(account: AccountId, kind: &str, id: i64) -> Vec<Write> {
    (0..SHARDS)
        .map(|shard| {
            let mark = Update::new().set("gone", &true);
            let unused = Condition::missing(keys::counter::COUNT_ATTRIBUTE)
                .or(Condition::equals(keys::counter::COUNT_ATTRIBUTE, &0));
            Write::update(
                partition(account, kind, id, shard),
                keys::counter::count_shard(shard as u32),
                mark,
                Some(unused),
            )
        })
        .collect()
}
