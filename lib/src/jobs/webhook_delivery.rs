//! The webhook-deliveries queue's message (worker `webhooks::sender`):
//! `{"kind": "webhook_delivery", "account_id": 7, "delivery_id": "dlv_<event>_<receiver>"}`. It
//! names a delivery record, which holds the state: a message delivered twice, or overtaken by a
//! replay, attempts the delivery once (the sender claims it).

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::AccountId;

/// A webhook delivery to attempt (see the module text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebhookDelivery {
    pub account_id: AccountId,
    pub delivery_id: String,
}

impl WebhookDelivery {
    pub fn new(account_id: AccountId, delivery_id: &str) -> Self {
        WebhookDelivery { account_id, delivery_id: delivery_id.to_owned() }
    }
}

impl Message for WebhookDelivery {
    const KIND: &'static str = "webhook_delivery";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
