//! Keys of schedules (`schedules`): the issuing index the daily run reads, and each cycle's mark.

use chrono::NaiveDate;

use crate::values::{AccountId, BillingId};

/// Partitions of the issuing index over which schedules are spread.
pub const ISSUE_INDEX_SHARDS: i64 = 16;

/// The issuing index (`gsi1`) partition of the schedules in `shard`.
pub fn issue_index_partition(shard: i64) -> String {
    format!("SCHED#{shard:02}")
}

/// A schedule's entry in the issuing index (its key entry's `gsi1pk`/`gsi1sk`, in place of the
/// reminders' due-day entry a payable billing has): its shard's partition, sorted by its next
/// cycle's issue day, then account and id. A run on a day reads every entry up to that day, so
/// that a day the run missed is caught by the next; issuing a cycle moves the entry to the next
/// cycle's day in the same transaction, and a schedule with no cycle left has none.
pub fn issue_index(account: AccountId, schedule: BillingId, day: NaiveDate) -> (String, String) {
    let shard = (account.get() + schedule.get()).rem_euclid(ISSUE_INDEX_SHARDS);
    (issue_index_partition(shard), format!("{day}#{:010}#{:010}", account.get(), schedule.get()))
}

/// The first sort key after every entry of `day` and before.
pub fn issue_index_after(day: NaiveDate) -> String {
    format!("{day}#~")
}

/// The issue day, account and schedule of an [`issue_index`] sort key.
pub fn read_issue_index(sk: &str) -> Option<(NaiveDate, AccountId, BillingId)> {
    let mut parts = sk.splitn(3, '#');
    let day = parts.next()?.parse().ok()?;
    let account = AccountId::new(parts.next()?.parse().ok()?);
    let schedule = BillingId::new(parts.next()?.parse().ok()?);
    Some((day, account, schedule))
}

/// The mark of a schedule's cycle (the schedule's partition, `CYCLE#<n>`), written only if absent
/// in the transaction that issues it, with the billing it made: a cycle is issued once whatever
/// runs it again.
pub fn cycle_mark(account: AccountId, schedule: BillingId, cycle: u32) -> (String, String) {
    (super::billing::billing_partition(account, schedule), format!("CYCLE#{cycle:05}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_and_sorts_by_day() {
        let day: NaiveDate = "2027-01-01".parse().unwrap();
        let (pk, sk) = issue_index(AccountId::new(7), BillingId::new(12), day);
        assert_eq!(pk, "SCHED#03");
        assert_eq!(read_issue_index(&sk), Some((day, AccountId::new(7), BillingId::new(12))));
        assert!(sk < issue_index_after(day));
        assert!(issue_index_after(day) < issue_index(AccountId::new(1), BillingId::new(1), day.succ_opt().unwrap()).1);
    }
}
