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
