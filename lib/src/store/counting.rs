//! What a record counts: the sharded counters (`store::shards`) its lists take their totals from,
//! and what it adds to each ([`Counting`]); the writes that keep them as records come, change and
//! go ([`moved`], in the record's own transaction), and the sums of many records at once
//! ([`sum_into`], [`added`]: a bulk transaction, a recount).

use super::Write;
use crate::values::AccountId;

/// What a kind of record counts, and where. Nothing by default: a kind that no list counts
/// implements it empty.
pub trait Counting {
    /// The sharded counter its lists take their total from (`store::shards`), kept the same way.
    fn counted_in(&self, _account: AccountId) -> Option<String> {
        None
    }
    /// The counts this record adds to in its counter's shard beside `value` (the total): one
    /// attribute per value a filtered list takes its total from, kept the same way. None by
    /// default.
    fn tallies(&self) -> Vec<String> {
        Vec::new()
    }
    /// The counts this record adds to on days of its counter (`shards::add_on_day`): each a day
    /// and the count's name (a billing: its status on its due date, and its creation on its
    /// creation date), kept the same way as [`Counting::tallies`]. None by default.
    fn dated_tallies(&self) -> Vec<(chrono::NaiveDate, String)> {
        Vec::new()
    }
    /// Counters beside its own it counts in, each with its tallies and dated tallies (a billing:
    /// its category's), kept the same way. None by default.
    fn also_counted(&self, _account: AccountId) -> Vec<Counts> {
        Vec::new()
    }
}

/// What a record adds to one sharded counter (`store::shards`): its total (`value`), its tallies
/// beside it, and its dated tallies on the counter's days.
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    pub counter: String,
    pub tallies: Vec<String>,
    pub dated: Vec<(chrono::NaiveDate, String)>,
}

impl Counts {
    /// What the record's arrival (`delta` 1) or departure (−1) moves in the counter's item: the
    /// total and each tally.
    pub fn moved(&self, delta: i64) -> Vec<(String, i64)> {
        with_total(self.tallies.clone(), delta)
    }
}

/// Every counter `record` counts in: its own ([`Counting::counted_in`], with its tallies and dated
/// tallies) and those beside it ([`Counting::also_counted`]).
pub fn counters<R: Counting>(record: &R, account: AccountId) -> Vec<Counts> {
    let own = record.counted_in(account).map(|counter| Counts {
        counter,
        tallies: record.tallies(),
        dated: record.dated_tallies(),
    });
    own.into_iter().chain(record.also_counted(account)).collect()
}

/// Counts summed per counter, by the counter's key: its total and tallies, and its days
/// ([`sum_into`]).
pub type Summed =
    std::collections::BTreeMap<String, (std::collections::BTreeMap<String, i64>, super::shards::DayCounts)>;

/// Adds `record`'s arrival to `summed`, in every counter it counts in ([`counters`]).
pub fn sum_into<R: Counting>(summed: &mut Summed, record: &R, account: AccountId) {
    for counts in counters(record, account) {
        let (sums, days) = summed.entry(counts.counter.clone()).or_default();
        for (name, delta) in counts.moved(1) {
            *sums.entry(name).or_default() += delta;
        }
        super::shards::count_days(days, counts.dated);
    }
}

/// The writes that add `summed` to its counters, in the shards of `holder`: an item a counter and
/// an item a day.
pub fn added(summed: Summed, holder: i64) -> Vec<Write> {
    let mut writes = Vec::new();
    for (counter, (sums, days)) in summed {
        writes.push(super::shards::add_each(counter.clone(), holder, &sums.into_iter().collect::<Vec<_>>()));
        writes.extend(super::shards::add_on_days(&counter, holder, days));
    }
    writes
}

/// The counter shards that follow a record from `before` to `after` (create: no `before`; delete:
/// no `after`): in each counter it counts in, one item in the shard of `holder` (the record's
/// id), moved by what changed (its total when it enters or leaves the counter, the
/// tallies it left and joined), and the days whose dated tallies it left or joined.
pub fn moved<R: Counting>(account: AccountId, holder: i64, before: Option<&R>, after: Option<&R>) -> Vec<Write> {
    let mut writes = Vec::new();
    let was = before.map(|r| counters(r, account)).unwrap_or_default();
    let is = after.map(|r| counters(r, account)).unwrap_or_default();
    for old in &was {
        match is.iter().find(|new| new.counter == old.counter) {
            Some(new) => {
                let deltas = moves(&old.tallies, &new.tallies);
                if !deltas.is_empty() {
                    writes.push(super::shards::add_each(new.counter.clone(), holder, &deltas));
                }
                writes.extend(days_moved(&new.counter, holder, &old.dated, &new.dated));
            }
            None => {
                writes.push(super::shards::add_each(old.counter.clone(), holder, &old.moved(-1)));
                writes.extend(days_moved(&old.counter, holder, &old.dated, &[]));
            }
        }
    }
    for new in is.iter().filter(|new| !was.iter().any(|old| old.counter == new.counter)) {
        writes.push(super::shards::add_each(new.counter.clone(), holder, &new.moved(1)));
        writes.extend(days_moved(&new.counter, holder, &[], &new.dated));
    }
    writes
}

/// What a record's move from some dated counts to others writes on its counter's days: one item
/// for each day whose counts it left or joined (nothing for a count it keeps), whatever moves on
/// that day in it.
fn days_moved(
    counter: &str,
    holder: i64,
    left: &[(chrono::NaiveDate, String)],
    joined: &[(chrono::NaiveDate, String)],
) -> Vec<Write> {
    let mut days: std::collections::BTreeMap<chrono::NaiveDate, Vec<(String, i64)>> = Default::default();
    for ((day, name), delta) in moves(left, joined) {
        days.entry(day).or_default().push((name, delta));
    }
    days.into_iter().map(|(day, deltas)| super::shards::add_on_day(counter, day, holder, &deltas)).collect()
}

/// What a move from the counts `left` to the counts `joined` adds to each: −1 to a count left and
/// not joined, 1 to one joined and not left (nothing to one kept).
fn moves<T: PartialEq + Clone>(left: &[T], joined: &[T]) -> Vec<(T, i64)> {
    let gone = left.iter().filter(|tally| !joined.contains(tally)).map(|tally| (tally.clone(), -1));
    let anew = joined.iter().filter(|tally| !left.contains(tally)).map(|tally| (tally.clone(), 1));
    gone.chain(anew).collect()
}

/// What a record's arrival (`delta` 1) or departure (−1) moves in its counter: the total
/// (`value`) and each of its tallies.
pub fn counts_of<R: Counting>(record: &R, delta: i64) -> Vec<(String, i64)> {
    with_total(record.tallies(), delta)
}

/// The total (`value`) and each of `tallies`, moved by `delta`.
fn with_total(tallies: Vec<String>, delta: i64) -> Vec<(String, i64)> {
    std::iter::once((super::keys::counter::COUNT_ATTRIBUTE.to_owned(), delta))
        .chain(tallies.into_iter().map(|tally| (tally, delta)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_takes_one_from_the_counts_left_and_adds_one_to_those_joined() {
        let left = ["S1", "c4", "T"];
        let joined = ["S2", "T", "c5"];
        assert_eq!(moves(&left, &joined), [("S1", -1), ("c4", -1), ("S2", 1), ("c5", 1)]);
        assert_eq!(moves(&left, &left), []);
        assert_eq!(moves(&[], &["T"]), [("T", 1)]);
    }
}
