//! What a billing writes besides itself, in the same transaction: the reference counts that refuse
//! deleting the records it uses, and its entry in the per-type key partition and counter that
//! unfiltered lists read (docs/data-model.md).

use std::collections::BTreeMap;

use super::model::Billing;
use super::postings;
use crate::bank_rules::BankRule;
use crate::bill_categories::BillCategory;
use crate::contacts::Contact;
use crate::groups::Group;
use crate::store::records::Record;
use crate::store::{item, keys, refs, Condition, KeyItem, StoreResult, Write};
use crate::tags::Tag;
use crate::values::{AccountId, BillingType};

/// The records a billing uses, each once: payer and patient, bulk target and excluded tags,
/// legacy target group.
fn referenced(billing: &Billing) -> Vec<(&'static str, i64)> {
    let mut refs: Vec<(&'static str, i64)> = Vec::new();
    let contacts = [billing.contact_id, billing.patient_id].into_iter().flatten().map(|id| (Contact::KIND, id.get()));
    let tags =
        billing.tag_id.into_iter().chain(billing.excluded_tag_ids.iter().copied()).map(|id| (Tag::KIND, id.get()));
    let groups = billing.group_id.into_iter().map(|id| (Group::KIND, id.get()));
    for reference in contacts.chain(tags).chain(groups) {
        if !refs.contains(&reference) {
            refs.push(reference);
        }
    }
    refs
}

/// Conditions that the bank rule and the category a billing names still exist when it is written
/// (they were read before, for a 422 naming each).
pub fn reference_checks(account: AccountId, billing: &Billing) -> Vec<Write> {
    let rule = billing.bank_rule_id.map(|id| (BankRule::KIND, id.get()));
    let category = billing.bill_category_id.map(|id| (BillCategory::KIND, id.get()));
    rule.into_iter()
        .chain(category)
        .map(|(kind, id)| Write::check_exists(keys::account(account), keys::record(kind, id)))
        .collect()
}

/// Reference-count changes of the records `before` used and `after` uses (create: no `before`;
/// delete: no `after`), each in the shard of the billing's id (`store::refs`), with a check that a
/// newly used record still exists. Each record gets at most one write, as a transaction requires.
pub fn reference_writes(account: AccountId, before: Option<&Billing>, after: Option<&Billing>) -> Vec<Write> {
    let mut deltas: BTreeMap<(&'static str, i64), i64> = BTreeMap::new();
    let mut holder = 0;
    for (billing, delta) in [(before, -1), (after, 1)] {
        if let Some(billing) = billing {
            holder = billing.id.get();
        }
        for reference in billing.map(referenced).unwrap_or_default() {
            *deltas.entry(reference).or_default() += delta;
        }
    }
    let mut writes = Vec::new();
    for ((kind, id), delta) in deltas.into_iter().filter(|(_, delta)| *delta != 0) {
        writes.push(refs::moved(account, kind, id, holder, delta));
        if delta > 0 {
            writes.push(Write::check_exists(keys::account(account), keys::record(kind, id)));
        }
    }
    writes
}

/// Shards of the counter of an account's billings of a type.
pub const COUNT_SHARDS: u32 = 16;

/// A new billing: its key item, its postings, and one more in a shard of its type's counter.
pub fn added(account: AccountId, billing: &Billing) -> StoreResult<Vec<Write>> {
    let key = KeyItem {
        pk: keys::billing_keys(account, billing.billing_type.as_str()),
        sk: keys::record(Billing::KIND, billing.id),
    };
    let mut writes = vec![Write::put_if(item::to_item(&key)?, Condition::absent())];
    writes.extend(postings::moved(account, None, Some(billing)));
    writes.push(counter(account, billing.billing_type, 1));
    Ok(writes)
}

/// A deleted billing: its key item and postings go, and a shard of its type's counter drops by one.
pub fn removed(account: AccountId, billing: &Billing) -> Vec<Write> {
    let mut writes = vec![Write::delete(
        keys::billing_keys(account, billing.billing_type.as_str()),
        keys::record(Billing::KIND, billing.id),
    )];
    writes.extend(postings::moved(account, Some(billing), None));
    writes.push(counter(account, billing.billing_type, -1));
    writes
}

/// A changed billing: the postings whose value changed.
pub fn moved(account: AccountId, before: &Billing, after: &Billing) -> Vec<Write> {
    postings::moved(account, Some(before), Some(after))
}

/// `delta` on a shard of the counter picked at random: creates of one account write different items.
fn counter(account: AccountId, billing_type: BillingType, delta: i64) -> Write {
    let shard = rand::random_range(0..COUNT_SHARDS);
    Write::add(keys::billing_count_shards(account, billing_type.as_str()), keys::count_shard(shard), "value", delta)
}

/// How many billings of a type the account has: the sum of the counter's shards (one query of
/// at most 16 small items).
pub async fn count(store: &crate::store::Store, account: AccountId, billing_type: BillingType) -> StoreResult<i64> {
    let range = crate::store::KeyRange::prefix(keys::billing_count_shards(account, billing_type.as_str()), "SHARD#", true);
    let page = store.page(&range, COUNT_SHARDS as usize, None).await?;
    let mut total = 0;
    for shard in page.items {
        total += item::from_item::<crate::store::CounterValue>(shard)?.value;
    }
    Ok(total.max(0))
}
