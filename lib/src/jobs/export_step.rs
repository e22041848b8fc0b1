//! The exports queue's message (worker `exports::step`):
//! `{"kind": "export_step", "account_id": 7, "export_id": "exp_…", "part": 1}`. Each message
//! writes the part it names and records the next one's message with the export's move; a message
//! whose part is not the export's next (a copy, a step already made) does nothing.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::values::AccountId;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportStep {
    pub account_id: AccountId,
    pub export_id: String,
    /// The part it writes (1, 2, …).
    pub part: i64,
}

impl ExportStep {
    pub fn new(account_id: AccountId, export_id: &str, part: i64) -> Self {
        ExportStep { account_id, export_id: export_id.to_owned(), part }
    }
}

impl Message for ExportStep {
    const KIND: &'static str = "export_step";

    fn account(&self) -> AccountId {
        self.account_id
    }
}
