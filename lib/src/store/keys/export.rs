//! Keys of exports (`exports`).

use crate::values::AccountId;

/// An export, in a partition of its own (`A#<acct>#EXPORT#<id>`, `sk = EXPORT`): its steps read
/// and move it by key, and nothing lists an account's exports.
pub fn export(account: AccountId, id: &str) -> (String, String) {
    (format!("A#{account}#EXPORT#{id}"), "EXPORT".to_owned())
}
