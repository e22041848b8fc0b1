//! Remittance files: how billets of a bank that learns of them from files (every
//! layout of `billets::banks`, CNAB 240 and 400) reach it, and how a cancellation follows them.
//!
//! - **Lanes.** Files go per agreement of a bank: the lane is the agreement as the rule writes it
//!   for Itaú 240 (the first bank of files, whose queued instructions and sequences were keyed
//!   so), `<bank_symbol>:<agreement>` for every other layout ([`lane`]).
//!
//! - **Queue.** A billet the registrar leaves `pending_remittance`, and a billet known to the bank
//!   that is cancelled, re-issued or paid off (a write-off, movement 02), each put an instruction
//!   in its agreement's queue (`keys::bank_file::remittance_queue`, in key order) and touch the agreement's
//!   marker (`keys::bank_file::remittance_due`), in the transaction that changes the billet. The scheduled job
//!   reads the markers (eight partitions), never the accounts.
//! - **Claim.** A file takes up to [`TITLES_PER_FILE`] instructions in one transaction with its
//!   record (the file's whole text, its sequence number and key) and an "open" marker: each billet
//!   it registers goes `pending_remittance` → `remitting` (with the remittance's id), conditioned on
//!   its version; each write-off's instruction is deleted on the condition that it is still there.
//!   So nothing is remitted twice: a billet no longer pending, or a write-off already taken, cannot
//!   enter a second file. A cancelled billet still queued for registration is skipped (the bank never
//!   heard of it) and its instruction dropped.
//! - **Finish.** The file is written to the bucket (its text is in the record: a retry writes the
//!   same bytes at the same key), its billets go `remitting` → `remittanced` (`remittanced_at`),
//!   and the record is closed. Every step can be run again: the next run finishes an open file
//!   before it claims anything, so a process killed between two writes loses nothing.
//!
//! Due-date changes re-issue the billet (the barcode holds the due date): the old billet's
//! write-off and the new one's registration go in the next file; movement 06 is not used.
//!
//! This file is the queue and the references a file carries; [`file`] makes and finishes a file,
//! [`run`] is the scheduled job.

mod file;
mod run;

pub use file::{list, Entry, Made, Remittance};
pub use run::{again, finish_open, oldest_pending_minutes, run_agreement, run_due, Report};

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Context as _;
use chrono::NaiveDateTime;
use futures::{FutureExt as _, StreamExt as _};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::accounts;
use crate::billets::banks::itau::ITAU_240;
use crate::billets::banks::{self, Agreement, Bank, Files as Layout};
use crate::billets::cnab::{self, Beneficiary, Movement, Title};
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billets::{cnab240, cnab400};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::compute;
use crate::billings::model::Billing;
use crate::files::{self, Files};
use crate::refusal::Refusal;
use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, records, Condition, KeyRange, Store, StoreError, StoreResult, Update, Write};
use crate::values::{AccountId, BilletId, BillingId, Money, Timestamp};

/// Titles in one file: the claim's transaction holds them, the record and its open marker
/// (DynamoDB's limit is 100 items).
const TITLES_PER_FILE: usize = 98;

/// What a file asks of the bank for one billet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Instruction {
    /// Register the billet (movement 01).
    Register,
    /// Write it off (movement 02): cancelled, re-issued or paid off here.
    WriteOff,
}

impl Instruction {
    pub fn word(self) -> &'static str {
        match self {
            Instruction::Register => "register",
            Instruction::WriteOff => "write_off",
        }
    }

    fn movement(self) -> Movement {
        match self {
            Instruction::Register => Movement::Register,
            Instruction::WriteOff => Movement::WriteOff,
        }
    }
}

/// An instruction waiting for its agreement's next file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Queued {
    pub account_id: AccountId,
    pub agreement: String,
    pub billing_id: BillingId,
    pub billet_id: BilletId,
    pub instruction: Instruction,
    pub queued_at: Timestamp,
}

impl Stored for Queued {
    const KIND: Option<&'static str> = Some("remittance_instruction");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        (
            keys::bank_file::remittance_queue(self.account_id, &self.agreement),
            keys::bank_file::remittance_queued(self.billing_id, self.billet_id, self.instruction.word()),
        )
    }
}

/// An agreement of an account with instructions waiting, since `since` at the latest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Due {
    pub account_id: AccountId,
    pub agreement: String,
    /// Changed by every instruction queued: the job removes the marker only if none came meanwhile.
    pub nonce: String,
    pub since: Timestamp,
}

/// Whether billets of this bank reach it in remittance files (otherwise the provider registers them
/// at once).
pub fn by_file(bank_symbol: &str) -> bool {
    banks::by_symbol(bank_symbol).is_some()
}

/// The lane of a bank's agreement: where its instructions queue, its files are numbered and kept.
pub fn lane(bank_symbol: &str, agreement: &str) -> String {
    match bank_symbol == ITAU_240.symbol {
        true => agreement.to_owned(),
        false => format!("{bank_symbol}:{agreement}"),
    }
}

/// The bank and the agreement of a lane.
pub fn of_lane(lane: &str) -> (&str, &str) {
    match lane.split_once(':') {
        Some((symbol, agreement)) => (symbol, agreement),
        None => (ITAU_240.symbol, lane),
    }
}

/// The file of `titles` in `bank`'s layout.
pub fn file_of(bank: &Bank, beneficiary: &Beneficiary, titles: &[Title], sequence: u32, at: NaiveDateTime) -> String {
    match bank.files {
        Layout::Cnab240(layout) => cnab240::remittance(bank, layout, beneficiary, titles, sequence, at),
        Layout::Cnab400(layout) => cnab400::remittance(bank, layout, beneficiary, titles, sequence, at),
    }
}

/// The writes that queue `instruction` for `billet` and mark its agreement due.
pub fn queue(account: AccountId, billet: &BankBillet, instruction: Instruction) -> StoreResult<Vec<Write>> {
    let agreement = lane(&billet.bank_symbol, billet.agreement_code.as_deref().unwrap_or_default());
    let now = Timestamp::now();
    let queued = Queued {
        account_id: account,
        agreement: agreement.clone(),
        billing_id: billet.billing_id,
        billet_id: billet.id,
        instruction,
        queued_at: now,
    };
    let (pk, sk) = keys::bank_file::remittance_due(account, &agreement);
    let marker = Update::new()
        .set("kind", "remittance_due")
        .set("account_id", &account)
        .set("agreement", &agreement)
        .set("nonce", &uuid::Uuid::new_v4().to_string())
        .set_if_missing("since", &now);
    Ok(vec![stored::put(&queued, ())?, Write::update(pk, sk, marker, None)])
}

/// The billet a billet's change writes off at the bank, if it writes one off: one known to the
/// bank through a file that is closed (cancelled, re-issued, paid off, or paid through another
/// channel than the boleto); `payments::withdrawals` queues its write-off.
pub fn written_off(write: &BilletWrite) -> Option<&BankBillet> {
    let BilletWrite::Moved { from, to } = write else { return None };
    let paid_elsewhere = to.status == BilletStatus::Paid
        && to.paid_with.as_deref().is_some_and(|c| c != crate::values::PaymentChannel::BankBillet.as_str());
    let closed = matches!(to.status, BilletStatus::Canceled | BilletStatus::Discharged) || paid_elsewhere;
    let known = from.remittance_id.is_some()
        && matches!(
            from.status,
            BilletStatus::Remitting | BilletStatus::Remittanced | BilletStatus::Opened | BilletStatus::Protested
        );
    (closed && known).then_some(to)
}

/// What the file's "uso da empresa" carries for a billet, echoed by the bank's return: the
/// billing's and the billet's ids, ten digits each.
pub fn reference(billing: BillingId, billet: BilletId) -> String {
    format!("{:010}{:010}", billing.get(), billet.get())
}

/// The ids a return's reference names.
pub fn referenced(text: &str) -> Option<(BillingId, BilletId)> {
    let text = text.trim();
    if text.len() != 20 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let billing = text[..10].parse::<i64>().ok().filter(|id| *id > 0)?;
    let billet = text[10..].parse::<i64>().ok().filter(|id| *id > 0)?;
    Some((BillingId::new(billing), BilletId::new(billet)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_names_the_billing_and_the_billet() {
        let text = reference(BillingId::new(12), BilletId::new(345));
        assert_eq!(text, "00000000120000000345");
        assert_eq!(referenced(&text), Some((BillingId::new(12), BilletId::new(345))));
        for bad in ["", "0000000012000000034", "000000001200000003x5", "00000000000000000345"] {
            assert_eq!(referenced(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_closed_billet_known_to_the_bank_is_written_off_and_one_never_sent_is_not() {
        let account = AccountId::new(7);
        let mut from = crate::billets::model::tests::sample();
        from.bank_symbol = "itau".into();
        from.agreement_code = Some("0057/12345-7/109".into());
        let to = from.moved_to(BilletStatus::Canceled);
        let sent = BankBillet { remittance_id: Some(4), ..from.clone() };
        let written = BilletWrite::Moved { from: sent.clone(), to: to.clone() };
        assert_eq!(written_off(&written), Some(&to));
        let writes = queue(account, &to, Instruction::WriteOff).unwrap();
        assert_eq!(writes.len(), 2, "the instruction and the agreement's marker");
        let pending = BankBillet { status: BilletStatus::PendingRemittance, ..from.clone() };
        assert_eq!(written_off(&BilletWrite::Moved { from: pending, to: to.clone() }), None);
        let paid = BankBillet { remittance_id: Some(4), ..from.moved_to(BilletStatus::Paid) };
        assert_eq!(written_off(&BilletWrite::Moved { from: sent, to: paid }), None);
    }
}
