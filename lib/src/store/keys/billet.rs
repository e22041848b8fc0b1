//! Keys of bank billets (in their billing's partition) and of the payer's links to them.

use super::billing::billing_partition;
use crate::values::{AccountId, BilletId, BillingId};

/// Prefix of the sort keys of a billing's bank billets (in the billing's partition).
const BILLET_PREFIX: &str = "BILLET#";

/// The keys of a bank billet: in its billing's partition (`sk = BILLET#<id:010>`), so that a
/// billing's billets are one key range of it.
pub fn billet(account: AccountId, billing_id: BillingId, billet_id: BilletId) -> (String, String) {
    (billing_partition(account, billing_id), format!("{BILLET_PREFIX}{:010}", billet_id.get()))
}

/// The partition and sort-key prefix of a billing's billets.
pub fn billets_of(account: AccountId, billing_id: BillingId) -> (String, String) {
    (billing_partition(account, billing_id), BILLET_PREFIX.to_owned())
}

/// Lookup item of a payer's link to a billet (`billets::link`): the SHA-256 of its token, never the
/// token, in a partition of its own (links spread evenly; no account's partition grows with them).
pub fn payer_link(token: &str) -> (String, String) {
    (format!("PAYLINK#{}", super::digest(token)), PAYER_LINK_SK.to_owned())
}

const PAYER_LINK_SK: &str = "PAYLINK";

/// Lookup item of a billet by its id alone (`billets::model::BilletRef`): the billing it is under.
/// A partition of its own per billet (no account's partition grows with them).
pub fn billet_ref(account: AccountId, billet_id: BilletId) -> (String, String) {
    (format!("A#{account}#BILLETREF#{:010}", billet_id.get()), BILLET_REF_SK.to_owned())
}

const BILLET_REF_SK: &str = "BILLETREF";
