//! The messages of the reminders' two queues (worker `reminders::run`): the scans of the due-day
//! index, and each billing's reminder of a day.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::{AccountId, BillingId};

/// A page of the reminders' due-day index to read (`reminders::run`), on the reminder scans
/// queue (the service's work: account 0):
/// `{"kind": "reminder_scan", "account_id": 0, "day": "2026-11-27", "days": -3, "shard": 5, "after": null}`.
/// A scan sends its page's reminders to the reminders queue and then the next page's scan; a copy
/// is harmless: each delivery is written only if absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReminderScan {
    pub day: chrono::NaiveDate,
    pub days: i64,
    pub shard: i64,
    /// Where the page starts: the index's `LastEvaluatedKey` (`gsi1pk`, `gsi1sk`, `pk`, `sk`).
    #[serde(default)]
    pub after: Option<std::collections::BTreeMap<String, String>>,
}

impl Message for ReminderScan {
    const KIND: &'static str = "reminder_scan";

    fn account(&self) -> AccountId {
        AccountId::new(0)
    }
}

/// One billing's reminder of one day to send (`reminders::send`), on the reminders queue under
/// its account:
/// `{"kind": "reminder", "account_id": 7, "billing_id": 12, "day": "2026-11-27", "days": -3, "due_date": "2026-11-30", "channels": ["email"]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reminder {
    pub account_id: AccountId,
    pub billing_id: BillingId,
    pub day: chrono::NaiveDate,
    pub days: i64,
    pub due_date: chrono::NaiveDate,
    pub channels: Vec<String>,
}

impl Message for Reminder {
    const KIND: &'static str = "reminder";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
