//! Return files: what the bank says of the billets a remittance told it of, applied
//! to them and their billings, whatever the bank's layout (`billets::banks`; the file names it).
//!
//! A file is read whole first (`billets::cnab_return`): a malformed one is refused naming the
//! line and the field, and nothing of it is applied. Then each title (segments T and U) is one line
//! of the file's ledger (`keys::bank_file::return_line`: the file's SHA-256 and the line's number), written in
//! the transaction that applies it: a line is applied once however often the file comes, and a
//! file uploaded twice changes nothing. The line finds its billet by the reference the remittance
//! sent ("uso da empresa": the billing's and the billet's ids), checked against the our number.
//!
//! What each occurrence code means is the bank's (`Bank::happened`; FEBRABAN's on 240: 02, 03, 06
//! and 17, 09, 23):
//! - **Registered**: a billet still waiting (`remitting`, `remittanced`) → `opened`.
//! - **Refused**: → `rejected`, `bank_rejection` in words from the bank's reason codes.
//! - **Paid**: → `paid` with what the bank reported (paid amount and day, fee, net amount,
//!   credit day), the billing `paid`, announced by `billing.updated`.
//! - **Written off**: the write-off this service asked for, confirmed (nothing changes); or
//!   the bank's own (the billet still open) → `canceled`.
//! - **Protested** (sent to the notary): → `protested` (still payable; its payment comes later).
//! - A line of a billet of another bank or layout than the file's is not applied.
//! - Anything that cannot be applied (no billet with that reference, an our number that does not
//!   match, a payment of a cancelled billet, a movement this service does not act on) is kept in the
//!   ledger as `not_applied` with the reason, and listed (`infra/ops return show`): never dropped.
//!
//! Every change is announced by `billing.updated`, in the transaction that makes it.

//!
//! This file reads and records a file; [`line`] applies each of its titles.

mod line;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::bank;
use super::remittance::{again, referenced};
use crate::billets::banks::{self, Bank, Happened};
use crate::billets::cnab_return::{self, Malformed, Returned};
use crate::billets::model::{BankBillet, BilletStatus};
use crate::billings::billets::lifecycle::BilletWrite;
use crate::billings::model::Billing;
use crate::billings::service::{change, Ruled};
use crate::payments;
use crate::refusal::Refusal;
use crate::store::item::number;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, KeyRange, Store};
use crate::values::{AccountId, BilletId, BillingId, Money, Timestamp};
use line::apply_line;

/// What became of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It changed its billet (and maybe its billing).
    Applied,
    /// It told what was already so (a registration of a billet already paid, a write-off asked for).
    Unchanged,
    /// Kept for a person to look at (`note` says why).
    NotApplied,
}

/// One title line of a return file, as applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub account_id: AccountId,
    pub sha256: String,
    pub line: usize,
    pub movement: String,
    pub our_number: String,
    pub reference: String,
    #[serde(default)]
    pub billing_id: Option<BillingId>,
    #[serde(default)]
    pub billet_id: Option<BilletId>,
    #[serde(with = "number")]
    pub amount: Money,
    #[serde(with = "number")]
    pub paid_amount: Money,
    pub outcome: Outcome,
    pub note: String,
    pub applied_at: Timestamp,
}

impl Stored for Line {
    const KIND: Option<&'static str> = Some("return_line");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::bank_file::return_line(self.account_id, &self.sha256, self.line)
    }
}

/// A return file as received.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReturnFile {
    pub account_id: AccountId,
    pub sha256: String,
    pub name: String,
    pub received_at: Timestamp,
    /// Title lines in the file.
    pub titles: usize,
    pub applied: usize,
    pub unchanged: usize,
    pub not_applied: usize,
    /// How many times it came (the same bytes again change nothing).
    pub received: i64,
    /// Why it was refused whole (line and field), when it was.
    #[serde(default)]
    pub refused: Option<String>,
}

impl Stored for ReturnFile {
    const KIND: Option<&'static str> = Some("return_file");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::bank_file::return_file(self.account_id, &self.sha256)
    }
}

/// What applying a file did this time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Applied {
    pub file: ReturnFile,
    /// Lines applied now (not those an earlier upload applied).
    pub applied_now: usize,
    /// Lines an earlier upload had already taken.
    pub already: usize,
}

/// Reads a file's bytes as the parser takes them: one character per byte (a byte outside ASCII, an
/// accent in a name, becomes `?`, so the positions stay).
pub fn text_of(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| if b.is_ascii() { b as char } else { '?' }).collect()
}

/// What names a return file: the SHA-256 of its bytes, in hexadecimal.
pub fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Applies a return file of `account` (see the module's text). `Ok(Err(_))`: the file is malformed
/// and nothing of it was applied.
pub async fn apply(
    store: &Store,
    account: AccountId,
    name: &str,
    bytes: &[u8],
) -> anyhow::Result<Result<Applied, Malformed>> {
    let sha256 = digest(bytes);
    match cnab_return::parse(&text_of(bytes)) {
        Ok(parsed) => Ok(Ok(apply_titles(store, account, name, &sha256, parsed.bank, &parsed.titles).await?)),
        Err(malformed) => {
            // Kept, so that `return show` lists it with the reason.
            let refused = ReturnFile {
                account_id: account,
                sha256: sha256.clone(),
                name: name.to_owned(),
                received_at: Timestamp::now(),
                titles: 0,
                applied: 0,
                unchanged: 0,
                not_applied: 0,
                received: 1,
                refused: Some(malformed.to_string()),
            };
            again(|| async { Ok(store.write(file_writes(&refused, true)?).await?) }).await?;
            Ok(Err(malformed))
        }
    }
}

/// Applies the titles of a return file of `bank`'s layout read already (`cnab_return::parse`) whose
/// bytes have the SHA-256 `sha256`.
pub async fn apply_titles(
    store: &Store,
    account: AccountId,
    name: &str,
    sha256: &str,
    bank: &'static Bank,
    titles: &[Returned],
) -> anyhow::Result<Applied> {
    let (mut applied_now, mut already) = (0, 0);
    for title in titles {
        match again(|| apply_line(store, account, sha256, bank, title)).await? {
            None => already += 1,
            Some(Outcome::Applied) => applied_now += 1,
            Some(_) => {}
        }
    }
    let file = again(|| record_file(store, account, sha256, name, titles.len())).await?;
    Ok(Applied { file, applied_now, already })
}

/// The file's record with the counts of its ledger (one read of its lines).
async fn record_file(
    store: &Store,
    account: AccountId,
    sha256: &str,
    name: &str,
    titles: usize,
) -> anyhow::Result<ReturnFile> {
    let lines = lines_of(store, account, sha256).await?;
    let count = |outcome: Outcome| lines.iter().filter(|l| l.outcome == outcome).count();
    let before = stored::find::<ReturnFile>(store, keys::bank_file::return_file(account, sha256)).await?;
    let first = before.is_none();
    let file = ReturnFile {
        account_id: account,
        sha256: sha256.to_owned(),
        name: before.as_ref().map_or_else(|| name.to_owned(), |f| f.name.clone()),
        received_at: before.as_ref().map_or_else(Timestamp::now, |f| f.received_at),
        titles,
        applied: count(Outcome::Applied),
        unchanged: count(Outcome::Unchanged),
        not_applied: count(Outcome::NotApplied),
        received: before.map_or(1, |f| f.received + 1),
        refused: None,
    };
    store.write(file_writes(&file, first)?).await?;
    Ok(file)
}

/// A file's record, and its place in the account's list when it first comes.
fn file_writes(file: &ReturnFile, first: bool) -> anyhow::Result<Vec<crate::store::Write>> {
    let mut writes = vec![stored::put(file, ())?];
    if first {
        let at = file.received_at.0.timestamp_millis();
        let (pk, sk) = keys::bank_file::return_file_listed(file.account_id, at, &file.sha256);
        writes.push(crate::store::Write::put_keys(pk, sk));
    }
    Ok(writes)
}

/// Every line of a file's ledger, in order.
pub async fn lines_of(store: &Store, account: AccountId, sha256: &str) -> anyhow::Result<Vec<Line>> {
    let range =
        KeyRange::prefix(keys::bank_file::return_lines(account, sha256), keys::bank_file::RETURN_LINE_PREFIX, true);
    let mut lines = Vec::new();
    let mut start = None;
    loop {
        let page = store.page(&range, 1000, start).await?;
        lines.extend(stored::read_all::<Line>(page.items)?);
        start = page.next;
        if start.is_none() {
            return Ok(lines);
        }
    }
}

/// An account's return files, the latest received first (at most `limit`).
pub async fn files_of(store: &Store, account: AccountId, limit: usize) -> anyhow::Result<Vec<ReturnFile>> {
    let range = KeyRange::prefix(keys::bank_file::return_files(account), keys::bank_file::RETURN_LISTED_PREFIX, false);
    let listed = store.page(&range, limit, None).await?.items;
    let keys: Vec<Key> = listed
        .iter()
        .filter_map(|item| {
            keys::bank_file::listed_return_sha256(&crate::store::KeyItem::keys_of(item).1).map(str::to_owned)
        })
        .map(|sha256| keys::bank_file::return_file(account, &sha256))
        .collect();
    let mut files: Vec<ReturnFile> = stored::find_many(store, &keys).await?;
    files.sort_by_key(|f| std::cmp::Reverse(f.received_at));
    Ok(files)
}

/// What the bucket's trigger did with one object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Received {
    pub key: String,
    /// `applied`, `refused` (malformed: `problem` names line and field), `ignored` (not under
    /// `returns/<account>/`, or an account that does not exist).
    pub result: &'static str,
    pub problem: Option<String>,
    pub applied_now: usize,
    pub already: usize,
}

/// The return-file trigger (S3 `ObjectCreated` under `returns/`): each object read and applied. An
/// `Err` (storage or S3 failing) makes Lambda try the event again, which is harmless: what was
/// applied stays applied once. A refused (malformed) file is recorded and then also an `Err`, after
/// the event's other files, so that the function's errors alarm tells a person.
pub async fn on_uploads(
    store: &Store,
    files: &crate::files::Files,
    event: aws_lambda_events::s3::S3Event,
) -> anyhow::Result<Vec<Received>> {
    let mut done = Vec::new();
    for record in event.records {
        let Some(raw) = record.s3.object.key else { continue };
        // Keys in S3 events are URL-encoded (a space is `+`).
        let key: String = form_urlencoded::parse(format!("k={raw}").as_bytes()).map(|(_, v)| v.into_owned()).collect();
        let received = |result, problem| Received { key: key.clone(), result, problem, applied_now: 0, already: 0 };
        let Some(account) = crate::files::account_of_return(&key) else {
            tracing::warn!(key, "a file outside returns/<account>/ is ignored");
            done.push(received("ignored", Some("not under returns/<account id>/".into())));
            continue;
        };
        if crate::accounts::find(store, account).await?.is_none() {
            tracing::error!(key, "a return file of an account that does not exist is ignored");
            done.push(received("ignored", Some(format!("no account {account}"))));
            continue;
        }
        let bytes = files.get(&key).await?;
        let name = key.rsplit('/').next().unwrap_or_default().to_owned();
        match apply(store, account, &name, &bytes).await? {
            Ok(applied) => {
                tracing::info!(
                    key,
                    applied = applied.applied_now,
                    already = applied.already,
                    not_applied = applied.file.not_applied,
                    "return file applied"
                );
                done.push(Received {
                    applied_now: applied.applied_now,
                    already: applied.already,
                    ..received("applied", None)
                });
            }
            Err(malformed) => {
                tracing::error!(key, "return file refused: {malformed}");
                done.push(received("refused", Some(malformed.to_string())));
            }
        }
    }
    if let Some(refused) = done.iter().find(|r| r.result == "refused") {
        anyhow::bail!("return file {} refused: {}", refused.key, refused.problem.as_deref().unwrap_or_default());
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_outside_ascii_keep_their_position() {
        assert_eq!(text_of("AÇÃO".as_bytes()).len(), "AÇÃO".len());
        assert_eq!(text_of(b"ab\r\n"), "ab\r\n");
    }
}
