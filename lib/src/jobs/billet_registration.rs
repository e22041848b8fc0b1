//! The billet-registration queue's message (worker `payments::registrar`): every new
//! billing, and every re-issue, asks for its bank billet to be registered:
//! `{"kind": "billet_registration", "account_id": 7, "billing_id": 42, "generation": 1, "requested_at": "<ISO 8601>"}`.
//! `generation` is the billing's registration request it answers (1 on create, one more on each
//! re-issue; 1 when absent). It is idempotent by (account_id, billing_id, generation): the worker
//! issues a billet only while the billing has none for that generation, so a message delivered
//! twice produces one billet, and a message overtaken by a re-issue produces none.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, BillingId, Timestamp};

/// A billet registration request (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BilletRegistration {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    #[serde(default = "first_generation")]
    pub generation: i64,
    #[serde(default)]
    pub requested_at: String,
}

fn first_generation() -> i64 {
    1
}

impl BilletRegistration {
    pub fn new(account_id: AccountId, billing_id: BillingId, generation: i64) -> Self {
        BilletRegistration { account_id, billing_id, generation, requested_at: Timestamp::now().to_string() }
    }
}

impl Message for BilletRegistration {
    const KIND: &'static str = "billet_registration";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
