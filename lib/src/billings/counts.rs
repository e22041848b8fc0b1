//! The billings counter of a type counted again from the billings: the repair for counts that
//! billings written around the service (or before the counts existed) left behind
//! (`ops billing recount`).

use std::collections::BTreeMap;

use super::model::Billing;
use crate::refusal::Refusal;
use crate::store::keys;
use crate::store::records::{self, Record};
use crate::store::{item, postings, shards, KeyRange, Sort, Store};
use crate::values::{AccountId, BillingId, BillingType};

/// One count that moved: its name (`value`, `S<status>`, `r<rule>`, `k<category>`, or a day's
/// `<due date>:S<status>`), what the counter said, and what the billings say.
pub type Moved = (String, i64, i64);

/// Counts the account's billings of `billing_type` again (every key entry of the type's four
/// shards, then the billings a hundred to a batch, holding only the counts) and moves the counter
/// by the difference, in its shard 0: the counts that differed. A billing written while it runs
/// can leave a count one off: run it again when the account is quiet if in doubt (a second run
/// moves nothing).
pub async fn recount(store: &Store, account: AccountId, billing_type: BillingType) -> Result<Vec<Moved>, Refusal> {
    let mut ids = Vec::new();
    for partition in keys::billing_posting_shards(account, billing_type.as_str(), None) {
        let range = KeyRange::listing(partition, Sort::All, true);
        postings::scan(store, &range, usize::MAX, |entry| {
            ids.extend(item::text(entry, "sk").and_then(keys::id_of).map(BillingId::new));
        })
        .await?;
    }
    let mut counted: BTreeMap<String, i64> = BTreeMap::new();
    let mut days = shards::DayCounts::new();
    for chunk in ids.chunks(100) {
        for billing in records::find_many::<Billing>(store, account, chunk).await? {
            for (name, delta) in records::counts_of(&billing, 1) {
                *counted.entry(name).or_default() += delta;
            }
            shards::count_days(&mut days, billing.dated_tallies());
        }
    }
    let counter = keys::billing_count_shards(account, billing_type.as_str());
    let mut moved = shards::recount(store, counter.clone(), &counted).await?;
    moved.extend(shards::recount_days(store, &counter, &days).await?);
    Ok(moved)
}
