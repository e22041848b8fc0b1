//! The schedule cycles queue's message (worker `schedules::run`).

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, BillingId};

/// A schedule to run on a day (its next cycle issued when due), on the schedule cycles queue under
/// its account (the fair queue serves tenants in turn):
/// `{"kind": "schedule_cycle", "account_id": 7, "schedule_id": 12, "day": "2027-01-01"}`. A copy is
/// harmless: the schedule's version and the cycle's mark issue a cycle once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleCycle {
    pub account_id: AccountId,
    pub schedule_id: BillingId,
    pub day: chrono::NaiveDate,
}

impl Message for ScheduleCycle {
    const KIND: &'static str = "schedule_cycle";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
