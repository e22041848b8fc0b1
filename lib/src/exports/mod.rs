//! Exports (`POST /v1/exports`, beyond the spec): the account's billings or payments, filtered as
//! their lists, written in the background to the bank files' bucket as one CSV file an accountant
//! opens in a spreadsheet (`csv`), and handed out as a short-lived signed URL.
//!
//! The export is a record (`keys::export`) and a queue message per part (`jobs::ExportStep`, a
//! task in the record's transaction). Each step reads the rows after the export's cursor by key
//! (`sources`) until a part of [`PART_BYTES`] is full, uploads it as that part of the file's S3
//! multipart upload, then moves the export on (cursor, rows done, the part's ETag, the next step's
//! message) in one transaction over the version it read: memory holds one part whatever the size,
//! and a step killed or delivered twice uploads its part again under the same number (S3 keeps
//! the last), so no row is written twice. The last step completes the upload.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::refusal::{Problem, Refusal};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, Condition, Store, Write};
use crate::values::{AccountId, Timestamp};

pub mod csv;
pub mod routes;
mod sources;
pub mod step;

pub use sources::Source;

/// The size a part grows to before it is uploaded (S3 takes parts of at least 5 MiB but the last).
pub const PART_BYTES: usize = 6 * 1024 * 1024;

/// How long a download link lasts.
pub const LINK_SECONDS: u64 = 15 * 60;

/// What is exported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Billings,
    Payments,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Recorded; its first part not written yet.
    Queued,
    Running,
    Done,
    /// It could not be made (`error` says why).
    Failed,
}

/// A part uploaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub number: i32,
    pub etag: String,
}

/// An export, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Export {
    pub id: String,
    pub account_id: AccountId,
    /// (Stored as `exported`: an item's `kind` names its record's kind.)
    #[serde(rename = "exported")]
    pub kind: Kind,
    /// The list's query parameters it was asked with (checked by `sources`).
    pub filters: BTreeMap<String, String>,
    pub status: Status,
    /// How many rows it will hold, when the counters know (`None`: a filter they do not count).
    pub rows_total: Option<i64>,
    pub rows_done: i64,
    pub parts: Vec<Part>,
    /// The file's key in the bucket, and its S3 multipart upload once begun.
    pub key: String,
    #[serde(default)]
    pub upload_id: Option<String>,
    /// Where the next part starts (`sources`' cursor); none before the first.
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    pub created_at: Timestamp,
    #[serde(default)]
    pub finished_at: Option<Timestamp>,
    pub version: i64,
}

impl Stored for Export {
    const KIND: Option<&'static str> = Some("export");
    type Scope<'a> = ();

    fn key(&self, (): ()) -> Key {
        keys::export::export(self.account_id, &self.id)
    }
}

impl Export {
    /// The write of `next` over this export as read (its version).
    pub fn replaced_by(&self, next: &Export) -> Result<Write, Refusal> {
        Ok(stored::put_if(next, (), Condition::version(self.version))?)
    }
}

/// An export id: `exp_` and a UUID v7's 32 hex digits (time-ordered).
fn new_id() -> String {
    format!("exp_{}", uuid::Uuid::now_v7().simple())
}

/// The account's export `id`, when it is one.
pub async fn find(store: &Store, account: AccountId, id: &str) -> Result<Option<Export>, Refusal> {
    let shaped =
        id.strip_prefix("exp_").is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
    if !shaped {
        return Ok(None);
    }
    Ok(stored::find::<Export>(store, keys::export::export(account, id)).await?)
}

/// Records an export of `kind` with these filters and its first step's message: `422` naming a
/// filter the list would refuse (or that exports do not take).
pub async fn create(
    store: &Store,
    account: AccountId,
    kind: Kind,
    filters: BTreeMap<String, String>,
) -> Result<Export, Refusal> {
    let source = Source::of(kind, &filters).map_err(Refusal::Invalid)?;
    let rows_total = source.total(store, account).await?;
    if rows_total.is_some_and(|total| total > MAX_ROWS) {
        let message = format!("A exportação teria mais de {MAX_ROWS} linhas: filtre por período");
        return Err(Refusal::invalid(Problem::general(crate::refusal::Code::Invalid, message)));
    }
    let id = new_id();
    let export = Export {
        key: format!("{}{account}/{id}.csv", crate::files::EXPORTS),
        id,
        account_id: account,
        kind,
        filters,
        status: Status::Queued,
        rows_total,
        rows_done: 0,
        parts: Vec::new(),
        upload_id: None,
        cursor: None,
        error: None,
        created_at: Timestamp::now(),
        finished_at: None,
        version: 1,
    };
    let first = crate::jobs::ExportStep::new(account, &export.id, 1);
    let writes = vec![stored::insert(&export, ())?, crate::jobs::tasks::record(account, &[first])?];
    store.write(writes).await?;
    Ok(export)
}

/// A signed link to the export's file, for [`LINK_SECONDS`], and when it ends.
pub async fn link(files: &crate::files::Files, export: &Export) -> Result<(String, Timestamp), Refusal> {
    let seconds = std::time::Duration::from_secs(LINK_SECONDS);
    let signing =
        aws_sdk_s3::presigning::PresigningConfig::expires_in(seconds).map_err(|e| Refusal::Internal(e.into()))?;
    let signed = files.client().get_object().bucket(files.bucket()).key(&export.key).presigned(signing).await;
    let signed = signed.map_err(|e| Refusal::Unavailable(anyhow::anyhow!("signing the export's link: {e}")))?;
    let ends = Timestamp(Timestamp::now().0 + chrono::Duration::seconds(i64::try_from(LINK_SECONDS).unwrap_or(900)));
    Ok((signed.uri().to_owned(), ends))
}

/// The most rows one export holds (its parts' ETags stay one small item).
pub const MAX_ROWS: i64 = 10_000_000;
