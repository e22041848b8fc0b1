//! The bulk-expansion queue's message (worker `billings::bulk`):
//! `{"kind": "bulk_expansion", "account_id": 7, "expansion_id": "<uuid>", "after_contact_id": null,
//! "requested_at": "<ISO 8601>"}` (messages of expansions accepted before carry the create body's
//! `billing` object too). One message expands the chunk of contacts after `after_contact_id`
//! (ascending id) when the expansion's cursor names that chunk, and records the next chunk's
//! message with the cursor's move; a copy, or a message naming another chunk, does nothing.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, ContactId};

/// One chunk of a bulk billing's expansion (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BulkExpansion {
    pub account_id: AccountId,
    pub expansion_id: String,
    /// The `billing` object of the create body, on messages of expansions accepted before the
    /// expansion item kept it (the worker reads it from there now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing: Option<serde_json::Value>,
    /// The chunk starts after this contact id (none: from the first contact).
    #[serde(default)]
    pub after_contact_id: Option<ContactId>,
    #[serde(default)]
    pub requested_at: String,
}

impl Message for BulkExpansion {
    const KIND: &'static str = "bulk_expansion";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
