//! How a billing is stored: its partition (which its billets share), its list fields, its
//! postings (`super::postings`) and its counter. The model (`super::model`) knows nothing of them.

use super::model::Billing;
use crate::store::counting::Counting;
use crate::store::keys;
use crate::store::postings::Posting;
use crate::store::records::Record;
use crate::values::{AccountId, BillingId};

impl Record for Billing {
    const KIND: &'static str = "BILLING";
    const ITEM_KIND: &'static str = "billing";
    /// Billing lists read key partitions and postings (`billings::postings`), not the index.
    const LISTED: bool = false;
    type Id = BillingId;
    type ListFields = ();

    fn id(&self) -> BillingId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    /// A partition of its own, which its billets share (`keys::billing::billing`).
    fn keys(account: AccountId, id: BillingId) -> (String, String) {
        keys::billing::billing(account, id)
    }

    /// Not in the listing index: nothing to project.
    fn list_fields(&self) {}

    fn postings(&self, account: AccountId) -> Vec<Posting> {
        super::postings::of(account, self)
    }
}

impl Counting for Billing {
    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::billing::billing_count_shards(account, self.billing_type.as_str()))
    }

    /// Its bank rule's and category's counts (`super::postings::tallies`): the totals of a list by
    /// one of them.
    fn tallies(&self) -> Vec<String> {
        super::postings::tallies(self)
    }

    /// Its status on its due date (a list by `status` or due dates counts them), its creation on
    /// its creation date (`T`, as its creation-date posting: a list by creation dates counts
    /// them), and its bank rule's status on its due date (`r<rule>S<status>`: a list by a rule and
    /// statuses or due dates counts them).
    fn dated_tallies(&self) -> Vec<(chrono::NaiveDate, String)> {
        let mut tallies = vec![
            (self.due_date, keys::billing::BillingTally::Status(self.status).name()),
            (self.created_at.date(), keys::billing::BillingTally::Created.name()),
        ];
        tallies.extend(super::postings::rule_status_tally(self).map(|tally| (self.due_date, tally.name())));
        tallies
    }

    /// Its category's counter (`postings::category_counts`): its status there, and on its due
    /// date.
    fn also_counted(&self, account: AccountId) -> Vec<crate::store::counting::Counts> {
        super::postings::category_counts(account, self).into_iter().collect()
    }
}
