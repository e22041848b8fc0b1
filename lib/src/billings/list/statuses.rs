//! §3.1's statuses as a list reads them: a `status` value is a persisted status or an aggregate
//! (`opened`, `expired`, `paid`), and each admits some statuses, each between due dates
//! ([`StatusRange`]). [`admitted`] turns a query's `status` and due-date range into the ranges a
//! list reads, each status's ranges merged, so that however a request repeats itself a status is
//! read at most once per separate range.

use chrono::NaiveDate;

use super::query::{DateRange, StatusFilter};
use crate::values::BillingStatus;

/// A status and the due dates admitted in it, both included (either end open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusRange {
    pub status: BillingStatus,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
}

impl StatusRange {
    pub fn whole(status: BillingStatus) -> Self {
        StatusRange { status, from: None, to: None }
    }

    /// Whether its due dates are bounded at either end.
    pub fn bounded(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }

    /// Whether a billing in `status`, due on `due`, is in it (a bounded range admits no billing
    /// whose due date is unknown).
    fn admits(&self, status: BillingStatus, due: Option<NaiveDate>) -> bool {
        self.status == status
            && match (self.from, self.to) {
                (None, None) => true,
                (from, to) => due.is_some_and(|d| from.is_none_or(|f| d >= f) && to.is_none_or(|t| d <= t)),
            }
    }
}

/// The statuses and due-date bounds it reads: a persisted status whole, or an aggregate as the
/// collectable statuses due from or before `today`.
fn ranges(filter: StatusFilter, today: NaiveDate) -> Vec<StatusRange> {
    let collectable = || BillingStatus::ALL.iter().copied().filter(|s| s.collectable());
    let range = |status, from, to| StatusRange { status, from, to };
    match filter {
        StatusFilter::Exactly(status) => vec![StatusRange::whole(status)],
        StatusFilter::Opened => collectable().map(|s| range(s, Some(today), None)).collect(),
        StatusFilter::Expired => collectable().map(|s| range(s, None, today.pred_opt())).collect(),
        StatusFilter::Paid => {
            vec![StatusRange::whole(BillingStatus::Paid), StatusRange::whole(BillingStatus::Available)]
        }
    }
}

/// Whether a billing in `status`, due on `due`, is in one of `ranges`.
pub fn within(ranges: &[StatusRange], status: BillingStatus, due: Option<NaiveDate>) -> bool {
    ranges.iter().any(|range| range.admits(status, due))
}

/// The statuses and due dates a list by `statuses` and a due-date range admits, each status's
/// ranges merged: none when neither filters it; a due-date range alone admits every status in it.
/// Empty when they admit no day at all (`opened` with a range that ends before today).
pub fn admitted(
    statuses: Option<&[StatusFilter]>,
    due: Option<DateRange>,
    today: NaiveDate,
) -> Option<Vec<StatusRange>> {
    let (due_from, due_to) = due.map_or((None, None), |due| (Some(due.from), Some(due.to)));
    let filters: Vec<StatusFilter> = match statuses {
        Some(statuses) => statuses.to_vec(),
        None if due.is_some() => BillingStatus::ALL.iter().map(|s| StatusFilter::Exactly(*s)).collect(),
        None => return None,
    };
    let mut admitted = Vec::new();
    for filter in filters {
        for range in ranges(filter, today) {
            let from = narrowed(range.from, due_from, true);
            let to = narrowed(range.to, due_to, false);
            if from.zip(to).is_none_or(|(from, to)| from <= to) {
                admitted.push(StatusRange { status: range.status, from, to });
            }
        }
    }
    Some(merged(admitted))
}

/// The ranges of each status joined where they overlap or touch: `opened expired` reads each
/// collectable status once, whole.
fn merged(mut ranges: Vec<StatusRange>) -> Vec<StatusRange> {
    // Per status, open lower ends first, then by the lower end.
    ranges.sort_by_key(|range| (range.status.as_str(), range.from));
    let mut out: Vec<StatusRange> = Vec::new();
    for range in ranges {
        match out.last_mut() {
            Some(last) if last.status == range.status => {
                let touches = match (last.to, range.from) {
                    (None, _) | (_, None) => true,
                    (Some(end), Some(start)) => end.succ_opt().is_none_or(|next| start <= next),
                };
                if touches {
                    last.to = last.to.zip(range.to).map(|(a, b)| a.max(b));
                    continue;
                }
                out.push(range);
            }
            _ => out.push(range),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn range(status: BillingStatus, from: Option<&str>, to: Option<&str>) -> StatusRange {
        StatusRange { status, from: from.map(day), to: to.map(day) }
    }

    #[test]
    fn status_aggregates_read_the_collectable_statuses_by_due_date() {
        let (today, yesterday) = (day("2026-11-22"), day("2026-11-21"));
        let opened = ranges(StatusFilter::parse("opened").unwrap(), today);
        let statuses: Vec<BillingStatus> = opened.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [
                BillingStatus::Opened,
                BillingStatus::UnderReview,
                BillingStatus::AwaitingCapture,
                BillingStatus::Protested
            ]
        );
        assert!(opened.iter().all(|r| r.from == Some(today) && r.to.is_none()));
        let expired = ranges(StatusFilter::parse("expired").unwrap(), today);
        assert!(expired.iter().all(|r| r.from.is_none() && r.to == Some(yesterday)));
        let paid = ranges(StatusFilter::parse("paid").unwrap(), today);
        assert_eq!(paid, [StatusRange::whole(BillingStatus::Paid), StatusRange::whole(BillingStatus::Available)]);
        let discharged = ranges(StatusFilter::parse("discharged").unwrap(), today);
        assert_eq!(discharged, [StatusRange::whole(BillingStatus::Discharged)]);
        assert_eq!(StatusFilter::parse("nope"), None);
        // A due range narrows an aggregate's own bound.
        assert_eq!(narrowed(Some(today), Some(yesterday), true), Some(today));
        assert_eq!(narrowed(None, Some(yesterday), false), Some(yesterday));
        // `opened expired`, and any repetition, read each collectable status once, whole.
        let joined = merged([opened.clone(), expired.clone(), opened.clone()].concat());
        assert_eq!(joined.len(), 4);
        assert!(joined.iter().all(|r| !r.bounded()), "{joined:?}");
        // Ranges apart stay apart.
        let paid = BillingStatus::Paid;
        let apart = vec![
            range(paid, Some("2026-01-10"), Some("2026-01-20")),
            range(paid, Some("2026-01-01"), Some("2026-01-05")),
            range(paid, Some("2026-01-06"), Some("2026-01-07")),
        ];
        assert_eq!(
            merged(apart),
            vec![
                range(paid, Some("2026-01-01"), Some("2026-01-07")),
                range(paid, Some("2026-01-10"), Some("2026-01-20"))
            ]
        );
    }

    #[test]
    fn statuses_and_due_dates_that_admit_no_day_admit_nothing() {
        let today = day("2026-11-22");
        let past = DateRange { from: day("2019-01-01"), to: day("2019-12-31") };
        assert_eq!(admitted(Some(&[StatusFilter::Opened]), Some(past), today), Some(Vec::new()));
        assert_eq!(admitted(None, None, today), None);
        let due_alone = admitted(None, Some(past), today).unwrap();
        assert_eq!(due_alone.len(), BillingStatus::ALL.len());
        assert!(within(&due_alone, BillingStatus::Paid, Some(day("2019-06-01"))));
        assert!(!within(&due_alone, BillingStatus::Paid, Some(day("2020-06-01"))));
        assert!(!within(&due_alone, BillingStatus::Paid, None), "a bounded range needs a due date");
    }
}
