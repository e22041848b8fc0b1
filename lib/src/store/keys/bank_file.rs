//! Keys of the bank files: remittance queues, markers and files, return files and their ledgers.

use super::*;
use crate::values::{AccountId, BilletId, BillingId};

/// Sequence of `our_sequential_number` for one agreement of an account.
pub fn our_number_sequence(agreement: &str) -> String {
    sequence(&format!("OURNUMBER#{agreement}"))
}

/// How many partitions the remittance markers ([`remittance_due`]) spread over.
pub const REMITTANCE_DUE_SHARDS: i64 = 8;

/// The instructions waiting for the next remittance file of one agreement of an account:
/// `sk = Q#<billing:010>#<billet:010>#<movement>`, so a file takes them in key order.
pub fn remittance_queue(account: AccountId, agreement: &str) -> String {
    format!("A#{account}#REMITQ#{agreement}")
}

pub const REMITTANCE_QUEUED_PREFIX: &str = "Q#";

pub fn remittance_queued(billing_id: BillingId, billet_id: BilletId, movement: &str) -> String {
    format!("{REMITTANCE_QUEUED_PREFIX}{:010}#{:010}#{movement}", billing_id.get(), billet_id.get())
}

/// The marker that an agreement of an account has instructions waiting: what the scheduled job
/// reads (a few partitions of the whole table) instead of scanning accounts.
pub fn remittance_due(account: AccountId, agreement: &str) -> (String, String) {
    let sk = format!("{REMITTANCE_DUE_PREFIX}{account}#{agreement}");
    (remittance_due_shard(shard_of(&sk, REMITTANCE_DUE_SHARDS)), sk)
}

pub const REMITTANCE_DUE_PREFIX: &str = "D#";

pub fn remittance_due_shard(shard: i64) -> String {
    format!("REMITDUE#{shard}")
}

/// An account's remittance files (`R#<id:010>`) and the markers of those not yet finished
/// (`OPEN#<id:010>`).
pub fn remittances(account: AccountId) -> String {
    format!("A#{account}#REMITTANCES")
}

pub const REMITTANCE_PREFIX: &str = "R#";

pub const OPEN_REMITTANCE_PREFIX: &str = "OPEN#";

pub fn remittance(account: AccountId, id: i64) -> (String, String) {
    (remittances(account), format!("{REMITTANCE_PREFIX}{id:010}"))
}

pub fn open_remittance(account: AccountId, id: i64) -> (String, String) {
    (remittances(account), format!("{OPEN_REMITTANCE_PREFIX}{id:010}"))
}

/// The sequence of remittance files of one agreement (the file's NSA, "número sequencial").
pub fn remittance_sequence(agreement: &str) -> String {
    sequence(&format!("REMITTANCE#{agreement}"))
}

/// An account's return files, one item per file keyed by its SHA-256 (`F#<sha256>`).
pub fn return_files(account: AccountId) -> String {
    format!("A#{account}#RETURNS")
}

const RETURN_FILE_PREFIX: &str = "F#";

pub fn return_file(account: AccountId, sha256: &str) -> (String, String) {
    (return_files(account), format!("{RETURN_FILE_PREFIX}{sha256}"))
}

/// A return file's place in the list of the account's files, newest last (key-only, written when the
/// file first comes).
pub fn return_file_listed(account: AccountId, received_ms: i64, sha256: &str) -> (String, String) {
    (return_files(account), format!("{RETURN_LISTED_PREFIX}{received_ms:013}#{sha256}"))
}

pub const RETURN_LISTED_PREFIX: &str = "T#";

/// The SHA-256 a listing key of [`return_file_listed`] names.
pub fn listed_return_sha256(sk: &str) -> Option<&str> {
    sk.strip_prefix(RETURN_LISTED_PREFIX)?.split_once('#').map(|(_, sha)| sha)
}

/// The ledger of one return file: one item per title line (`L#<line:06>`), written in the
/// transaction that applies the line, so a line is applied once however often the file comes.
pub fn return_lines(account: AccountId, sha256: &str) -> String {
    format!("A#{account}#RETURN#{sha256}")
}

pub const RETURN_LINE_PREFIX: &str = "L#";

pub fn return_line(account: AccountId, sha256: &str, line: usize) -> (String, String) {
    (return_lines(account, sha256), format!("{RETURN_LINE_PREFIX}{line:06}"))
}
