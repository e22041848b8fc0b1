//! Keys of billings: a billing's own partition, its key entries and postings (sharded by id), its
//! counters, and the items of a bulk billing's expansion.

use super::*;
use crate::store::Sort;
use crate::values::{AccountId, BankRuleId, BillCategoryId, BillingId, BillingStatus};
use chrono::NaiveDate;

/// The keys of a billing: a partition of its own (`A#<acct>#BILLING#<id:010>`, `sk = BILLING`),
/// which its billets share, so that no partition takes every create of an account and a
/// billing's billets are its partition's other items.
pub fn billing(account: AccountId, id: BillingId) -> (String, String) {
    (billing_partition(account, id), BILLING_SK.to_owned())
}

pub(in crate::store) fn billing_partition(account: AccountId, id: BillingId) -> String {
    format!("A#{account}#BILLING#{:010}", id.get())
}

pub const BILLING_SK: &str = "BILLING";

/// Partitions each kind of billing posting is spread over, by the billing's id: every create of
/// an account writes a posting in the creation-date, status and key partitions, which one
/// partition each would cap at DynamoDB's 1,000 write units a second (about 500 creates).
pub const POSTING_SHARDS: i64 = 4;

/// The posting shard of a billing.
pub fn posting_shard(id: BillingId) -> i64 {
    id.get().rem_euclid(POSTING_SHARDS)
}

/// Partition (one shard of it) holding one key-only item per billing of a type
/// (`sk = BILLING#<id:010>`): an unfiltered list skips to a deep page by reading these small items.
pub fn billing_keys(account: AccountId, billing_type: &str, shard: i64) -> String {
    format!("A#{account}#BILLINGS#{billing_type}#{shard}")
}

/// Partition (one shard of it) of the postings of one filter value of a billing type (key-only
/// items): `A#<account>#BILLINGS#<type>#<facet>#<shard>`, the facet being `C<contact>`,
/// `R<bank rule>`, `K<category>`, `P<parent booklet>`, `Y<your_code hash>`, `S<status>`, `T`
/// (creation dates) or `E` (evincive texts). See `billings::postings`.
pub fn billing_postings(account: AccountId, billing_type: &str, facet: &str, shard: i64) -> String {
    format!("A#{account}#BILLINGS#{billing_type}#{facet}#{shard}")
}

/// Every shard of a facet's postings (or, without a facet, of the key partition).
pub fn billing_posting_shards(account: AccountId, billing_type: &str, facet: Option<&str>) -> Vec<String> {
    (0..POSTING_SHARDS)
        .map(|shard| match facet {
            Some(facet) => billing_postings(account, billing_type, facet, shard),
            None => billing_keys(account, billing_type, shard),
        })
        .collect()
}

/// Sort key of a posting in id order (newest last; lists read it descending).
pub fn posting_by_id(id: BillingId) -> String {
    format!("{:010}", id.get())
}

/// Sort key of a posting in date order, then id.
pub fn posting_by_date(date: chrono::NaiveDate, id: BillingId) -> String {
    format!("{date}#{:010}", id.get())
}

/// A `your_code` in a posting partition's name: a hash (any length fits), 16 hex digits.
pub fn your_code_facet(code: &str) -> String {
    format!("Y{}", hashed(code))
}

/// The facets of a billing's posting partitions (`billing_postings`): one per filter value.
pub mod billing_facet {
    use crate::values::{BankRuleId, BillCategoryId, BillingId, BillingStatus, ContactId};

    pub fn contact(id: ContactId) -> String {
        format!("C{id}")
    }

    pub fn bank_rule(id: BankRuleId) -> String {
        format!("R{id}")
    }

    pub fn category(id: BillCategoryId) -> String {
        format!("K{id}")
    }

    pub fn parent(id: BillingId) -> String {
        format!("P{id}")
    }

    /// A status's postings, in due-date order.
    pub fn status(status: BillingStatus) -> String {
        format!("S{status}")
    }

    /// Every billing by the day it was created.
    pub const CREATED: &str = "T";
    /// Billings with an `evincive` text, carrying its sort key (`e`).
    pub const EVINCIVE: &str = "E";
}

/// Partition of the shards of the counter of an account's billings of a type (`store::shards`).
pub fn billing_count_shards(account: AccountId, billing_type: &str) -> String {
    format!("A#{account}#COUNT#BILLING#{billing_type}")
}

/// Counter of the billings of a type in one category (its total, per status, and per status on
/// each due day): the total of a list by the category and statuses or due dates.
pub fn billing_category_count_shards(account: AccountId, billing_type: &str, category: i64) -> String {
    format!("{}#K{category}", billing_count_shards(account, billing_type))
}

/// The partition of a billing and the sort-key prefix its record (`BILLING`) and its billets
/// (`BILLET#…`) share: both in one query.
pub fn billing_whole(account: AccountId, id: BillingId) -> (String, String) {
    (billing_partition(account, id), "BILL".to_owned())
}

/// A bulk billing's expansion while it runs: it holds a reference on its tags (`A#<acct>`).
pub fn bulk_expansion(expansion_id: &str) -> String {
    format!("{BULK_EXPANSION_PREFIX}{expansion_id}")
}

/// What the sort key of every [`bulk_expansion`] begins with.
pub const BULK_EXPANSION_PREFIX: &str = "EXPANSION#";

/// The plan of the chunk of a bulk expansion that starts after contact `after` (0: the first),
/// written once (`A#<acct>`): a guard's key, hashed.
pub fn bulk_plan(expansion_id: &str, after: i64) -> String {
    unique("BULKPLAN", &format!("{expansion_id}#{after}"))
}

stored_attributes! {
    /// What a billing's key entry ([`billing_keys`], `sk = BILLING#<id:010>`) carries: what a walk
    /// of the entries keeps or leaves (a list by status, due date or creation date) and what the
    /// search reads (the contact).
    pub struct BillingEntry {
        /// `<status>`.
        status = "s",
        /// `YYYY-MM-DD`.
        due_date = "d",
        /// The creation date, `YYYY-MM-DD`.
        created_on = "t",
        /// The contact's id.
        contact = "c",
        /// While the billing can be paid (`opened`): its due day's partition of the reminders'
        /// due-day index ([`super::reminder::reminder_index`]), in `gsi1`.
        due_index = "gsi1pk",
        /// Its place there: `<acct:010>#<id:010>`.
        due_index_key = "gsi1sk",
    }
}

stored_attributes! {
    /// What the posting of a billing's value (contact, bank rule, category, booklet, code) carries:
    /// its billing's state ([`posting_state`]) and its other values and creation date
    /// ([`carried_facets`]), so that a list by a value and anything but a search reads that value's
    /// postings alone.
    pub struct ValuePosting {
        state = "v",
        carried = "f",
    }
}

stored_attributes! {
    /// What a billing's `evincive` posting carries: the text's sort key, which the search reads.
    pub struct TextPosting {
        text = "e",
    }
}

/// What a value's posting carries as its billing's state: `<status>#<due date>` (about 18 bytes).
pub fn posting_state(status: BillingStatus, due: NaiveDate) -> String {
    format!("{status}#{due}")
}

/// The status and due date of a [`posting_state`].
pub fn read_posting_state(text: &str) -> Option<(BillingStatus, NaiveDate)> {
    let (status, due) = text.split_once('#')?;
    Some((BillingStatus::parse(status)?, crate::values::calendar::parse_date(due)?))
}

/// What a value's posting carries of its billing beside its state: `facets` (its other values'
/// facets) and its creation date (`T<date>`), space-separated (about 25 bytes).
pub fn carried_facets(facets: impl IntoIterator<Item = String>, created: NaiveDate) -> String {
    let created = format!("{}{created}", billing_facet::CREATED);
    facets.into_iter().chain(std::iter::once(created)).collect::<Vec<_>>().join(" ")
}

/// The facets and the creation date of a [`carried_facets`].
pub fn read_carried_facets(text: &str) -> (Vec<&str>, Option<NaiveDate>) {
    let mut created = None;
    let mut facets = Vec::new();
    for facet in text.split(' ') {
        match facet.strip_prefix(billing_facet::CREATED) {
            Some(date) => created = crate::values::calendar::parse_date(date),
            None => facets.push(facet),
        }
    }
    (facets, created)
}

/// Whether a value facet is a `your_code`'s ([`your_code_facet`]), which no posting carries.
pub fn is_code_facet(facet: &str) -> bool {
    facet.starts_with('Y')
}

/// A range of dates in date-ordered postings ([`posting_by_date`]): from `from`, up to `to`, both
/// included (either end open).
pub fn posting_dates(from: Option<NaiveDate>, to: Option<NaiveDate>) -> Sort {
    let low = from.map(|d| format!("{d}#")).unwrap_or_else(|| "0".to_owned());
    let high = to.map(|d| format!("{d}#9999999999")).unwrap_or_else(|| "9".to_owned());
    Sort::Between(low, high)
}

/// A count a billing adds to in its type's counter beside the total (`value`), and on the days
/// of its due and creation dates: a list by one of them takes its total from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BillingTally {
    /// Its status's (`S<status>`, named as the status's postings).
    Status(BillingStatus),
    /// Its bank rule's (`r<rule>`).
    Rule(BankRuleId),
    /// Its bank rule's in its status (`r<rule>S<status>`).
    RuleStatus(BankRuleId, BillingStatus),
    /// Its category's (`k<category>`).
    Category(BillCategoryId),
    /// On its creation day (`T`, named as the creation-date postings).
    Created,
}

impl BillingTally {
    /// The count's name in the counter item.
    pub fn name(self) -> String {
        match self {
            BillingTally::Status(status) => billing_facet::status(status),
            BillingTally::Rule(rule) => format!("r{rule}"),
            BillingTally::RuleStatus(rule, status) => {
                format!("{}{}", BillingTally::Rule(rule).name(), BillingTally::Status(status).name())
            }
            BillingTally::Category(category) => format!("k{category}"),
            BillingTally::Created => billing_facet::CREATED.to_owned(),
        }
    }
}

/// The category a counter of [`billing_category_count_shards`] counts, named as in
/// `ops billing recount`'s answer (`K<category>`); none for the type's own counter.
pub fn counted_category<'a>(counter: &'a str, type_counter: &str) -> Option<&'a str> {
    counter.strip_prefix(type_counter)?.strip_prefix('#')
}
