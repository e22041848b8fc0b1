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
    /// Instead, Pix Automático's (`payments::pix::automatic`): the cycle's debit (`cobr`) sent, or
    /// the deleted schedule's recurrence cancelled: `{…, "automatic": "debit"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub automatic: Option<Automatic>,
}

/// What a Pix Automático message asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Automatic {
    /// Send the cycle's debit (`cobr`) to the PSP.
    Debit,
    /// The schedule was deleted: cancel its recurrence at the PSP.
    Stop,
}

impl Message for PixCharge {
    const KIND: &'static str = "pix_charge";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
