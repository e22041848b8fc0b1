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

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Context as _;
use chrono::NaiveDateTime;
use futures::{FutureExt as _, StreamExt as _};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::lifecycle::BilletWrite;
use crate::accounts;
use crate::billets::banks::itau::ITAU_240;
use crate::billets::banks::{self, Agreement, Bank, Files as Layout};
use crate::billets::cnab::{self, Beneficiary, Movement, Title};
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billets::{cnab240, cnab400};
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

/// What a billet's change tells the bank beside it: a write-off when the billet, known to the bank
/// through a file, is closed (cancelled, re-issued, paid off, or paid through another channel than
/// the boleto: by Pix).
pub fn follow(account: AccountId, write: &BilletWrite) -> StoreResult<Vec<Write>> {
    let BilletWrite::Moved { from, to } = write else { return Ok(Vec::new()) };
    let paid_elsewhere = to.status == BilletStatus::Paid
        && to.paid_with.as_deref().is_some_and(|c| c != crate::payments::ledger::Channel::BankBillet.as_str());
    let closed = matches!(to.status, BilletStatus::Canceled | BilletStatus::Discharged) || paid_elsewhere;
    let known = from.remittance_id.is_some()
        && matches!(
            from.status,
            BilletStatus::Remitting | BilletStatus::Remittanced | BilletStatus::Opened | BilletStatus::Protested
        );
    match closed && known {
        true => queue(account, to, Instruction::WriteOff),
        false => Ok(Vec::new()),
    }
}

/// One title of a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub billing_id: BillingId,
    pub billet_id: BilletId,
    pub instruction: Instruction,
    #[serde(with = "number")]
    pub amount: Money,
}

/// A remittance file as recorded: written whole when claimed, closed when its billets are
/// `remittanced`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Remittance {
    pub id: i64,
    pub account_id: AccountId,
    pub agreement: String,
    /// The file's sequence number for its agreement (NSA).
    pub sequence: i64,
    /// `open` until its billets are `remittanced`, then `closed`.
    pub state: String,
    pub titles: Vec<Entry>,
    #[serde(with = "number")]
    pub total: Money,
    /// Where it is in the bucket.
    pub key: String,
    pub sha256: String,
    pub file: String,
    pub created_at: Timestamp,
    #[serde(default)]
    pub closed_at: Option<Timestamp>,
}

impl Stored for Remittance {
    const KIND: Option<&'static str> = Some("remittance");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::bank_file::remittance(self.account_id, self.id)
    }
}

const OPEN: &str = "open";
const CLOSED: &str = "closed";

/// A file made, as the job and the ops CLI report it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Made {
    pub id: i64,
    pub agreement: String,
    pub sequence: i64,
    pub titles: usize,
    pub key: String,
    pub sha256: String,
}

impl From<&Remittance> for Made {
    fn from(r: &Remittance) -> Made {
        Made {
            id: r.id,
            agreement: r.agreement.clone(),
            sequence: r.sequence,
            titles: r.titles.len(),
            key: r.key.clone(),
            sha256: r.sha256.clone(),
        }
    }
}

/// What one run of the scheduled job did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub made: Vec<Made>,
    /// Agreements that failed (account and reason); they stay due for the next run.
    pub failures: Vec<String>,
    /// Minutes the oldest instruction still waiting has waited (0: none waits).
    pub oldest_pending_minutes: i64,
}

/// The scheduled job: every due agreement, until `deadline` (what is left waits for the next run).
pub async fn run_due(store: &Store, files: &Files, deadline: Instant) -> anyhow::Result<Report> {
    let mut report = Report::default();
    for shard in 0..keys::bank_file::REMITTANCE_DUE_SHARDS {
        if Instant::now() >= deadline {
            break;
        }
        let range = due_range(shard);
        let mut start = None;
        loop {
            let page = store.page(&range, 100, start).await?;
            for due in stored_dues(page.items)? {
                if Instant::now() >= deadline {
                    break;
                }
                match run_agreement(store, files, due.account_id, &due.agreement, deadline).await {
                    Ok(made) => report.made.extend(made),
                    Err(error) => {
                        tracing::error!(account = %due.account_id, agreement = %due.agreement, "remittance: {error:#}");
                        report
                            .failures
                            .push(format!("account {} agreement {}: {error:#}", due.account_id, due.agreement));
                    }
                }
            }
            start = page.next;
            if start.is_none() || Instant::now() >= deadline {
                break;
            }
        }
    }
    report.oldest_pending_minutes = oldest_pending_minutes(store).await?;
    Ok(report)
}

/// One partition of the due markers.
fn due_range(shard: i64) -> KeyRange {
    KeyRange::prefix(keys::bank_file::remittance_due_shard(shard), keys::bank_file::REMITTANCE_DUE_PREFIX, true)
}

fn stored_dues(items: Vec<crate::store::Item>) -> StoreResult<Vec<Due>> {
    items.into_iter().map(crate::store::item::from_item::<Due>).collect()
}

/// How long the oldest waiting instruction has waited, in minutes (from the markers left; the
/// eight partitions read at once).
pub async fn oldest_pending_minutes(store: &Store) -> anyhow::Result<i64> {
    let now = Timestamp::now();
    let reads = (0..keys::bank_file::REMITTANCE_DUE_SHARDS).map(|shard| async move {
        let range = due_range(shard);
        let mut oldest = 0;
        let mut start = None;
        loop {
            let page = store.page(&range, 500, start).await?;
            for due in stored_dues(page.items)? {
                oldest = oldest.max((now.0 - due.since.0).num_minutes());
            }
            start = page.next;
            if start.is_none() {
                return Ok::<_, anyhow::Error>(oldest);
            }
        }
    });
    Ok(futures::future::try_join_all(reads).await?.into_iter().max().unwrap_or(0))
}

/// Every file due for one agreement of an account (open files first), until `deadline`.
pub async fn run_agreement(
    store: &Store,
    files: &Files,
    account: AccountId,
    agreement: &str,
    deadline: Instant,
) -> anyhow::Result<Vec<Made>> {
    let mut made = again(|| finish_open(store, files, account)).await?;
    let (symbol, code) = of_lane(agreement);
    let bank = banks::by_symbol(symbol).with_context(|| format!("lane {agreement:?}: no bank {symbol:?}"))?;
    let parsed = bank.agreement(code).with_context(|| format!("agreement {code:?} is not one of {}", bank.title))?;
    let owner = accounts::find(store, account).await?.context("the account is gone")?;
    let document = owner.document.clone().filter(|d| !d.trim().is_empty());
    let beneficiary = Beneficiary {
        document: document.context("the account has no CNPJ/CPF: the bank needs the beneficiary's document")?,
        name: owner.name.clone(),
        agreement: parsed,
    };
    let (marker_pk, marker_sk) = keys::bank_file::remittance_due(account, agreement);
    let marker = again(|| async { Ok(store.get(marker_pk.clone(), marker_sk.clone()).await?) }).await?;
    let marker = marker.map(crate::store::item::from_item::<Due>).transpose()?;
    let began = Timestamp::now();
    // Each turn makes a file, drops stale instructions or loses a race: all progress.
    for _ in 0..10_000 {
        if Instant::now() >= deadline {
            return Ok(made);
        }
        match again(|| claim(store, account, agreement, bank, &beneficiary)).await? {
            Claimed::Empty => break,
            Claimed::Progress => {}
            Claimed::File(remittance) => made.push(again(|| finish(store, files, (*remittance).clone())).await?),
        }
    }
    // The queue was empty: the marker goes, unless an instruction came meanwhile (then what waits
    // came after `began`).
    if let Some(marker) = marker {
        again(|| tidy(store, account, agreement, &marker, began)).await?;
    }
    Ok(made)
}

/// Removes the agreement's marker once its queue was found empty (see [`run_agreement`]).
async fn tidy(
    store: &Store,
    account: AccountId,
    agreement: &str,
    marker: &Due,
    began: Timestamp,
) -> anyhow::Result<()> {
    let (pk, sk) = keys::bank_file::remittance_due(account, agreement);
    let unchanged = Condition::equals("nonce", &marker.nonce);
    match store.write(vec![Write::delete_if(pk.clone(), sk.clone(), unchanged)]).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed(_)) => {
            let kept = Write::update(pk, sk, Update::new().set("since", &began), Some(Condition::present()));
            match store.write(vec![kept]).await {
                Ok(()) | Err(StoreError::ConditionFailed(_)) => Ok(()),
                Err(error) => Err(error.into()),
            }
        }
        Err(error) => Err(error.into()),
    }
}

/// How long a step of the bank-file jobs is tried again through the weather.
const WEATHER_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// Tries `attempt` again, with the service's backoff (`contention::retry_for`), while it fails for
/// the weather (a transaction conflict, a throttle, an outage: [`transient`]); every step it is
/// given can be run again.
pub async fn again<T, F, Fut>(mut attempt: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let weather = |error: anyhow::Error| match transient(&error) {
        true => Refusal::Unavailable(error),
        false => Refusal::Internal(error),
    };
    let tried = crate::contention::retry_for(WEATHER_BUDGET, || attempt().map(|done| done.map_err(weather))).await;
    tried.map_err(|refusal| match refusal {
        Refusal::Unavailable(error) | Refusal::Internal(error) => error,
        other => anyhow::Error::new(other),
    })
}

/// Whether an error is the storage's weather rather than an answer.
fn transient(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<StoreError>().is_some_and(StoreError::is_transient)
            || cause.downcast_ref::<Refusal>().is_some_and(Refusal::is_transient)
    })
}

/// Finishes the account's files left open by an earlier run.
pub async fn finish_open(store: &Store, files: &Files, account: AccountId) -> anyhow::Result<Vec<Made>> {
    let range = KeyRange::prefix(keys::bank_file::remittances(account), keys::bank_file::OPEN_REMITTANCE_PREFIX, true);
    let open = store.page(&range, 100, None).await?;
    let mut made = Vec::new();
    for item in open.items {
        let Some(id) = crate::store::KeyItem::keys_of(&item)
            .1
            .strip_prefix(keys::bank_file::OPEN_REMITTANCE_PREFIX)
            .and_then(|id| id.parse::<i64>().ok())
        else {
            continue;
        };
        let (pk, sk) = keys::bank_file::remittance(account, id);
        match stored::find::<Remittance>(store, (pk, sk)).await? {
            Some(remittance) => made.push(finish(store, files, remittance).await?),
            None => {
                let (pk, sk) = keys::bank_file::open_remittance(account, id);
                store.write(vec![Write::delete(pk, sk)]).await?
            }
        }
    }
    Ok(made)
}

enum Claimed {
    /// Nothing waits.
    Empty,
    /// Stale instructions dropped, or a race lost: look again.
    Progress,
    File(Box<Remittance>),
}

/// Claims the next file's titles (see the module's text).
async fn claim(
    store: &Store,
    account: AccountId,
    agreement: &str,
    bank: &Bank,
    beneficiary: &Beneficiary,
) -> anyhow::Result<Claimed> {
    let range = KeyRange::prefix(
        keys::bank_file::remittance_queue(account, agreement),
        keys::bank_file::REMITTANCE_QUEUED_PREFIX,
        true,
    );
    let queued: Vec<Queued> = stored::read_all(store.page(&range, TITLES_PER_FILE, None).await?.items)?;
    if queued.is_empty() {
        return Ok(Claimed::Empty);
    }
    let (taken, stale) = still_queued(store, account, queued).await?;
    if taken.is_empty() {
        store.delete_all(stale).await?;
        return Ok(Claimed::Progress);
    }
    let (id, sequence) = tokio::try_join!(
        store.next_id(keys::account(account), keys::sequence("REMITTANCE")),
        store.next_id(keys::account(account), keys::bank_file::remittance_sequence(agreement)),
    )?;
    let mut titles = Vec::with_capacity(taken.len());
    let mut entries = Vec::with_capacity(taken.len());
    let mut writes = Vec::with_capacity(taken.len() + 2);
    for (q, billet, billing) in &taken {
        titles.push(title(billet, billing, q.instruction, bank, &beneficiary.agreement)?);
        entries.push(Entry {
            billing_id: billet.billing_id,
            billet_id: billet.id,
            instruction: q.instruction,
            amount: billet.amount,
        });
        match q.instruction {
            Instruction::Register => {
                let next = BankBillet { remittance_id: Some(id), ..billet.moved_to(BilletStatus::Remitting) };
                writes.push(billet.replace_with(account, &next)?);
            }
            Instruction::WriteOff => writes.push(stored::delete_if(q, (), Condition::present())),
        }
    }
    let remittance = remittance_of(account, agreement, bank, beneficiary, (id, sequence), &titles, entries);
    let (open_pk, open_sk) = keys::bank_file::open_remittance(account, id);
    writes.push(stored::insert(&remittance, ())?);
    writes.push(Write::put_keys(open_pk, open_sk));
    match store.write(writes).await {
        Ok(()) => {}
        // Another run took some of them first, or a billet changed: look again.
        Err(StoreError::ConditionFailed(_)) => return Ok(Claimed::Progress),
        Err(error) => return Err(error.into()),
    }
    if !stale.is_empty() {
        store.delete_all(stale).await?;
    }
    Ok(Claimed::File(Box::new(remittance)))
}

/// The queued instructions whose billet still asks for them (a registration of a billet still
/// pending and in no file, any write-off), with their billets and billings; and the keys of the
/// others, to drop.
async fn still_queued(
    store: &Store,
    account: AccountId,
    queued: Vec<Queued>,
) -> anyhow::Result<(Vec<(Queued, BankBillet, Billing)>, Vec<Key>)> {
    let billet_keys: Vec<Key> =
        queued.iter().map(|q| keys::billet::billet(account, q.billing_id, q.billet_id)).collect();
    let billing_ids: Vec<BillingId> = queued.iter().map(|q| q.billing_id).collect();
    let (billets, billings) = tokio::try_join!(
        stored::find_many::<BankBillet>(store, &billet_keys),
        records::find_many::<Billing>(store, account, &billing_ids),
    )?;
    let billets: HashMap<BilletId, BankBillet> = billets.into_iter().map(|b| (b.id, b)).collect();
    let billings: HashMap<BillingId, Billing> = billings.into_iter().map(|b| (b.id, b)).collect();
    let mut taken = Vec::new();
    let mut stale = Vec::new();
    for q in queued {
        let billet = billets.get(&q.billet_id);
        let billing = billings.get(&q.billing_id);
        match (q.instruction, billet, billing) {
            (Instruction::Register, Some(b), Some(g))
                if b.status == BilletStatus::PendingRemittance && b.remittance_id.is_none() =>
            {
                taken.push((q, b.clone(), g.clone()))
            }
            (Instruction::WriteOff, Some(b), Some(g)) => taken.push((q, b.clone(), g.clone())),
            _ => stale.push(q.key(())),
        }
    }
    Ok((taken, stale))
}

/// The remittance record of these titles: the file written, its key in the bucket and digest.
fn remittance_of(
    account: AccountId,
    agreement: &str,
    bank: &Bank,
    beneficiary: &Beneficiary,
    (id, sequence): (i64, i64),
    titles: &[Title],
    entries: Vec<Entry>,
) -> Remittance {
    let now = Timestamp::now();
    let file = file_of(bank, beneficiary, titles, u32::try_from(sequence % 1_000_000).unwrap_or(0), local(now));
    let total = entries.iter().fold(Money::ZERO, |sum, e| sum + e.amount);
    Remittance {
        id,
        account_id: account,
        agreement: agreement.to_owned(),
        sequence,
        state: OPEN.into(),
        titles: entries,
        total,
        key: format!("{}{account}/{}/{sequence:06}-{id}.rem", files::REMITTANCES, files::slug(agreement)),
        sha256: hex::encode(Sha256::digest(file.as_bytes())),
        file,
        created_at: now,
        closed_at: None,
    }
}

/// The file's time as the bank reads it (São Paulo).
fn local(at: Timestamp) -> NaiveDateTime {
    at.0.naive_local()
}

/// A billet and its billing as a title of the file.
fn title(
    billet: &BankBillet,
    billing: &Billing,
    instruction: Instruction,
    bank: &Bank,
    agreement: &Agreement,
) -> anyhow::Result<Title> {
    let our_number = bank
        .rules
        .our_number(agreement, billet.our_sequential_number)
        .with_context(|| format!("billet {}: our number out of the agreement's range", billet.id))?;
    // As the service computes them (`billings::compute`), in reais.
    let terms = billing.terms();
    let penalty = Money::new(compute::penalty(&terms));
    let interest_per_day = Money::new(compute::interest_per_day(&terms)).cents();
    let payer = &billet.payer;
    Ok(Title {
        movement: instruction.movement(),
        our_number,
        document_number: billing.code.clone(),
        due_date: billet.due_date,
        amount: billet.amount,
        issued_on: billet.created_at.date(),
        interest_per_day,
        penalty,
        payer: cnab::Payer {
            document: payer.payer_document.clone(),
            name: payer.payer_full_name.clone(),
            street: payer.payer_address_street.clone(),
            district: payer.payer_address_district.clone(),
            postal_code: payer.payer_address_postal_code.clone(),
            city: payer.payer_address_city.clone(),
            state: payer.payer_address_state.clone(),
        },
        reference: reference(billet.billing_id, billet.id),
    })
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

/// Writes the file, marks its billets `remittanced` and closes it; each step can be run again.
async fn finish(store: &Store, files: &Files, remittance: Remittance) -> anyhow::Result<Made> {
    let account = remittance.account_id;
    let registered: Vec<&Entry> = remittance.titles.iter().filter(|e| e.instruction == Instruction::Register).collect();
    // The queue items of the billets it registers (the claim's transaction had no room for them).
    let queue_pk = keys::bank_file::remittance_queue(account, &remittance.agreement);
    let done: Vec<Key> = registered
        .iter()
        .map(|e| {
            (
                queue_pk.clone(),
                keys::bank_file::remittance_queued(e.billing_id, e.billet_id, Instruction::Register.word()),
            )
        })
        .collect();
    store.delete_all(done).await?;
    files.put(&remittance.key, remittance.file.as_bytes()).await?;
    let on = remittance.created_at.date();
    let marks = futures::stream::iter(registered)
        .map(|entry| remitted(store, account, entry, remittance.id, on))
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    marks.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    let closed = Remittance { state: CLOSED.into(), closed_at: Some(Timestamp::now()), ..remittance.clone() };
    let (open_pk, open_sk) = keys::bank_file::open_remittance(account, remittance.id);
    let close = vec![stored::put_if(&closed, (), Condition::equals("state", OPEN))?, Write::delete(open_pk, open_sk)];
    match store.write(close).await {
        Ok(()) | Err(StoreError::ConditionFailed(_)) => {}
        Err(error) => return Err(error.into()),
    }
    tracing::info!(account = %account, remittance = remittance.id, key = %remittance.key, titles = remittance.titles.len(), "remittance file written");
    Ok(Made::from(&remittance))
}

/// One billet of the file `remittanced`, if it is still `remitting` in it.
async fn remitted(
    store: &Store,
    account: AccountId,
    entry: &Entry,
    remittance: i64,
    on: chrono::NaiveDate,
) -> anyhow::Result<()> {
    for _ in 0..5 {
        let found = crate::billets::model::find(store, account, entry.billing_id, entry.billet_id).await?;
        let Some(billet) = found.filter(|b| b.status == BilletStatus::Remitting && b.remittance_id == Some(remittance))
        else {
            return Ok(());
        };
        let mut next = billet.moved_to(BilletStatus::Remittanced);
        next.registered.remittanced_at = Some(on);
        next.registered.provider_status = Some("REMESSA GERADA".into());
        match store.write(vec![billet.replace_with(account, &next)?]).await {
            Ok(()) => return Ok(()),
            Err(StoreError::ConditionFailed(_)) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    anyhow::bail!("billet {} kept changing while it was marked remittanced", entry.billet_id)
}

/// An account's files, newest first (at most `limit`).
pub async fn list(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Vec<Remittance>> {
    let range = KeyRange::prefix(keys::bank_file::remittances(account), keys::bank_file::REMITTANCE_PREFIX, false);
    Ok(stored::read_all(store.page(&range, limit, None).await?.items)?)
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
        let writes = follow(account, &BilletWrite::Moved { from: sent.clone(), to: to.clone() }).unwrap();
        assert_eq!(writes.len(), 2, "the instruction and the agreement's marker");
        let pending = BankBillet { status: BilletStatus::PendingRemittance, ..from.clone() };
        assert!(follow(account, &BilletWrite::Moved { from: pending, to: to.clone() }).unwrap().is_empty());
        let paid = BankBillet { remittance_id: Some(4), ..from.moved_to(BilletStatus::Paid) };
        assert!(follow(account, &BilletWrite::Moved { from: sent, to: paid }).unwrap().is_empty());
    }
}
