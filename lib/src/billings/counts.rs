//! The billings counter of a type counted again from the billings: the repair for counts that
//! billings written around the service (or before the counts existed) left behind
//! (`ops billing recount`).

use super::model::Billing;
use crate::refusal::Refusal;
use crate::store::keys;
use crate::store::records::{self, Window};
use crate::store::shards::Recounted;
use crate::store::{item, postings, shards, KeyRange, Sort, Store};
use crate::values::{AccountId, BillingId, BillingType};

/// Counts the account's billings of `billing_type` again (every key entry of the type's four
/// shards, then the billings a hundred to a batch, holding only the counts) and moves the type's
/// counter and each category's by the difference, in their shard 0: the counts that differed. A billing written while it runs
/// can leave a count one off: run it again when the account is quiet if in doubt (a second run
/// moves nothing).
pub async fn recount(store: &Store, account: AccountId, billing_type: BillingType) -> Result<Vec<Recounted>, Refusal> {
    let mut ids = Vec::new();
    for partition in keys::billing::billing_posting_shards(account, billing_type.as_str(), None) {
        let range = KeyRange::listing(partition, Sort::All, true);
        postings::scan(store, &range, usize::MAX, |entry| {
            ids.extend(item::text(entry, "sk").and_then(keys::id_of).map(BillingId::new));
        })
        .await?;
    }
    // Every counter the type's billings may count in: the type's, and each category's (one whose
    // billings all left it is brought to zero too).
    let counter = keys::billing::billing_count_shards(account, billing_type.as_str());
    let mut counted = crate::store::counting::Summed::new();
    counted.entry(counter.clone()).or_default();
    let every = Window { skip: 0, take: usize::MAX };
    let categories = crate::bill_categories::service::list(store, account, None, every).await?;
    for category in categories.records {
        let category = keys::billing::billing_category_count_shards(account, billing_type.as_str(), category.id.get());
        counted.entry(category).or_default();
    }
    for chunk in ids.chunks(100) {
        for billing in records::find_many::<Billing>(store, account, chunk).await? {
            crate::store::counting::sum_into(&mut counted, &billing, account);
        }
    }
    let mut moved = Vec::new();
    for (other, (sums, days)) in counted {
        // A category's counts are named after it (`K<category>/S<status>`).
        let scope = keys::billing::counted_category(&other, &counter).map(str::to_owned);
        let named = |moved: Recounted| match &scope {
            Some(scope) => Recounted { count: format!("{scope}/{}", moved.count), ..moved },
            None => moved,
        };
        moved.extend(shards::recount(store, other.clone(), &sums).await?.into_iter().map(named));
        moved.extend(shards::recount_days(store, &other, &days).await?.into_iter().map(named));
    }
    Ok(moved)
}
