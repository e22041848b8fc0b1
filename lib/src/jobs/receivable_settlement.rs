//! The settlements queue's message (worker `pos::settlements`):
//! `{"kind": "receivable_settlement", "account_id": 7, "reference": "<the settlement's>", "chunk": 0}`.
//! Each message settles a chunk of the open sales and, while sales remain, records the next one's
//! message with the move of the settlement's chunk count; the settlement record holds the state,
//! so a message delivered twice settles nothing twice and sends nothing twice.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::AccountId;

/// A chunk of a settlement by transfer (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReceivableSettlement {
    pub account_id: AccountId,
    pub reference: String,
    /// The chunk it runs (0, 1, …): the settlement runs a message only when its own count of
    /// chunks run says this one is next. Absent on messages sent before: such a message runs
    /// whatever chunk is next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<i64>,
}

impl ReceivableSettlement {
    pub fn new(account_id: AccountId, reference: &str, chunk: i64) -> Self {
        ReceivableSettlement { account_id, reference: reference.to_owned(), chunk: Some(chunk) }
    }
}

impl Message for ReceivableSettlement {
    const KIND: &'static str = "receivable_settlement";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
