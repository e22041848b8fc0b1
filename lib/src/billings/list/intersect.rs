//! The two plans that read postings whole: [`Plan::Intersect`](super::plan::Plan::Intersect)
//! ([`matching`]: each filter's postings, intersected) and
//! [`Plan::Carried`](super::plan::Plan::Carried) ([`carried`]: one value's postings, keeping
//! those whose carried values match the rest).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

use super::plan::{Driver, Intersection};
use super::query::Value;
use super::statuses::within;
use super::walk::ids_where;
use crate::refusal::Refusal;
use crate::store::keys::{self, billing::billing_facet, billing::ValuePosting};
use crate::store::{shards, Item, Sort, Store};
use crate::values::{AccountId, BillingType};

/// The postings of an account's billings of a type.
#[derive(Clone, Copy)]
pub struct Postings {
    pub account: AccountId,
    pub billing_type: BillingType,
}

impl Postings {
    /// The shards of the postings of `facet`, or of the key entries.
    pub fn shards(&self, facet: Option<&str>) -> Vec<String> {
        keys::billing::billing_posting_shards(self.account, self.billing_type.as_str(), facet)
    }

    /// The type's counter.
    pub fn counter(&self) -> String {
        keys::billing::billing_count_shards(self.account, self.billing_type.as_str())
    }
}

/// Whether a value's posting carries a status and due date in `intersection`'s ranges (every
/// posting, without ranges).
fn in_ranges(intersection: &Intersection, posting: &Item) -> bool {
    match (&intersection.ranges, ValuePosting::read(posting).state) {
        (None, _) => true,
        (Some(ranges), Some(state)) => {
            keys::billing::read_posting_state(state).is_some_and(|(status, due)| within(ranges, status, Some(due)))
        }
        (Some(_), None) => false,
    }
}

/// The ids a filtered list shows, and whether its search stopped at its bound: for each filter,
/// the billings its postings name (a value, its postings; without a value, each status range's
/// postings in due-date order; creation dates, one range; the search, `search::searched`),
/// intersected. Each costs about one read unit per 180 of its matches.
pub async fn matching(
    store: &Store,
    postings: Postings,
    intersection: &Intersection,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    // Each filter is a union of ranges of postings; every range is read at once. With a value
    // filter, the status and due date are read from its postings (they carry them) and no status
    // posting is read: the request costs the postings of its values, not of every billing in a
    // status.
    let mut filters_ranges: Vec<Vec<(Vec<String>, Sort)>> = Vec::new();
    if intersection.values.is_empty() {
        if let Some(ranges) = &intersection.ranges {
            let ranges = ranges
                .iter()
                .map(|range| {
                    (
                        postings.shards(Some(&billing_facet::status(range.status))),
                        keys::billing::posting_dates(range.from, range.to),
                    )
                })
                .collect();
            filters_ranges.push(ranges);
        }
    }
    if let Some(created) = intersection.created {
        filters_ranges.push(vec![(
            postings.shards(Some(billing_facet::CREATED)),
            keys::billing::posting_dates(Some(created.from), Some(created.to)),
        )]);
    }
    let admits = |posting: &Item| in_ranges(intersection, posting);
    let value_reads = intersection
        .values
        .iter()
        .map(|value| ids_where(store, postings.shards(Some(&value.facet())), Sort::All, admits));
    let reads =
        filters_ranges.iter().flatten().map(|(shards, sort)| ids_where(store, shards.clone(), sort.clone(), |_| true));
    let search = async {
        match intersection.search.as_deref().filter(|t| !t.is_empty()) {
            Some(term) => super::search::searched(store, postings.account, postings.billing_type, term).await.map(Some),
            None => Ok(None),
        }
    };
    let (valued, read, searched) =
        tokio::try_join!(futures::future::try_join_all(value_reads), futures::future::try_join_all(reads), search)?;
    let mut read = read.into_iter();
    let mut sets: Vec<BTreeSet<i64>> = Vec::new();
    sets.extend(valued);
    for ranges in &filters_ranges {
        sets.push(read.by_ref().take(ranges.len()).flatten().collect());
    }
    let partial = searched.as_ref().is_some_and(|(_, stopped)| *stopped);
    sets.extend(searched.map(|(found, _)| found));
    // Smallest first: intersecting keeps what every filter admits.
    sets.sort_by_key(BTreeSet::len);
    let mut sets = sets.into_iter();
    let Some(mut found) = sets.next() else { return Ok((BTreeSet::new(), partial)) };
    for other in sets {
        found.retain(|id| other.contains(id));
    }
    Ok((found, partial))
}

/// The ids of `intersection` (several values, or a value and creation dates, no search) from the
/// postings of the value `driver` names alone, each of which carries its billing's other values
/// and creation date (`f`): none when one of them was written before they were carried (the
/// list then reads [`matching`]).
pub async fn carried(
    store: &Store,
    postings: Postings,
    driver: &Driver,
    intersection: &Intersection,
) -> Result<Option<BTreeSet<i64>>, Refusal> {
    let driver = match driver {
        Driver::Fixed(value) => value.facet(),
        Driver::SmallestCount(values) => smallest_count(store, postings, values).await?,
    };
    let facets: Vec<String> = intersection.values.iter().map(Value::facet).collect();
    let others: Vec<&str> = facets.iter().map(String::as_str).filter(|facet| *facet != driver).collect();
    let uncarried = AtomicBool::new(false);
    let keep = |posting: &Item| {
        let Some(carried) = ValuePosting::read(posting).carried else {
            uncarried.store(true, Ordering::Relaxed);
            return false;
        };
        let (facets, created) = keys::billing::read_carried_facets(carried);
        let in_created = intersection.created.is_none_or(|range| created.is_some_and(|d| range.contains(d)));
        in_ranges(intersection, posting) && in_created && others.iter().all(|other| facets.contains(other))
    };
    let found = ids_where(store, postings.shards(Some(&driver)), Sort::All, keep).await?;
    Ok((!uncarried.load(Ordering::Relaxed)).then_some(found))
}

/// Of bank rules and categories, the facet of the one with the smallest count in the type's
/// counter (`r<rule>`, `k<category>`, read at once; the first of equals).
async fn smallest_count(store: &Store, postings: Postings, values: &[Value]) -> Result<String, Refusal> {
    let counted: Vec<(String, String)> =
        values.iter().filter_map(|value| Some((value.facet(), value.tally()?.name()))).collect();
    let counter = postings.counter();
    let counts = counted.iter().map(|(_, tally)| shards::sum_of(store, counter.clone(), tally));
    let counts = futures::future::try_join_all(counts).await?;
    let smallest = counted.into_iter().zip(counts).min_by_key(|(_, count)| *count).map(|((facet, _), _)| facet);
    Ok(smallest.unwrap_or_default())
}
