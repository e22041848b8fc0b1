//! `GET /v1/billings` (§4.2): which billings a list shows, in order `id` descending. An unfiltered
//! list reads its page through the key partition; a filtered one reads the postings of its filters
//! (`super::postings`), key-sized items of the matching billings only, intersects them, and reads
//! the page's billings. `s` reads every contact's posting, every billing's key entry (which carries
//! its contact) and every evincive posting, keeping only the matches (`searched`).

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashSet};

use chrono::NaiveDate;

use super::model::Billing;
use crate::http::{Pagination, Params};
use crate::refusal::Refusal;
use crate::store::keys::{self, billing_facet};
use crate::store::records::{self, Listed};
use crate::store::{item, postings};
use crate::store::{KeyRange, Sort, Store};
use crate::values::calendar::parse_date;
use crate::values::ids::parse_positive;
use crate::values::text::sort_key;
use crate::values::{
    AccountId, BankRuleId, BillCategoryId, BillingId, BillingStatus, BillingType, ContactId, ContactType,
};

/// One accepted value of `status`: a persisted status or an aggregate of §3.1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StatusFilter {
    Exactly(BillingStatus),
    /// Collectable and due today or later.
    Opened,
    /// Collectable and due before today.
    Expired,
    /// `paid` plus `available`.
    Paid,
}

impl StatusFilter {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "opened" => Some(StatusFilter::Opened),
            "expired" => Some(StatusFilter::Expired),
            "paid" => Some(StatusFilter::Paid),
            other => BillingStatus::parse(other).map(StatusFilter::Exactly),
        }
    }
}

/// An id filter: which field of the entry it tests.
#[derive(Clone, Copy, Debug, PartialEq)]
enum IdField {
    Contact,
    Parent,
    BankRule,
    Category,
}

impl IdField {
    /// The facet of the postings of the billings whose field is `id`.
    fn facet(self, id: i64) -> String {
        match self {
            IdField::Contact => billing_facet::contact(ContactId::new(id)),
            IdField::Parent => billing_facet::parent(BillingId::new(id)),
            IdField::BankRule => billing_facet::bank_rule(BankRuleId::new(id)),
            IdField::Category => billing_facet::category(BillCategoryId::new(id)),
        }
    }

    /// Their count in the type's counter, when it is kept (a bank rule's, a category's).
    fn tally(self, id: i64) -> Option<String> {
        match self {
            IdField::BankRule => Some(super::postings::rule_tally(BankRuleId::new(id))),
            IdField::Category => Some(super::postings::category_tally(BillCategoryId::new(id))),
            IdField::Contact | IdField::Parent => None,
        }
    }
}

#[derive(Debug, Default)]
struct Filters {
    statuses: Option<Vec<StatusFilter>>,
    numbers: Vec<(IdField, i64)>,
    your_code: Option<String>,
    created: Option<(NaiveDate, NaiveDate)>,
    due: Option<(NaiveDate, NaiveDate)>,
    search: Option<String>,
    impossible: bool,
}

fn range(params: &Params, start: &str, end: &str) -> Option<(NaiveDate, NaiveDate)> {
    Some((parse_date(params.get(start)?)?, parse_date(params.get(end)?)?))
}

/// Where the counts per status of a list's one value (with statuses or due dates) are kept.
#[derive(Clone, Copy)]
enum ValueCounts {
    /// A bank rule's: `r<rule>S<status>` in the type's counter and on its days
    /// (`postings::rule_status_tally`).
    InTypeCounter,
    /// A category's: its own counter and days (`postings::category_counts`).
    Own(BillCategoryId),
}

impl Filters {
    fn from(params: &Params) -> Self {
        let mut f = Filters::default();
        if let Some(text) = params.get("status") {
            // However often a status is named, `merged` reads its range once.
            let parsed: Vec<StatusFilter> = text.split_whitespace().filter_map(StatusFilter::parse).collect();
            f.impossible |= parsed.is_empty();
            f.statuses = Some(parsed);
        }
        for (param, field) in [
            ("contact_id", IdField::Contact),
            ("billing_id", IdField::Parent),
            ("bank_rule_id", IdField::BankRule),
            ("bill_category_id", IdField::Category),
        ] {
            if let Some(value) = params.get(param) {
                match parse_positive(value) {
                    Ok(id) => f.numbers.push((field, id)),
                    Err(_) => f.impossible = true,
                }
            }
        }
        f.your_code = params.get("your_code").map(str::to_owned);
        f.created = range(params, "start_created_at", "end_created_at");
        f.due = range(params, "start_due_date", "end_due_date");
        f.search = params.get("s").map(|s| s.trim().to_owned());
        // A term longer than any text a billing's search reads cannot match: no read at all.
        f.impossible |= f.search.as_deref().is_some_and(crate::values::text::beyond_search);
        f
    }

    /// The postings and the count of a list by one bank rule or one category and nothing else
    /// (`counted_alone`).
    fn counted_alone(&self) -> Option<(String, String)> {
        let alone = self.statuses.is_none() && self.due.is_none();
        self.counted_value().filter(|_| alone).map(|(facet, tally, _)| (facet, tally))
    }

    /// The postings and the count of the list's one bank rule or category, when nothing but
    /// statuses and due dates filter beside it, and where its counts per status are kept.
    fn counted_value(&self) -> Option<(String, String, ValueCounts)> {
        let others = self.your_code.is_some() || self.created.is_some() || self.search.is_some() || self.impossible;
        let [(field, id)] = self.numbers.as_slice() else { return None };
        let counts = match field {
            _ if others => return None,
            IdField::BankRule => ValueCounts::InTypeCounter,
            IdField::Category => ValueCounts::Own(BillCategoryId::new(*id)),
            IdField::Contact | IdField::Parent => return None,
        };
        Some((field.facet(*id), field.tally(*id)?, counts))
    }

    /// The statuses and due dates of a list by `status`, a due-date range, or both, and nothing
    /// else: their counts give its total (`by_status`).
    fn dated_alone(&self, today: NaiveDate) -> Option<Vec<StatusRange>> {
        let others = !self.numbers.is_empty()
            || self.your_code.is_some()
            || self.created.is_some()
            || self.search.is_some()
            || self.impossible;
        if others {
            return None;
        }
        self.admitted(today)
    }

    /// The creation dates of a list by a creation-date range and nothing else: the days' counts
    /// give its total (`by_created`).
    fn created_alone(&self) -> Option<(NaiveDate, NaiveDate)> {
        let others = self.statuses.is_some()
            || !self.numbers.is_empty()
            || self.your_code.is_some()
            || self.due.is_some()
            || self.search.is_some()
            || self.impossible;
        self.created.filter(|_| !others)
    }

    /// The statuses and due dates the list admits, each status's ranges merged (`merged`): none
    /// when neither `status` nor a due-date range filters it; a due-date range alone admits every
    /// status in it.
    fn admitted(&self, today: NaiveDate) -> Option<Vec<StatusRange>> {
        let (due_from, due_to) = self.due.map_or((None, None), |(from, to)| (Some(from), Some(to)));
        let statuses: Vec<StatusFilter> = match &self.statuses {
            Some(statuses) => statuses.clone(),
            None if self.due.is_some() => BillingStatus::ALL.iter().map(|s| StatusFilter::Exactly(*s)).collect(),
            None => return None,
        };
        let mut admitted = Vec::new();
        for filter in statuses {
            for (status, from, to) in status_ranges(filter, today) {
                let (from, to) = (narrowed(from, due_from, true), narrowed(to, due_to, false));
                if from.zip(to).is_none_or(|(from, to)| from <= to) {
                    admitted.push((status, from, to));
                }
            }
        }
        Some(merged(admitted))
    }

    /// No filter but the billing type: the list can skip to its page by the key partition.
    fn is_empty(&self) -> bool {
        self.statuses.is_none() && self.numbers.is_empty() && !self.beyond_values_and_statuses()
    }

    /// A filter other than the id values and the statuses (`your_code`, a date range, a search),
    /// or one that matches nothing.
    fn beyond_values_and_statuses(&self) -> bool {
        self.your_code.is_some()
            || self.created.is_some()
            || self.due.is_some()
            || self.search.is_some()
            || self.impossible
    }
}

/// The billing ids of the postings in `sort`'s range of every shard of a partition that `keep`
/// admits (their sort keys end in the id): the shards read at once, each a page (a megabyte) per
/// round trip, holding only the ids.
async fn ids_where(
    store: &Store,
    shards: Vec<String>,
    sort: Sort,
    keep: impl Fn(&crate::store::Item) -> bool + Sync,
) -> Result<BTreeSet<i64>, Refusal> {
    Ok(ids_within(store, shards, sort, usize::MAX, keep).await?.0)
}

/// [`ids_where`] reading at most `limit` postings of each shard, and whether one stopped there.
async fn ids_within(
    store: &Store,
    shards: Vec<String>,
    sort: Sort,
    limit: usize,
    keep: impl Fn(&crate::store::Item) -> bool + Sync,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let keep = &keep;
    let reads = shards.into_iter().map(|partition| {
        let range = KeyRange::listing(partition, sort.clone(), false);
        async move {
            let mut ids = Vec::new();
            let stopped = postings::scan(store, &range, limit, |posting| {
                if keep(posting) {
                    ids.extend(item::text(posting, "sk").and_then(postings::id_at_end));
                }
            })
            .await?;
            Ok::<_, Refusal>((ids, stopped))
        }
    });
    let mut found = (BTreeSet::new(), false);
    for (ids, stopped) in futures::future::try_join_all(reads).await? {
        found.0.extend(ids);
        found.1 |= stopped;
    }
    Ok(found)
}

/// A range of dates in date-ordered postings (`<date>#<id>`): from `from`, up to `to`, both
/// included.
fn dates(from: Option<NaiveDate>, to: Option<NaiveDate>) -> Sort {
    let low = from.map(|d| format!("{d}#")).unwrap_or_else(|| "0".to_owned());
    let high = to.map(|d| format!("{d}#9999999999")).unwrap_or_else(|| "9".to_owned());
    Sort::Between(low, high)
}

/// A status and the due dates admitted in it (either end open).
type StatusRange = (BillingStatus, Option<NaiveDate>, Option<NaiveDate>);

/// The statuses and due-date bounds a `status` value reads: a persisted status, or an aggregate
/// as the collectable statuses due from or before today.
fn status_ranges(filter: StatusFilter, today: NaiveDate) -> Vec<StatusRange> {
    let collectable = || BillingStatus::ALL.iter().copied().filter(|s| s.collectable());
    match filter {
        StatusFilter::Exactly(status) => vec![(status, None, None)],
        StatusFilter::Opened => collectable().map(|s| (s, Some(today), None)).collect(),
        StatusFilter::Expired => collectable().map(|s| (s, None, today.pred_opt())).collect(),
        StatusFilter::Paid => vec![(BillingStatus::Paid, None, None), (BillingStatus::Available, None, None)],
    }
}

/// Whether a billing in `status`, due on `due`, is in one of `ranges` (a range with a bound
/// admits no billing whose due date is unknown).
fn within(ranges: &[StatusRange], status: BillingStatus, due: Option<NaiveDate>) -> bool {
    ranges.iter().any(|(s, from, to)| {
        *s == status
            && match (from, to) {
                (None, None) => true,
                (from, to) => due.is_some_and(|d| from.is_none_or(|f| d >= f) && to.is_none_or(|t| d <= t)),
            }
    })
}

/// The ranges of each status joined where they overlap or touch, so that a status is read at most
/// once per separate range: `opened expired` reads each collectable status once, whole, and
/// however many words a `status` repeats, a request reads at most one range per status.
fn merged(mut ranges: Vec<StatusRange>) -> Vec<StatusRange> {
    // Per status, open lower ends first, then by the lower end.
    ranges.sort_by_key(|(status, from, _)| (status.as_str(), *from));
    let mut out: Vec<StatusRange> = Vec::new();
    for (status, from, to) in ranges {
        match out.last_mut() {
            Some((last, _, last_to)) if *last == status => {
                let touches = match (*last_to, from) {
                    (None, _) | (_, None) => true,
                    (Some(end), Some(start)) => end.succ_opt().is_none_or(|next| start <= next),
                };
                if touches {
                    *last_to = last_to.zip(to).map(|(a, b)| a.max(b));
                    continue;
                }
                out.push((status, from, to));
            }
            _ => out.push((status, from, to)),
        }
    }
    out
}

/// The later of two lower bounds, the earlier of two upper ones.
fn narrowed(a: Option<NaiveDate>, b: Option<NaiveDate>, later: bool) -> Option<NaiveDate> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if later { a.max(b) } else { a.min(b) }),
        (a, b) => a.or(b),
    }
}

/// The billings `s` finds: those whose contact's description contains it or whose document is
/// its digits, and those whose `evincive` contains it. Reads, at once, every `ALL` posting of the
/// account's contacts (both types) and every evincive posting (four shards), a page (a megabyte)
/// per round trip, keeping only the matches; then the billings of the matching contacts: up to
/// [`PAYERS_READ_APART`] from their own postings, more from every billing's key entry
/// (`billed_to`). At most `postings::SEARCH_SCAN` postings of each partition: beyond, it says it
/// stopped.
async fn searched(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    term: &str,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let digits: String = term.chars().filter(char::is_ascii_digit).collect();
    let folded = sort_key(term);
    let (digits, folded) = (digits.as_str(), folded.as_str());
    let contact_scans = ContactType::ALL.iter().map(|contact_type| async move {
        let range = KeyRange::listing(keys::contact_postings(account, contact_type.as_str(), "ALL"), Sort::All, true);
        let mut payers = Vec::new();
        let stopped = postings::scan(store, &range, postings::SEARCH_SCAN, |posting| {
            let sk = item::text(posting, "sk").unwrap_or_default();
            let described = sk.rsplit_once('#').is_some_and(|(description, _)| description.contains(folded));
            let documented = !digits.is_empty() && item::text(posting, "d") == Some(digits);
            if described || documented {
                payers.extend(postings::id_at_end(sk));
            }
        })
        .await?;
        Ok::<_, Refusal>((payers, stopped))
    });
    let texts = keys::billing_posting_shards(account, billing_type.as_str(), Some(billing_facet::EVINCIVE));
    let described = |posting: &crate::store::Item| item::text(posting, "e").is_some_and(|text| text.contains(folded));
    let (payers, (described, stopped)) = tokio::try_join!(
        futures::future::try_join_all(contact_scans),
        ids_within(store, texts, Sort::All, postings::SEARCH_SCAN, described)
    )?;
    let (mut found, mut partial) = (described, stopped);
    let mut matched = HashSet::new();
    for (ids, stopped) in payers {
        partial |= stopped;
        matched.extend(ids);
    }
    if matched.len() <= PAYERS_READ_APART {
        // A few payers: their own postings, all at once.
        let shards = |contact: i64| {
            keys::billing_posting_shards(
                account,
                billing_type.as_str(),
                Some(&billing_facet::contact(ContactId::new(contact))),
            )
        };
        let billed = matched.iter().map(|contact| ids_where(store, shards(*contact), Sort::All, |_| true));
        for ids in futures::future::try_join_all(billed).await? {
            found.extend(ids);
        }
    } else {
        let (billed, stopped) = billed_to(store, account, billing_type, &matched).await?;
        partial |= stopped;
        found.extend(billed);
    }
    Ok((found, partial))
}

/// The payers whose billings a search reads from their own postings (4 queries each, at once);
/// past them it reads every billing's key entry instead (`billed_to`).
const PAYERS_READ_APART: usize = 100;

/// The billings of a type whose contact is one of `payers`: every key entry (which carries the
/// billing's contact) of the type's four shards, at once, a page per round trip, up to
/// `postings::SEARCH_SCAN` a shard; and whether it stopped there.
async fn billed_to(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    payers: &HashSet<i64>,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let entries = keys::billing_posting_shards(account, billing_type.as_str(), None);
    let billed = |entry: &crate::store::Item| {
        item::text(entry, "c").and_then(|c| c.parse::<i64>().ok()).is_some_and(|contact| payers.contains(&contact))
    };
    ids_within(store, entries, Sort::All, postings::SEARCH_SCAN, billed).await
}

/// The ids a filtered list shows: for each filter, the billings its postings name (a filter on a
/// value is one partition; a status, one partition per status in due-date order; a date range, one
/// range), intersected. Each costs about one read unit per 180 of its matches.
async fn matching(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    filters: &Filters,
    today: NaiveDate,
) -> Result<(BTreeSet<i64>, bool), Refusal> {
    let shards = |facet: &str| keys::billing_posting_shards(account, billing_type.as_str(), Some(facet));
    let mut values: Vec<String> = filters.numbers.iter().map(|(field, id)| field.facet(*id)).collect();
    values.extend(filters.your_code.as_deref().map(keys::your_code_facet));
    let admitted = filters.admitted(today);
    // Each filter is a union of ranges of postings; every range is read at once. With a value
    // filter, the status and due date are read from its postings (they carry them) and no status
    // posting is read: the request costs the postings of its values, not of every billing in a
    // status.
    let mut filters_ranges: Vec<Vec<(Vec<String>, Sort)>> = Vec::new();
    if values.is_empty() {
        if let Some(admitted) = &admitted {
            let ranges = admitted
                .iter()
                .map(|(status, from, to)| (shards(&billing_facet::status(*status)), dates(*from, *to)))
                .collect();
            filters_ranges.push(ranges);
        }
    }
    if let Some((from, to)) = filters.created {
        filters_ranges.push(vec![(shards(billing_facet::CREATED), dates(Some(from), Some(to)))]);
    }
    let admits = |item: &crate::store::Item| match (&admitted, item.get("v").and_then(|v| v.as_s().ok())) {
        (None, _) => true,
        (Some(admitted), Some(state)) => {
            super::postings::read_state(state).is_some_and(|(status, due)| within(admitted, status, Some(due)))
        }
        (Some(_), None) => false,
    };
    // Several values, or a value and creation dates (no search): one value's postings carry the
    // billing's other values and creation date, so the list reads the postings of the value that
    // likely holds the fewest billings and keeps those that name the others; the others' postings,
    // however many, are not read. A posting written before they were carried sends the list the
    // long way (every filter's postings).
    if filters.search.is_none() && (values.len() > 1 || (values.len() == 1 && filters.created.is_some())) {
        let driver = fewest(store, account, billing_type, filters).await?;
        let others: Vec<&str> = values.iter().map(String::as_str).filter(|facet| *facet != driver).collect();
        let uncarried = std::sync::atomic::AtomicBool::new(false);
        let keep = |posting: &crate::store::Item| {
            let Some(carried) = item::text(posting, "f") else {
                uncarried.store(true, std::sync::atomic::Ordering::Relaxed);
                return false;
            };
            let (facets, created) = super::postings::read_facets(carried);
            let in_created = filters.created.is_none_or(|(from, to)| created.is_some_and(|d| from <= d && d <= to));
            admits(posting) && in_created && others.iter().all(|other| facets.contains(other))
        };
        let found = ids_where(store, shards(&driver), Sort::All, keep).await?;
        if !uncarried.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok((found, false));
        }
    }
    let value_reads = values.iter().map(|facet| ids_where(store, shards(facet), Sort::All, admits));
    let reads =
        filters_ranges.iter().flatten().map(|(shards, sort)| ids_where(store, shards.clone(), sort.clone(), |_| true));
    let search = async {
        match filters.search.as_deref().filter(|t| !t.is_empty()) {
            Some(term) => searched(store, account, billing_type, term).await.map(Some),
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

/// Of a list's value filters, the facet whose postings likely hold the fewest billings: a
/// `your_code`'s, then a parent booklet's, then a contact's (a few billings each); of bank rules
/// and categories, the one with the smallest count in the type's counter (`r<rule>`,
/// `k<category>`, read at once).
async fn fewest(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    filters: &Filters,
) -> Result<String, Refusal> {
    if let Some(code) = &filters.your_code {
        return Ok(keys::your_code_facet(code));
    }
    for few in [IdField::Parent, IdField::Contact] {
        if let Some((field, id)) = filters.numbers.iter().find(|(field, _)| *field == few) {
            return Ok(field.facet(*id));
        }
    }
    let counted: Vec<(String, String)> =
        filters.numbers.iter().filter_map(|(field, id)| Some((field.facet(*id), field.tally(*id)?))).collect();
    if let [(only, _)] = counted.as_slice() {
        return Ok(only.clone());
    }
    let counter = keys::billing_count_shards(account, billing_type.as_str());
    let counts = counted.iter().map(|(_, tally)| crate::store::shards::sum_of(store, counter.clone(), tally));
    let counts = futures::future::try_join_all(counts).await?;
    let smallest = counted.into_iter().zip(counts).min_by_key(|(_, count)| *count).map(|((facet, _), _)| facet);
    Ok(smallest.unwrap_or_default())
}

/// An unfiltered page: the total from the counter's shards, then the page from the key partition
/// (`in_id_order`).
async fn unfiltered(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    let counter = keys::billing_count_shards(account, billing_type.as_str());
    let total = async { Ok(usize::try_from(crate::store::shards::sum(store, counter).await?).unwrap_or_default()) };
    let shards = keys::billing_posting_shards(account, billing_type.as_str(), None);
    in_id_order(store, account, shards, total, pagination).await
}

/// A page of the billings of one bank rule or one category, and nothing else: the total from the
/// rule's or category's count in the billings counter (`postings::tallies`), then the page from
/// its postings, which are in id order (`in_id_order`). What it reads is the page's, whatever
/// the account or the rule holds.
async fn counted_alone(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    (facet, tally): (String, String),
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    let counter = keys::billing_count_shards(account, billing_type.as_str());
    let total =
        async { Ok(usize::try_from(crate::store::shards::sum_of(store, counter, &tally).await?).unwrap_or_default()) };
    let shards = keys::billing_posting_shards(account, billing_type.as_str(), Some(&facet));
    in_id_order(store, account, shards, total, pagination).await
}

/// A page of the billings in some statuses, each within due dates (`status`, a due-date range,
/// or both): the total from the counts (a status's whole count from the billings counter,
/// `postings::tallies`; a status between due dates from the counter's days,
/// `Record::dated_tallies`, read from the earliest bound on, so that `expired` reads the days from
/// today on and takes them off its statuses' counts), then the cheaper read of the page
/// (`cheaper_page`): every posting of the ranges, or a walk of the key entries, each carrying
/// its status and due date.
async fn by_status(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    ranges: &[StatusRange],
    counted: Counted,
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    let admits = |entry: &crate::store::Item| {
        let status = item::text(entry, "s").and_then(BillingStatus::parse);
        status.is_some_and(|status| within(ranges, status, item::text(entry, "d").and_then(parse_date)))
    };
    let postings = || async {
        let reads = ranges.iter().map(|(status, from, to)| {
            let facet = billing_facet::status(*status);
            let shards = keys::billing_posting_shards(account, billing_type.as_str(), Some(&facet));
            ids_where(store, shards, dates(*from, *to), |_| true)
        });
        Ok(futures::future::try_join_all(reads).await?.into_iter().flatten().collect())
    };
    cheaper_page(store, account, billing_type, counted, pagination, admits, postings).await
}

/// A page of the billings created between two dates (both included), and nothing else: the
/// total from the counter's days (each billing counted on its creation date,
/// `Record::dated_tallies`), then the cheaper read of the page (`cheaper_page`): the range's
/// creation-date postings, or a walk of the key entries, each carrying its creation date. A
/// recent range, the usual one, is where the walk starts.
async fn by_created(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    (from, to): (NaiveDate, NaiveDate),
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    let counter = keys::billing_count_shards(account, billing_type.as_str());
    let (all, days) = tokio::try_join!(
        crate::store::shards::sum(store, counter.clone()),
        crate::store::shards::days(store, &counter, Some(from), Some(to))
    )?;
    let created: i64 = days.values().filter_map(|counts| counts.get(billing_facet::CREATED)).sum();
    let positive = |n: i64| usize::try_from(n).unwrap_or_default();
    let counted = Counted { all: positive(all), total: positive(created) };
    let admits = |entry: &crate::store::Item| {
        item::text(entry, "t").and_then(parse_date).is_some_and(|created| from <= created && created <= to)
    };
    let postings = || async {
        let shards = keys::billing_posting_shards(account, billing_type.as_str(), Some(billing_facet::CREATED));
        Ok(ids_where(store, shards, dates(Some(from), Some(to)), |_| true).await?.into_iter().collect())
    };
    cheaper_page(store, account, billing_type, counted, pagination, admits, postings).await
}

/// The page of a list of `total` billings of `all` (the counts') that `admits` keeps of the
/// type's key entries, read the cheaper of two ways: every posting of the list (`postings`,
/// `total` of them), or a walk of the key entries newest first, the four shards in step
/// (`in_step`: about `reach × all / total` entries in all). A list that is a fair share of the
/// billings walks a few pages; a rare one reads its own postings, few by then. A walk that meets
/// fewer matches than the counts promised (the matches are older than the rest) stops after as
/// many entries as the postings hold and reads the postings: at worst about three times the
/// cheaper way.
async fn cheaper_page<Read>(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    counted: Counted,
    pagination: Pagination,
    admits: impl Fn(&crate::store::Item) -> bool,
    postings: impl FnOnce() -> Read,
) -> Result<Listed<Billing>, Refusal>
where
    Read: std::future::Future<Output = Result<Vec<i64>, Refusal>>,
{
    let total = counted.total;
    let Some(reach) = counted.reach(pagination) else { return Ok(Listed::new(Vec::new(), total)) };
    // A walk reads about `reach × spread` entries, each about 1.7 times a posting's bytes.
    let walk = (reach as f64 * counted.spread() * 2.0) as usize;
    let walked = match total <= walk {
        true => None,
        false => {
            let partitions = keys::billing_posting_shards(account, billing_type.as_str(), None);
            in_step(store, partitions, reach, counted.spread(), total, admits).await?
        }
    };
    let mut ids: Vec<i64> = match walked {
        Some(ids) => ids,
        None => postings().await?,
    };
    ids.sort_unstable_by_key(|id| Reverse(*id));
    ids.dedup();
    page_of(store, account, ids, total, pagination).await
}

/// What the counts say of a list by statuses and due dates.
struct Ranged {
    /// The type's billings, and those in the ranges.
    of_type: Counted,
    /// Whether every billing of the type carries the value whose count was read beside (a bank
    /// rule's or category's, `postings::tallies`); true without one.
    everyone: bool,
    /// The value's billings, and those of them in the ranges, when its counts per status are
    /// kept (a bank rule's, `postings::tallies`).
    of_value: Option<Counted>,
}

/// The billings a list is drawn from (`all`, whose entries a walk reads) and those it admits
/// (`total`), as their counts say.
#[derive(Clone, Copy)]
struct Counted {
    all: usize,
    total: usize,
}

impl Counted {
    /// How many of the list's newest matches a page needs (up to its end): none when it starts
    /// past the list's end.
    fn reach(&self, pagination: Pagination) -> Option<usize> {
        (pagination.offset() < self.total).then(|| pagination.offset().saturating_add(pagination.per_page))
    }

    /// How many entries a walk reads for one match, as the counts spread them (at least one).
    fn spread(&self) -> f64 {
        self.all.max(self.total) as f64 / self.total.max(1) as f64
    }
}

/// The count of the billings in `ranges`, with the type's whole count and `tally` (a value's
/// count) read beside it, and with `scoped` the value's own billings in the ranges (from its
/// counts per status, `<tally>S<status>`): each status's count in the billings counter, and for a
/// status within due dates the counter's days (`shards::days`), read once from the earliest bound
/// on. A range open below counts its status less the days after its end, so that `expired` reads
/// the days from today on, not the past.
async fn ranged_total(
    store: &Store,
    counter: &str,
    ranges: &[StatusRange],
    tally: Option<&str>,
    scoped: bool,
) -> Result<Ranged, Refusal> {
    let statuses: Vec<String> = ranges.iter().map(|(status, _, _)| billing_facet::status(*status)).collect();
    let of_value: Vec<String> = match (tally, scoped) {
        (Some(tally), true) => statuses.iter().map(|status| format!("{tally}{status}")).collect(),
        _ => Vec::new(),
    };
    let mut attributes: Vec<&str> = vec!["value"];
    attributes.extend(statuses.iter().map(String::as_str));
    attributes.extend(tally);
    attributes.extend(of_value.iter().map(String::as_str));
    let bounded: Vec<&StatusRange> = ranges.iter().filter(|(_, from, to)| from.is_some() || to.is_some()).collect();
    // From the earliest day a bounded range counts on (its start, or the day after its end when
    // it is open below), to the latest (none when one is open above or below).
    let low = bounded.iter().filter_map(|(_, from, to)| from.or_else(|| to.and_then(|t| t.succ_opt()))).min();
    let high = match bounded.iter().any(|(_, from, to)| from.is_none() || to.is_none()) {
        true => None,
        false => bounded.iter().filter_map(|(_, _, to)| *to).max(),
    };
    let days = async {
        match bounded.is_empty() {
            true => Ok(Default::default()),
            false => crate::store::shards::days(store, counter, low, high).await,
        }
    };
    let (sums, days) = tokio::try_join!(crate::store::shards::sums_of(store, counter.to_owned(), &attributes), days)?;
    let on = |name: &str, from: Option<NaiveDate>, to: Option<NaiveDate>| -> i64 {
        days.range(from.unwrap_or(NaiveDate::MIN)..=to.unwrap_or(NaiveDate::MAX))
            .filter_map(|(_, counts)| counts.get(name))
            .sum()
    };
    // The ranges' count, each status's under `names` with its whole count in `wholes`.
    let count = |names: &[String], wholes: &[i64]| -> i64 {
        let mut total = 0i64;
        for (((_, from, to), name), whole) in ranges.iter().zip(names).zip(wholes) {
            total += match (from, to) {
                (None, None) => *whole,
                (None, Some(to)) => whole - to.succ_opt().map_or(0, |after| on(name, Some(after), None)),
                (from, to) => on(name, *from, *to),
            }
            .max(0);
        }
        total
    };
    let positive = |n: i64| usize::try_from(n).unwrap_or_default();
    let n = statuses.len();
    let total = count(&statuses, &sums[1..=n]);
    let everyone = tally.is_none() || sums.get(n + 1) == sums.first();
    let of_value = (!of_value.is_empty())
        .then(|| Counted { all: positive(sums[n + 1]), total: positive(count(&of_value, &sums[n + 2..])) });
    Ok(Ranged { of_type: Counted { all: positive(sums[0]), total: positive(total) }, everyone, of_value })
}

/// A page of one bank rule's or category's billings in some statuses, each within due dates: the
/// total from the value's counts per status (and day), then a walk of the value's postings
/// newest first, each carrying its billing's status and due date, the four shards in step
/// (`in_step`: about `reach × value's billings / total` postings, at most the value's). A rare
/// status of a large value reads far into it; a fair share reads about its page.
async fn by_value_status(
    store: &Store,
    account: AccountId,
    billing_type: BillingType,
    facet: &str,
    ranges: &[StatusRange],
    counted: Counted,
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    let Some(reach) = counted.reach(pagination) else { return Ok(Listed::new(Vec::new(), counted.total)) };
    let admits = |posting: &crate::store::Item| {
        let state = item::text(posting, "v").and_then(super::postings::read_state);
        state.is_some_and(|(status, due)| within(ranges, status, Some(due)))
    };
    let shards = keys::billing_posting_shards(account, billing_type.as_str(), Some(facet));
    let ids = in_step(store, shards, reach, counted.spread(), usize::MAX, admits).await?.unwrap_or_default();
    page_of(store, account, ids, counted.total, pagination).await
}

/// The newest `reach` ids that `admits` keeps among the items of `partitions` (the shards of one
/// facet, sort keys ending in the id), reading them newest first, the shards in step: each round
/// reads, at once, a page of every shard that may still hold one of the newest `reach` (not ended,
/// its lowest id read above the `reach`-th newest match known), sized to what is still missing
/// (at `spread` items per match, then at the rate met so far, shared among the shards that have
/// not ended) or to the gap left above that match. A shard with few matches stops where the
/// others found the page: about `reach × spread` items in all, however the matches fall in the
/// shards. None when `budget` items were read without the page.
async fn in_step(
    store: &Store,
    partitions: Vec<String>,
    reach: usize,
    spread: f64,
    budget: usize,
    admits: impl Fn(&crate::store::Item) -> bool,
) -> Result<Option<Vec<i64>>, Refusal> {
    /// One shard: where its next page starts, the lowest id it read, whether it ended.
    struct Walk {
        range: KeyRange,
        start: Option<crate::store::Item>,
        lowest: i64,
        ended: bool,
    }
    let mut walks: Vec<Walk> = partitions
        .into_iter()
        .map(|partition| Walk {
            range: KeyRange::listing(partition, Sort::All, false),
            start: None,
            lowest: i64::MAX,
            ended: false,
        })
        .collect();
    let (mut found, mut read) = (Vec::<i64>::new(), 0usize);
    loop {
        found.sort_unstable_by_key(|id| Reverse(*id));
        // The reach-th newest match known: a shard read below it has nothing more for the page.
        let floor = found.get(reach.saturating_sub(1)).copied();
        let pending: Vec<usize> = (0..walks.len())
            .filter(|n| !walks[*n].ended && floor.is_none_or(|floor| walks[*n].lowest > floor))
            .collect();
        if pending.is_empty() {
            found.truncate(reach);
            return Ok(Some(found));
        }
        if read >= budget {
            return Ok(None);
        }
        let open = walks.iter().filter(|walk| !walk.ended).count().max(1) as f64;
        let rate = match found.len() {
            0 => spread,
            matched => spread.max(read as f64 / matched as f64),
        };
        let limit = |walk: &Walk| -> usize {
            let wanted = match floor {
                None => (reach - found.len()) as f64 * rate / open,
                Some(floor) => walk.lowest.saturating_sub(floor) as f64 / walks.len() as f64,
            };
            ((wanted * 1.1).ceil() as usize).clamp(1, 100_000)
        };
        let reads = pending.iter().map(|n| store.page(&walks[*n].range, limit(&walks[*n]), walks[*n].start.clone()));
        let pages = futures::future::try_join_all(reads).await?;
        for (n, page) in pending.into_iter().zip(pages) {
            let walk = &mut walks[n];
            read += page.items.len();
            for entry in &page.items {
                let Some(id) = item::text(entry, "sk").and_then(keys::id_of) else { continue };
                walk.lowest = walk.lowest.min(id);
                if admits(entry) {
                    found.push(id);
                }
            }
            match page.next {
                Some(next) => walk.start = Some(next),
                None => walk.ended = true,
            }
        }
    }
}

/// The page of a list whose postings (sort keys ending in the id) are in `shards`, its total
/// from `total` (the counter's): the keys up to the page's end, newest first, the shards in step
/// (`in_step`: about the page's end in all, not the page's end in each shard), then the page's
/// billings. Cost grows with the page number by about one read unit per 90 billings skipped, not
/// with the size of the billings nor with the matches past the page.
async fn in_id_order(
    store: &Store,
    account: AccountId,
    shards: Vec<String>,
    total: impl std::future::Future<Output = Result<usize, Refusal>>,
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    // Every key is a match: a quarter of the page's end from each shard at first (and a tenth
    // more), then what the shards that ended early left missing, from the others.
    let walk = |end: usize| async move {
        Ok(in_step(store, shards, end, 1.0, usize::MAX, |_| true).await?.unwrap_or_default())
    };
    // A page within the first entries walks beside the count (`postings::BESIDE_THE_COUNT`); a
    // deeper one after it, and not at all past the end.
    let end = pagination.offset().saturating_add(pagination.per_page);
    let (total, ids) = match end <= crate::store::postings::BESIDE_THE_COUNT {
        true => tokio::try_join!(total, walk(end))?,
        false => {
            let total = total.await?;
            match (Counted { all: total, total }).reach(pagination) {
                Some(end) => (total, walk(end).await?),
                None => return Ok(Listed::new(Vec::new(), total)),
            }
        }
    };
    page_of(store, account, ids, total, pagination).await
}

/// The page `pagination` asks for of billing ids newest first, read in one batch, with the list's
/// total.
async fn page_of(
    store: &Store,
    account: AccountId,
    newest_first: impl IntoIterator<Item = i64>,
    total: usize,
    pagination: Pagination,
) -> Result<Listed<Billing>, Refusal> {
    let page: Vec<_> = newest_first
        .into_iter()
        .skip(pagination.offset())
        .take(pagination.per_page)
        .map(|id| records::key_of::<Billing>(account, BillingId::new(id)))
        .collect();
    let records = store.batch_get(&page).await?.into_iter().map(records::read).collect::<Result<Vec<_>, _>>()?;
    Ok(Listed::new(records, total))
}

/// The page of billings a query asks for, and the total after its filters.
pub async fn list(
    store: &Store,
    account: AccountId,
    params: &Params,
    today: NaiveDate,
) -> Result<Listed<Billing>, Refusal> {
    let pagination = params.pagination();
    let filters = Filters::from(params);
    let billing_type = BillingType::parse(params.get("billing_type").unwrap_or("billing").trim());
    let Some(billing_type) = billing_type else {
        // Anything but a billing type matches nothing.
        return Ok(Listed::empty());
    };
    if filters.impossible {
        return Ok(Listed::empty());
    }
    if filters.is_empty() {
        return unfiltered(store, account, billing_type, pagination).await;
    }
    if let Some(counted) = filters.counted_alone() {
        return counted_alone(store, account, billing_type, counted, pagination).await;
    }
    if let Some(created) = filters.created_alone() {
        return by_created(store, account, billing_type, created, pagination).await;
    }
    let counter = keys::billing_count_shards(account, billing_type.as_str());
    if let Some(ranges) = filters.dated_alone(today) {
        let ranged = ranged_total(store, &counter, &ranges, None, false).await?;
        return by_status(store, account, billing_type, &ranges, ranged.of_type, pagination).await;
    }
    // One bank rule with statuses or due dates: when every billing of the type carries it (its
    // count, read with the others, is the type's total: an account with one bank rule), it
    // filters nothing, and the list is the statuses' and dates' alone, read about its page
    // instead of every posting of the rule; otherwise the rule's counts per status give the total
    // and a walk of its postings the page. A category's own counter gives its total, and a walk
    // of its postings the page; but when that counter does not hold every billing of the
    // category (billings written before it: `ops billing recount` fills it), its postings are
    // read whole.
    if let (Some((facet, tally, counts)), Some(ranges)) = (filters.counted_value(), filters.admitted(today)) {
        match counts {
            ValueCounts::InTypeCounter => {
                let mut ranged = ranged_total(store, &counter, &ranges, Some(&tally), true).await?;
                if ranged.everyone {
                    return by_status(store, account, billing_type, &ranges, ranged.of_type, pagination).await;
                }
                if let Some(of_value) = ranged.of_value.take() {
                    return by_value_status(store, account, billing_type, &facet, &ranges, of_value, pagination).await;
                }
            }
            ValueCounts::Own(category) => {
                let own = keys::billing_category_count_shards(account, billing_type.as_str(), category.get());
                let (ranged, in_type) = tokio::try_join!(ranged_total(store, &own, &ranges, None, false), async {
                    Ok(crate::store::shards::sum_of(store, counter.clone(), &tally).await?)
                })?;
                if i64::try_from(ranged.of_type.all).ok() == Some(in_type.max(0)) {
                    return by_value_status(store, account, billing_type, &facet, &ranges, ranged.of_type, pagination)
                        .await;
                }
            }
        }
    }
    let (found, partial) = matching(store, account, billing_type, &filters, today).await?;
    let total = found.len();
    Ok(page_of(store, account, found.into_iter().rev(), total, pagination).await?.partial_if(partial))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_aggregates_read_the_collectable_statuses_by_due_date() {
        let today: NaiveDate = "2026-11-22".parse().unwrap();
        let yesterday: NaiveDate = "2026-11-21".parse().unwrap();
        let opened = status_ranges(StatusFilter::parse("opened").unwrap(), today);
        let statuses: Vec<BillingStatus> = opened.iter().map(|(s, _, _)| *s).collect();
        assert_eq!(
            statuses,
            [
                BillingStatus::Opened,
                BillingStatus::UnderReview,
                BillingStatus::AwaitingCapture,
                BillingStatus::Protested
            ]
        );
        assert!(opened.iter().all(|(_, from, to)| *from == Some(today) && to.is_none()));
        let expired = status_ranges(StatusFilter::parse("expired").unwrap(), today);
        assert!(expired.iter().all(|(_, from, to)| from.is_none() && *to == Some(yesterday)));
        let paid = status_ranges(StatusFilter::parse("paid").unwrap(), today);
        assert_eq!(paid, [(BillingStatus::Paid, None, None), (BillingStatus::Available, None, None)]);
        let discharged = status_ranges(StatusFilter::parse("discharged").unwrap(), today);
        assert_eq!(discharged, [(BillingStatus::Discharged, None, None)]);
        assert_eq!(StatusFilter::parse("nope"), None);
        // A due range narrows an aggregate's own bound.
        assert_eq!(narrowed(Some(today), Some(yesterday), true), Some(today));
        assert_eq!(narrowed(None, Some(yesterday), false), Some(yesterday));
        assert_eq!(dates(Some(today), None), Sort::Between("2026-11-22#".into(), "9".into()));
        // `opened expired`, and any repetition, read each collectable status once, whole.
        let both: Vec<StatusRange> = [opened.clone(), expired.clone(), opened.clone()].concat();
        let joined = merged(both);
        assert_eq!(joined.len(), 4);
        assert!(joined.iter().all(|(_, from, to)| from.is_none() && to.is_none()), "{joined:?}");
        // Ranges apart stay apart.
        let day = |d: &str| Some(d.parse::<NaiveDate>().unwrap());
        let apart = vec![
            (BillingStatus::Paid, day("2026-01-10"), day("2026-01-20")),
            (BillingStatus::Paid, day("2026-01-01"), day("2026-01-05")),
            (BillingStatus::Paid, day("2026-01-06"), day("2026-01-07")),
        ];
        assert_eq!(
            merged(apart),
            vec![
                (BillingStatus::Paid, day("2026-01-01"), day("2026-01-07")),
                (BillingStatus::Paid, day("2026-01-10"), day("2026-01-20")),
            ]
        );
    }
}
