//! The card queue's message (worker `payments::card::releases`): a release, or a charge to a card
//! on file.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, BillingId};

/// A billing's card intents to cancel at the account's gateway, once the billing stopped being
/// payable by card (`payments::withdrawals`): its card's intent when still open (`intent_id`), and
/// every intent its checkout made that nobody confirmed:
/// `{"kind": "card_release", "account_id": 7, "billing_id": 12, "intent_id": "pi_…"}`. Cancelling
/// twice is harmless: the worker reads each intent first and cancels only one still open.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardRelease {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    #[serde(default)]
    pub intent_id: Option<String>,
    /// Instead: the billing (a schedule's cycle, its billet registered) charged to its schedule's
    /// card on file (`payments::card::on_file::collect`): `{…, "off_session": true}`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub off_session: bool,
}

impl Message for CardRelease {
    const KIND: &'static str = "card_release";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
