//! The bulk-expansion queue's message (worker `billings::bulk`):
//! `{"kind": "bulk_expansion", "account_id": 7, "expansion_id": "<uuid>", "after_contact_id": null,
//! "requested_at": "<ISO 8601>"}` (messages of expansions accepted before carry the create body's
//! `billing` object too). One message expands the chunk of contacts after `after_contact_id`
//! (ascending id) when the expansion's cursor names that chunk, and records the next chunk's
//! message with the cursor's move; a copy, or a message naming another chunk, does nothing.
//! A message with `booklet_id` runs a carnê's booklet instead (`{…, "expansion_id": "booklet-<id>",
//! "booklet_id": <id>}`): its instalments written, or cancelled with it; a copy finds it done.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, BillingId, ContactId};

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
    /// A carnê's booklet instead of a bulk billing: its instalments written, or (when it was
    /// cancelled) its open ones cancelled (`billings::service::run_booklet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub booklet_id: Option<BillingId>,
}

impl BulkExpansion {
    /// The message of a booklet's task.
    pub fn of_booklet(account_id: AccountId, booklet: BillingId) -> BulkExpansion {
        BulkExpansion {
            account_id,
            expansion_id: format!("booklet-{}", booklet.get()),
            billing: None,
            after_contact_id: None,
            requested_at: crate::values::Timestamp::now().to_string(),
            booklet_id: Some(booklet),
        }
    }
}

impl Message for BulkExpansion {
    const KIND: &'static str = "bulk_expansion";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
