//! The Pix charges queue's message (worker `payments::pix`).

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, BillingId};

/// A billing's Pix charge to remove at its PSP (`payments::withdrawals`):
/// `{"kind": "pix_charge", "account_id": 7, "billing_id": 12, "secret_id": "…"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PixCharge {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    /// The secret of the PSP that holds the charge.
    pub secret_id: String,
}

impl Message for PixCharge {
    const KIND: &'static str = "pix_charge";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
