//! A list's total from the counters: the counts per status of the type's counter (or of a
//! category's own), each status between due dates from the counter's days, and beside them a
//! bank rule's count and its counts per status.

use chrono::NaiveDate;

use super::statuses::StatusRange;
use super::walk::ListSize;
use crate::refusal::Refusal;
use crate::store::keys::{self, billing::BillingTally};
use crate::store::{shards, Store};
use crate::values::BankRuleId;

/// What the counts say of a list by statuses and due dates.
pub struct Ranged {
    /// The counter's billings, and those in the ranges.
    pub of_counter: ListSize,
    /// Whether every billing of the counter carries the value whose counts were read beside (a
    /// bank rule's); true without one.
    pub everyone: bool,
    /// The value's billings, and those of them in the ranges.
    pub of_value: Option<ListSize>,
}

/// The counts [`ranged`] reads from a counter, by name.
struct Sums {
    /// The counter's total (`value`).
    all: i64,
    /// Each range's status's whole count (`S<status>`), in the ranges' order.
    statuses: Vec<i64>,
    /// The value's count (`r<rule>`), when one is read beside.
    value: Option<i64>,
    /// The value's count in each range's status (`r<rule>S<status>`).
    value_statuses: Vec<i64>,
}

impl Sums {
    /// The counter's counts `ranged` names, read at once.
    async fn read(
        store: &Store,
        counter: &str,
        statuses: &[String],
        value: Option<(&str, &[String])>,
    ) -> Result<Self, Refusal> {
        let mut names: Vec<&str> = vec![keys::counter::COUNT_ATTRIBUTE];
        names.extend(statuses.iter().map(String::as_str));
        if let Some((tally, per_status)) = value {
            names.push(tally);
            names.extend(per_status.iter().map(String::as_str));
        }
        let mut read = shards::sums_of(store, counter.to_owned(), &names).await?.into_iter();
        let mut next = |n: usize| read.by_ref().take(n).collect::<Vec<i64>>();
        let all = next(1)[0];
        let statuses = next(statuses.len());
        let value = value.map(|_| next(1)[0]);
        let value_statuses = next(usize::MAX);
        Ok(Sums { all, statuses, value, value_statuses })
    }
}

/// The count of the billings of `counter` in `ranges`, with its whole count, and with `rule` that
/// bank rule's count (`r<rule>`) and its billings in the ranges (from its counts per status,
/// `r<rule>S<status>`): each status's count in the counter, and for a status
/// within due dates the counter's days (`shards::days`), read once from the earliest bound on. A
/// range open below counts its status less the days after its end, so that `expired` reads the
/// days from today on, not the past.
pub async fn ranged(
    store: &Store,
    counter: &str,
    ranges: &[StatusRange],
    rule: Option<BankRuleId>,
) -> Result<Ranged, Refusal> {
    let statuses: Vec<String> = ranges.iter().map(|range| BillingTally::Status(range.status).name()).collect();
    let value_statuses: Vec<String> = rule
        .map(|rule| ranges.iter().map(|range| BillingTally::RuleStatus(rule, range.status).name()).collect())
        .unwrap_or_default();
    let value = rule.map(|rule| BillingTally::Rule(rule).name());
    let value = value.as_deref();
    let bounded: Vec<&StatusRange> = ranges.iter().filter(|range| range.bounded()).collect();
    // From the earliest day a bounded range counts on (its start, or the day after its end when
    // it is open below), to the latest (none when one is open above or below).
    let low = bounded.iter().filter_map(|r| r.from.or_else(|| r.to.and_then(|t| t.succ_opt()))).min();
    let high = match bounded.iter().any(|r| r.from.is_none() || r.to.is_none()) {
        true => None,
        false => bounded.iter().filter_map(|r| r.to).max(),
    };
    let days = async {
        match bounded.is_empty() {
            true => Ok::<_, Refusal>(Default::default()),
            false => Ok(shards::days(store, counter, low, high).await?),
        }
    };
    let sums = Sums::read(store, counter, &statuses, value.map(|tally| (tally, value_statuses.as_slice())));
    let (sums, days) = tokio::try_join!(sums, days)?;
    let on = |name: &str, from: Option<NaiveDate>, to: Option<NaiveDate>| -> i64 {
        days.range(from.unwrap_or(NaiveDate::MIN)..=to.unwrap_or(NaiveDate::MAX))
            .filter_map(|(_, counts)| counts.get(name))
            .sum()
    };
    // The ranges' count, each status's under `names` with its whole count in `wholes`.
    let count = |names: &[String], wholes: &[i64]| -> i64 {
        let mut total = 0i64;
        for ((range, name), whole) in ranges.iter().zip(names).zip(wholes) {
            total += match (range.from, range.to) {
                (None, None) => *whole,
                (None, Some(to)) => whole - to.succ_opt().map_or(0, |after| on(name, Some(after), None)),
                (from, to) => on(name, from, to),
            }
            .max(0);
        }
        total
    };
    let positive = |n: i64| usize::try_from(n).unwrap_or_default();
    let total = count(&statuses, &sums.statuses);
    let everyone = sums.value.is_none_or(|value| value == sums.all);
    let of_value = sums.value.filter(|_| !value_statuses.is_empty()).map(|value| ListSize {
        drawn_from: positive(value),
        total: positive(count(&value_statuses, &sums.value_statuses)),
    });
    Ok(Ranged { of_counter: ListSize { drawn_from: positive(sums.all), total: positive(total) }, everyone, of_value })
}
