//! What a billing writes besides itself, in the same transaction: the reference counts that refuse
//! deleting the records it uses (its postings and counter shard go with the record itself:
//! `store::records`).

use std::collections::BTreeMap;

use super::model::Billing;
use crate::contacts::Contact;
use crate::groups::Group;
use crate::store::records::Record;
use crate::store::{refs, Write};
use crate::tags::Tag;
use crate::values::AccountId;

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

/// Reference-count changes of the records `before` used and `after` uses (create: no `before`;
/// delete: no `after`), each in the shard of the billing's id (`store::refs`); an increment fails
/// on a record deleted since it was read. Each record gets at most one write, as a transaction
/// requires.
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
    }
    writes
}
