//! One step of an export (the exports queue's worker): the next part read, uploaded, and the
//! export moved on in one transaction with the next step's message; the last completes the file.

use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};

use super::{Export, Part, Source, Status, PART_BYTES};
use crate::files::Files;
use crate::jobs::ExportStep;
use crate::store::Store;
use crate::values::Timestamp;

/// Rows read from the table at a time while a part fills.
const READ_ROWS: usize = 1_000;

/// What a step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// A part written; the next step's message recorded.
    Part { number: i32, rows: i64 },
    /// The last part written and the file completed.
    Done { rows: i64 },
    /// Not this message's turn (a copy, or a step already made): nothing done.
    Stale,
}

/// Runs the step `message` names.
pub async fn run(store: &Store, files: &Files, message: &ExportStep) -> anyhow::Result<Stepped> {
    let Some(export) = super::find(store, message.account_id, &message.export_id).await? else {
        return Ok(Stepped::Stale);
    };
    let number = i32::try_from(export.parts.len() + 1)?;
    if matches!(export.status, Status::Done | Status::Failed) || i64::from(number) != message.part {
        return Ok(Stepped::Stale);
    }
    let source = match Source::of(export.kind, &export.filters) {
        Ok(source) => source,
        Err(problems) => return fail(store, &export, &format!("{problems:?}")).await,
    };
    let export = begun(store, files, export).await?;
    let filled = fill(store, &source, &export, number).await?;
    let mut next = Export {
        rows_done: export.rows_done + filled.rows,
        cursor: filled.cursor.clone(),
        version: export.version + 1,
        ..export.clone()
    };
    let uploaded = upload(files, &export, number, filled.body).await;
    let etag = match uploaded {
        Ok(etag) => etag,
        // The upload is gone because a run of this step, killed before it saved the export, had
        // completed it: the file is there, and the export only needs saying so.
        Err(_) if file_exists(files, &export.key).await => return saved_done(store, &export, next).await,
        Err(error) => return Err(error),
    };
    next.parts.push(Part { number, etag });
    if filled.last {
        complete(files, &next).await?;
        return saved_done(store, &export, next).await;
    }
    let following = ExportStep::new(next.account_id, &next.id, i64::from(number) + 1);
    let writes = vec![export.replaced_by(&next)?, crate::jobs::tasks::record(export.account_id, &[following])?];
    match store.write(writes).await {
        Ok(()) => Ok(Stepped::Part { number, rows: filled.rows }),
        Err(error) if error.failed_at(0) => Ok(Stepped::Stale),
        Err(error) => Err(error.into()),
    }
}

/// A part as read: its text, its rows, the cursor after them, and whether nothing follows.
struct Filled {
    body: String,
    rows: i64,
    cursor: Option<String>,
    last: bool,
}

/// Part `number` of `export`: what follows its cursor until it is full or nothing follows (the
/// first begins with the byte-order mark and the header).
async fn fill(store: &Store, source: &Source, export: &Export, number: i32) -> anyhow::Result<Filled> {
    let mut body = String::with_capacity(PART_BYTES + 64 * 1024);
    if number == 1 {
        body.push_str(super::csv::BOM);
        body.push_str(&source.header());
    }
    let (mut cursor, mut rows, mut last) = (export.cursor.clone(), 0_i64, false);
    while body.len() < PART_BYTES && !last {
        let (read, next) = source.read(store, export.account_id, cursor.as_deref(), READ_ROWS).await?;
        rows += i64::try_from(read.len())?;
        read.iter().for_each(|row| body.push_str(row));
        last = next.is_none();
        cursor = next;
    }
    Ok(Filled { body, rows, cursor, last })
}

/// Uploads part `number` of the export's file (again: S3 keeps the last): its ETag.
async fn upload(files: &Files, export: &Export, number: i32, body: String) -> anyhow::Result<String> {
    let uploaded = files
        .client()
        .upload_part()
        .bucket(files.bucket())
        .key(&export.key)
        .upload_id(export.upload_id.clone().unwrap_or_default())
        .part_number(number)
        .body(ByteStream::from(body.into_bytes()))
        .send()
        .await?;
    Ok(uploaded.e_tag().unwrap_or_default().to_owned())
}

/// Completes the export's file from its parts (completed already by a copy of this step: the
/// file is there).
async fn complete(files: &Files, export: &Export) -> anyhow::Result<()> {
    let parts = export.parts.iter().map(|p| CompletedPart::builder().part_number(p.number).e_tag(&p.etag).build());
    let done = CompletedMultipartUpload::builder().set_parts(Some(parts.collect())).build();
    let completed = files
        .client()
        .complete_multipart_upload()
        .bucket(files.bucket())
        .key(&export.key)
        .upload_id(export.upload_id.clone().unwrap_or_default())
        .multipart_upload(done)
        .send()
        .await;
    match completed {
        Ok(_) => Ok(()),
        Err(_) if file_exists(files, &export.key).await => Ok(()),
        Err(error) => Err(error.into()),
    }
}

async fn file_exists(files: &Files, key: &str) -> bool {
    files.client().head_object().bucket(files.bucket()).key(key).send().await.is_ok()
}

/// Saves `next`, the export's file complete, over `export` as read.
async fn saved_done(store: &Store, export: &Export, mut next: Export) -> anyhow::Result<Stepped> {
    next.status = Status::Done;
    next.finished_at = Some(Timestamp::now());
    match store.write(vec![export.replaced_by(&next)?]).await {
        Ok(()) => Ok(Stepped::Done { rows: next.rows_done }),
        Err(error) if error.failed_at(0) => Ok(Stepped::Stale),
        Err(error) => Err(error.into()),
    }
}

/// The export with its multipart upload begun (`running`): begun now when it was not, and saved
/// before anything is uploaded to it.
async fn begun(store: &Store, files: &Files, export: Export) -> anyhow::Result<Export> {
    if export.upload_id.is_some() {
        return Ok(export);
    }
    let name = format!("attachment; filename=\"{}.csv\"", export.id);
    let made = files
        .client()
        .create_multipart_upload()
        .bucket(files.bucket())
        .key(&export.key)
        .content_type("text/csv; charset=utf-8")
        .content_disposition(name)
        .send()
        .await?;
    let upload_id = made.upload_id().map(str::to_owned);
    let next = Export { upload_id, status: Status::Running, version: export.version + 1, ..export.clone() };
    store.write(vec![export.replaced_by(&next)?]).await?;
    Ok(next)
}

async fn fail(store: &Store, export: &Export, why: &str) -> anyhow::Result<Stepped> {
    let next = Export {
        status: Status::Failed,
        error: Some(why.chars().take(500).collect()),
        finished_at: Some(Timestamp::now()),
        version: export.version + 1,
        ..export.clone()
    };
    store.write(vec![export.replaced_by(&next)?]).await?;
    Ok(Stepped::Stale)
}

/// The exports queue's worker: each message one step.
pub async fn handle_batch(
    store: &Store,
    files: &Files,
    event: aws_lambda_events::event::sqs::SqsEvent,
) -> aws_lambda_events::event::sqs::SqsBatchResponse {
    crate::jobs::handle_batch(event, "export step", move |message: ExportStep| async move {
        run(store, files, &message).await.map(|_| ())
    })
    .await
}
