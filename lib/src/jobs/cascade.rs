//! The cascades queue's message (worker `contacts::cascade`).

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::AccountId;

/// What a deleted tag or group leaves in its contacts, to clear (`contacts::cascade`):
/// `{"kind": "cascade", "account_id": 7, "tag_id": 3, "round": 0}` or `{…, "group_id": 2, …}`.
/// `round` is the chunk it clears (0, 1, …): the cascade runs a message only when its own count
/// of rounds says this one is next (absent on messages sent before: those run as they come).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cascade {
    pub account_id: AccountId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_id: Option<crate::values::TagId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_id: Option<crate::values::GroupId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<i64>,
}

impl Message for Cascade {
    const KIND: &'static str = "cascade";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
