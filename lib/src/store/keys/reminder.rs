//! Keys of reminders (`reminders`): an account's schedule, the steps every schedule uses, the
//! due-day index the daily run reads, a billing's delivery log and an account's suppressed
//! addresses.

use chrono::NaiveDate;

use crate::values::{AccountId, BillingId};

/// An account's reminder schedule (`A#<acct>`): absent until the account changes the default.
pub fn reminder_schedule(account: AccountId) -> (String, String) {
    (super::account(account), "REMINDERS".to_owned())
}

/// Partition of the steps (days from the due date) some account's schedule has, one item each
/// with the number of schedules that have it: what the daily run reads to know which due days to
/// look at (a handful of items, never the accounts).
pub const REMINDER_STEPS: &str = "REMINDSTEPS";

/// The item of the step `days` in [`REMINDER_STEPS`].
pub fn reminder_step(days: i64) -> (String, String) {
    (REMINDER_STEPS.to_owned(), format!("{days:+04}"))
}

/// The days of a [`reminder_step`]'s sort key.
pub fn read_reminder_step(sk: &str) -> Option<i64> {
    sk.parse().ok()
}

/// Partitions of the due-day index over which one day's billings are spread.
pub const REMINDER_INDEX_SHARDS: i64 = 16;

/// The due-day index (`gsi1`) partition of billings due on `due` in `shard`.
pub fn reminder_index_partition(due: NaiveDate, shard: i64) -> String {
    format!("REMIND#{due}#{shard:02}")
}

/// A payable billing's entry in the due-day index (its key entry's `gsi1pk`/`gsi1sk`): the day's
/// partition in the shard of its account and id, sorted by account then id, so that a page of the
/// index holds a few accounts' billings together.
pub fn reminder_index(account: AccountId, billing: BillingId, due: NaiveDate) -> (String, String) {
    let shard = (account.get() + billing.get()).rem_euclid(REMINDER_INDEX_SHARDS);
    (reminder_index_partition(due, shard), format!("{:010}#{:010}", account.get(), billing.get()))
}

/// The account and billing of a [`reminder_index`] sort key.
pub fn read_reminder_index(sk: &str) -> Option<(AccountId, BillingId)> {
    let (account, billing) = sk.split_once('#')?;
    Some((AccountId::new(account.parse().ok()?), BillingId::new(billing.parse().ok()?)))
}

/// The name of the due-day index's keys on a billing's key entry.
pub const REMINDER_INDEX_PK: &str = "gsi1pk";
pub const REMINDER_INDEX_SK: &str = "gsi1sk";

/// What the sort key of every reminder delivery of a billing begins with.
pub const REMINDER_DELIVERY_PREFIX: &str = "REMINDER#";

/// A billing's delivery of a reminder through `channel` on `day` (its billing's partition): one per
/// billing, day and channel, written only if absent, so that a run again, a message delivered
/// twice or a sender killed half way sends it once.
pub fn reminder_delivery(account: AccountId, billing: BillingId, day: NaiveDate, channel: &str) -> (String, String) {
    (super::billing::billing_partition(account, billing), format!("{REMINDER_DELIVERY_PREFIX}{day}#{channel}"))
}

/// The partition and sort-key prefix of a billing's reminder deliveries (newest day last).
pub fn reminder_deliveries_of(account: AccountId, billing: BillingId) -> (String, String) {
    (super::billing::billing_partition(account, billing), REMINDER_DELIVERY_PREFIX.to_owned())
}

/// The name of a delivery to its provider (`<acct>_<billing>_<day>_<channel>`: the tag SES and the
/// callback data WhatsApp give back with each event; SES takes only letters, digits, `_` and `-`).
pub fn reminder_reference(account: AccountId, billing: BillingId, day: NaiveDate, channel: &str) -> String {
    format!("{}_{}_{day}_{channel}", account.get(), billing.get())
}

/// The keys of a delivery from its [`reminder_reference`].
pub fn read_reminder_reference(reference: &str) -> Option<(AccountId, BillingId, NaiveDate, String)> {
    let mut parts = reference.splitn(4, '_');
    let account = AccountId::new(parts.next()?.parse().ok()?);
    let billing = BillingId::new(parts.next()?.parse().ok()?);
    let day = crate::values::calendar::parse_date(parts.next()?)?;
    let channel = parts.next()?.to_owned();
    Some((account, billing, day, channel))
}

/// The account's sequence of delivery ids (`A#<acct>`).
pub fn reminder_sequence(account: AccountId) -> (String, String) {
    (super::account(account), super::sequence("REMINDER"))
}

/// Partition of the account's suppressed e-mail addresses (a hard bounce or a complaint).
pub fn suppressed_addresses(account: AccountId) -> String {
    format!("A#{account}#SUPPRESSED")
}

/// An address's item in [`suppressed_addresses`], by the SHA-256 of the lowercased address.
pub fn suppressed_address(account: AccountId, email: &str) -> (String, String) {
    (suppressed_addresses(account), super::digest(&email.trim().to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_references_read_back() {
        let (account, billing) = (AccountId::new(7), BillingId::new(123));
        let due: NaiveDate = "2026-12-01".parse().unwrap();
        let (pk, sk) = reminder_index(account, billing, due);
        assert_eq!(pk, "REMIND#2026-12-01#02");
        assert_eq!(read_reminder_index(&sk), Some((account, billing)));
        let reference = reminder_reference(account, billing, due, "email");
        assert_eq!(read_reminder_reference(&reference), Some((account, billing, due, "email".to_owned())));
        assert_eq!(reminder_step(-3).1, "-003");
        assert_eq!(read_reminder_step(&reminder_step(5).1), Some(5));
    }
}
