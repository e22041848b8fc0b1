//! Keys of payments (`payments`): the ledger that applies each payment once, and the account's
//! payments to refund, and the bank rules linked to a Pix institution.

use crate::values::{AccountId, BankRuleId};

/// A payment's ledger item, in a partition of its own (`A#<acct>#PAYMENT#<channel>#<sha256 of the
/// provider's id>`, `sk = PAYMENT`): written, only if absent, in the transaction that applies the
/// payment, so that a payment its provider reports again (a webhook twice, a reconciliation, a
/// second return file) is applied once.
pub fn payment(account: AccountId, channel: &str, provider_id: &str) -> (String, String) {
    (format!("A#{account}#PAYMENT#{channel}#{}", super::digest(provider_id)), "PAYMENT".to_owned())
}

/// Partition of the account's payments to refund (a billing paid through two channels), in the
/// order they came: what `infra/ops payment refunds` lists.
pub fn payments_to_refund(account: AccountId) -> String {
    format!("A#{account}#REFUNDS")
}

/// A payment to refund in [`payments_to_refund`]: when it came, then its ledger key's partition.
pub fn payment_to_refund(account: AccountId, at_ms: i64, channel: &str, provider_id: &str) -> (String, String) {
    let (ledger, _) = payment(account, channel, provider_id);
    (payments_to_refund(account), format!("{at_ms:013}#{ledger}"))
}

/// Partition of the bank rules linked to a Pix institution, one item each ([`pix_psp`]): what the
/// Pix reconciliation reads (a few items per account that has Pix, never the accounts).
pub const PIX_PSPS: &str = "PIXPSP";

/// The item of bank rule `rule`'s link to its Pix institution in [`PIX_PSPS`].
pub fn pix_psp(account: AccountId, rule: BankRuleId) -> (String, String) {
    (PIX_PSPS.to_owned(), format!("{account}#{rule}"))
}

/// An account's checkout gateway, in a partition of its own (`GATEWAY#<acct>`: the payer page's
/// function reads it and no other item of the account): absent while the account has none.
pub fn gateway(account: AccountId) -> (String, String) {
    (format!("GATEWAY#{account}"), "GATEWAY".to_owned())
}

/// Partitions of the availability index over which one day's card payments are spread.
pub const AVAILABILITY_INDEX_SHARDS: i64 = 16;

/// The availability index's partition (`gsi1`, beside the reminders' due-day index) of card
/// payments whose funds become available on `day`, in `shard`.
pub fn availability_index_partition(day: chrono::NaiveDate, shard: i64) -> String {
    format!("AVAIL#{day}#{shard:02}")
}

/// A billing paid by card, waiting for its funds: its escrow end's partition in the shard of its
/// account and id, sorted by account then id (the key entry's `gsi1pk`/`gsi1sk`, as the
/// reminders' index's, which it leaves when it is paid).
pub fn availability_index(
    account: AccountId,
    billing: crate::values::BillingId,
    day: chrono::NaiveDate,
) -> (String, String) {
    let shard = (account.get() + billing.get()).rem_euclid(AVAILABILITY_INDEX_SHARDS);
    (availability_index_partition(day, shard), format!("{:010}#{:010}", account.get(), billing.get()))
}

/// The card intent of a billing on a day for an amount (`<billing partition>`,
/// `GWINTENT#<day>#<cents>`): written only if absent when the payer page makes it, so that a page
/// opened twice, or a retried call, confirms one intent per billing, day and amount.
pub fn gateway_intent(
    account: AccountId,
    billing: crate::values::BillingId,
    day: chrono::NaiveDate,
    cents: i64,
) -> (String, String) {
    (super::billing::billing_partition(account, billing), format!("{GATEWAY_INTENT_PREFIX}{day}#{cents}"))
}

/// The sort-key prefix of a billing's [`gateway_intent`]s, in its partition.
pub fn gateway_intents(account: AccountId, billing: crate::values::BillingId) -> (String, String) {
    (super::billing::billing_partition(account, billing), GATEWAY_INTENT_PREFIX.to_owned())
}

const GATEWAY_INTENT_PREFIX: &str = "GWINTENT#";

/// A schedule's card on file (`payments::card::on_file`), in the schedule's partition.
pub fn card_on_file(account: AccountId, schedule: crate::values::BillingId) -> (String, String) {
    (super::billing::billing_partition(account, schedule), "CARDONFILE".to_owned())
}

/// A schedule's Pix Automático recurrence (`payments::pix::automatic`), in the schedule's partition.
pub fn pix_recurrence(account: AccountId, schedule: crate::values::BillingId) -> (String, String) {
    (super::billing::billing_partition(account, schedule), "PIXREC".to_owned())
}

/// The mark of a cycle's Pix Automático debit (`cobr`) sent to the PSP, in the cycle's partition.
pub fn pix_debit(account: AccountId, billing: crate::values::BillingId) -> (String, String) {
    (super::billing::billing_partition(account, billing), "PIXDEBIT".to_owned())
}

/// The account and billing of an [`availability_index`] sort key.
pub fn read_availability_index(sk: &str) -> Option<(AccountId, crate::values::BillingId)> {
    super::reminder::read_reminder_index(sk)
}

/// The name of the availability index's sort key on a billing's key entry (the reminders'
/// index's: one `gsi1` entry, either).
pub const AVAILABILITY_INDEX_SK: &str = super::reminder::REMINDER_INDEX_SK;

/// A partition of the account's payments as `GET /v1/payments` lists them (`payments::rows`): a
/// copy of each ledger entry, in the order of the day it was paid (`order` `P`) or the day it is
/// credited (`C`), every payment or those of one channel, one status, or both: a filtered page
/// reads its page and nothing else.
pub fn payment_rows(account: AccountId, order: char, channel: Option<&str>, status: Option<&str>) -> String {
    let mut partition = format!("A#{account}#PAYROWS#{order}");
    if let Some(channel) = channel {
        partition.push_str("#C:");
        partition.push_str(channel);
    }
    if let Some(status) = status {
        partition.push_str("#S:");
        partition.push_str(status);
    }
    partition
}

/// A payment's sort key in its rows' partitions of order `P`: the day paid, when it was recorded,
/// then a short form of its ledger key (unique); in those of order `C`, the credit day before it.
pub fn payment_row(paid_on: chrono::NaiveDate, at_ms: i64, channel: &str, provider_id: &str) -> String {
    format!("{paid_on}#{at_ms:013}#{}", super::hashed(&format!("{channel}#{provider_id}")))
}

/// A payment's sort key in its rows' partitions of order `C`: the day credited, then its key in
/// those of order `P`.
pub fn payment_row_credited(credit_on: chrono::NaiveDate, paid: &str) -> String {
    format!("{credit_on}#{paid}")
}

/// Whether `sk` is a sort key of a rows partition (of order `C` when `credited`, else `P`).
pub fn is_payment_row(sk: &str, credited: bool) -> bool {
    let parts: Vec<&str> = sk.split('#').collect();
    let dated = |part: &str| part.parse::<chrono::NaiveDate>().is_ok();
    let paid = |p: &[&str]| p.len() == 3 && dated(p[0]) && p[1].len() == 13 && p[2].len() == 16;
    match credited {
        true => parts.len() == 4 && dated(parts[0]) && paid(&parts[1..]),
        false => paid(&parts),
    }
}

/// The name of a statement count (`n`, `gross`, `fee`, `net`, `kept`, `refunds`, `refunded`) of a
/// channel in its day's item.
pub fn statement_count(name: &str, channel: &str) -> String {
    format!("{name}#{channel}")
}

/// The name of the count of what a day's payments of a channel credit on `day`.
pub fn statement_credit(day: chrono::NaiveDate, channel: &str) -> String {
    format!("credit#{day}#{channel}")
}

/// A statement count's name read back: its kind and channel, and for a credit its day.
pub fn read_statement_count(name: &str) -> Option<(&str, &str, Option<chrono::NaiveDate>)> {
    let mut parts = name.split('#');
    match (parts.next()?, parts.next()?, parts.next()) {
        ("credit", day, Some(channel)) => Some(("credit", channel, Some(day.parse().ok()?))),
        (kind, channel, None) => Some((kind, channel, None)),
        _ => None,
    }
}

/// The counter of the account's payments per day (`payments::statement`: `store::shards`' day
/// counts, by the day paid, credited or refunded).
pub fn statement_counter(account: AccountId) -> String {
    super::counter::count_shards(account, "PAYMENTS")
}
