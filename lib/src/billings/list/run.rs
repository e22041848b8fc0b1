//! Carries out a [`Plan`]: each variant's reads, as `plan` describes them.

use std::cmp::Reverse;

use super::counts::ranged;
use super::intersect::{carried, matching, Postings};
use super::plan::{Intersection, Plan};
use super::query::{DateRange, Value};
use super::statuses::{within, StatusRange};
use super::walk::{ids_where, in_id_order, in_step, page_of, ListSize};
use crate::billings::model::Billing;
use crate::refusal::Refusal;
use crate::store::keys::{
    self, billing::billing_facet, billing::BillingEntry, billing::BillingTally, billing::ValuePosting,
};
use crate::store::records::{Listed, Window};
use crate::store::{shards, Item, Store};
use crate::values::calendar::parse_date;
use crate::values::{AccountId, BillCategoryId, BillingStatus, BillingType};

/// How much more a walk of the key entries costs than reading the list's own postings, entry for
/// posting: a key entry is about 1.7 times a status posting's bytes; 2 leans toward the postings,
/// whose number the counts know, when the two ways are close.
const ENTRY_COST: f64 = 2.0;

/// The page `window` shows of the billings of `billing_type` that `plan` finds.
pub async fn run(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    plan: Plan,
    window: Window,
) -> Result<Listed<Billing>, Refusal> {
    let list = List { store, postings: Postings { account, billing_type }, window };
    let counter = list.postings.counter();
    match plan {
        Plan::Nothing => Ok(Listed::empty()),
        Plan::Everything => {
            let total = async { Ok(usize::try_from(shards::sum(store, counter).await?).unwrap_or_default()) };
            in_id_order(store, account, list.shards(None), total, window).await
        }
        Plan::OneValue(value) => {
            let tally = value.tally().map(BillingTally::name).unwrap_or_default();
            let total =
                async { Ok(usize::try_from(shards::sum_of(store, counter, &tally).await?).unwrap_or_default()) };
            in_id_order(store, account, list.shards(Some(&value.facet())), total, window).await
        }
        Plan::Created(range) => list.created(range).await,
        Plan::States(ranges) => {
            let counted = ranged(store, &counter, &ranges, None).await?;
            list.states(&ranges, counted.of_counter).await
        }
        Plan::RuleStates(rule, ranges) => {
            let value = Value::BankRule(rule);
            let counted = ranged(store, &counter, &ranges, Some(rule)).await?;
            match (counted.everyone, counted.of_value) {
                (false, Some(of_value)) => list.value_states(&value, &ranges, of_value).await,
                _ => list.states(&ranges, counted.of_counter).await,
            }
        }
        Plan::CategoryStates { category, ranges, otherwise } => match list.category_counted(category, &ranges).await? {
            Some(counted) => list.value_states(&Value::Category(category), &ranges, counted).await,
            None => list.intersected(&otherwise).await,
        },
        Plan::Carried { driver, otherwise } => match carried(store, list.postings, &driver, &otherwise).await? {
            Some(found) => {
                let total = found.len();
                page_of(store, account, found.into_iter().rev(), total, window).await
            }
            None => list.intersected(&otherwise).await,
        },
        Plan::Intersect(intersection) => list.intersected(&intersection).await,
    }
}

/// A list being answered: whose postings, which page.
struct List<'a> {
    store: &'a Store,
    postings: Postings,
    window: Window,
}

impl List<'_> {
    /// The shards of the type's postings of `facet`, or of its key entries.
    fn shards(&self, facet: Option<&str>) -> Vec<String> {
        self.postings.shards(facet)
    }

    /// [`Plan::Created`]: the total from the counter's creation days, the page the cheaper way.
    async fn created(&self, range: DateRange) -> Result<Listed<Billing>, Refusal> {
        let counter = self.postings.counter();
        let (all, days) = tokio::try_join!(
            shards::sum(self.store, counter.clone()),
            shards::days(self.store, &counter, Some(range.from), Some(range.to))
        )?;
        let created_count = BillingTally::Created.name();
        let created: i64 = days.values().filter_map(|counts| counts.get(&created_count)).sum();
        let positive = |n: i64| usize::try_from(n).unwrap_or_default();
        let counted = ListSize { drawn_from: positive(all), total: positive(created) };
        let admits = |entry: &Item| {
            BillingEntry::read(entry).created_on.and_then(parse_date).is_some_and(|day| range.contains(day))
        };
        let postings = || async {
            let shards = self.shards(Some(billing_facet::CREATED));
            Ok(ids_where(self.store, shards, keys::billing::posting_dates(Some(range.from), Some(range.to)), |_| true)
                .await?
                .into_iter()
                .collect())
        };
        self.cheaper_page(counted, admits, postings).await
    }

    /// [`Plan::States`] with its counts: the page the cheaper way, the ranges' status postings or
    /// the key entries (each carrying its status and due date).
    async fn states(&self, ranges: &[StatusRange], counted: ListSize) -> Result<Listed<Billing>, Refusal> {
        let admits = |entry: &Item| {
            let entry = BillingEntry::read(entry);
            let status = entry.status.and_then(BillingStatus::parse);
            status.is_some_and(|status| within(ranges, status, entry.due_date.and_then(parse_date)))
        };
        let postings = || async {
            let reads = ranges.iter().map(|range| {
                let shards = self.shards(Some(&billing_facet::status(range.status)));
                ids_where(self.store, shards, keys::billing::posting_dates(range.from, range.to), |_| true)
            });
            Ok(futures::future::try_join_all(reads).await?.into_iter().flatten().collect())
        };
        self.cheaper_page(counted, admits, postings).await
    }

    /// A category's billings in `ranges` as its own counter counts them, when that counter holds
    /// every billing of the category (its total is the type's `k<category>`); none otherwise.
    async fn category_counted(
        &self,
        category: BillCategoryId,
        ranges: &[StatusRange],
    ) -> Result<Option<ListSize>, Refusal> {
        let (counter, of) = (self.postings.counter(), self.postings);
        let own = keys::billing::billing_category_count_shards(of.account, of.billing_type.as_str(), category.get());
        let tally = BillingTally::Category(category).name();
        let (counted, in_type) = tokio::try_join!(ranged(self.store, &own, ranges, None), async {
            Ok(shards::sum_of(self.store, counter, &tally).await?)
        })?;
        let complete = i64::try_from(counted.of_counter.drawn_from).ok() == Some(in_type.max(0));
        Ok(complete.then_some(counted.of_counter))
    }

    /// A page of one value's billings in some statuses, each within due dates, `counted` as the
    /// value's counts say: a walk of the value's postings newest first, each carrying its
    /// billing's status and due date, the four shards in step (about `reach × value's billings /
    /// total` postings, at most the value's).
    async fn value_states(
        &self,
        value: &Value,
        ranges: &[StatusRange],
        counted: ListSize,
    ) -> Result<Listed<Billing>, Refusal> {
        let Some(reach) = counted.reach(self.window) else { return Ok(Listed::new(Vec::new(), counted.total)) };
        let admits = |posting: &Item| {
            let state = ValuePosting::read(posting).state.and_then(keys::billing::read_posting_state);
            state.is_some_and(|(status, due)| within(ranges, status, Some(due)))
        };
        let shards = self.shards(Some(&value.facet()));
        let ids = in_step(self.store, shards, reach, counted.spread(), usize::MAX, admits).await?.unwrap_or_default();
        page_of(self.store, self.postings.account, ids, counted.total, self.window).await
    }

    /// [`Plan::Intersect`]: every filter's postings intersected, the total theirs.
    async fn intersected(&self, intersection: &Intersection) -> Result<Listed<Billing>, Refusal> {
        let (found, partial) = matching(self.store, self.postings, intersection).await?;
        let total = found.len();
        Ok(page_of(self.store, self.postings.account, found.into_iter().rev(), total, self.window)
            .await?
            .partial_if(partial))
    }

    /// The page of a list of `counted.total` billings of `counted.drawn_from` that `admits`
    /// keeps of the type's key entries, read the cheaper of two ways: every posting of the list
    /// (`postings`, `total` of them), or a walk of the key entries newest first, the four shards in
    /// step (`in_step`: about `reach × spread` entries in all, each [`ENTRY_COST`] postings). A
    /// walk that meets fewer matches than the counts promised (the matches are older than the
    /// rest) stops after as many entries as the postings hold and reads the postings: at worst
    /// about three times the cheaper way.
    async fn cheaper_page<Read>(
        &self,
        counted: ListSize,
        admits: impl Fn(&Item) -> bool,
        postings: impl FnOnce() -> Read,
    ) -> Result<Listed<Billing>, Refusal>
    where
        Read: std::future::Future<Output = Result<Vec<i64>, Refusal>>,
    {
        let total = counted.total;
        let Some(reach) = counted.reach(self.window) else { return Ok(Listed::new(Vec::new(), total)) };
        let walk = (reach as f64 * counted.spread() * ENTRY_COST) as usize;
        let walked = match total <= walk {
            true => None,
            false => in_step(self.store, self.shards(None), reach, counted.spread(), total, admits).await?,
        };
        let mut ids: Vec<i64> = match walked {
            Some(ids) => ids,
            None => postings().await?,
        };
        ids.sort_unstable_by_key(|id| Reverse(*id));
        ids.dedup();
        page_of(self.store, self.postings.account, ids, total, self.window).await
    }
}
