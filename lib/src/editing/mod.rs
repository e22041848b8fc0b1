//! The records the API creates, edits and deletes field by field (tags, groups, contacts): the
//! workflow they share. Parse → rule → store, with a lost race run again (`contention`), a taken
//! unique value answered with the record's own 422, and nothing half-saved. What a deletion takes
//! with it (links, cascades) belongs to each resource's own service.

pub mod routes;

use std::future::Future;

use crate::contention::retry_in_turn;
use crate::refusal::{Code, Problem, Refusal};
use crate::store::records::{self, Record};
use crate::store::refs;
use crate::store::{Store, StoreError, Write};
use crate::values::{AccountId, Timestamp};

/// A record the API creates, edits and deletes from parsed changes.
pub trait Editable: Record + Clone {
    type Changes: Clone + Send + Sync;
    /// The 422 message when billings still depend on the record.
    const IN_USE: &'static str;

    /// The 422 problem when its unique value is taken (code `taken`, on the unique field).
    fn duplicate(&self) -> Problem;
    /// A new record from the changes, or the 422 they deserve.
    fn create(id: Self::Id, changes: &Self::Changes, now: Timestamp) -> Result<Self, Refusal>;
    /// The record with the changes applied and its version bumped, `None` when nothing changes, or
    /// the 422 they deserve.
    fn changed(&self, changes: &Self::Changes, now: Timestamp) -> Result<Option<Self>, Refusal>;
    /// Whether billings still depend on it (deleting is refused).
    fn in_use(&self) -> bool;

    /// Why it cannot be deleted: used by billings (`billed`), or by what [`Editable::in_use`] says.
    fn in_use_message(&self, _billed: bool) -> &'static str {
        Self::IN_USE
    }

    /// Writes that belong in the transaction storing `self` over `before` (reference checks,
    /// links, counters). May read the store to refuse unknown references with a 422.
    fn related_writes(
        &self,
        _before: Option<&Self>,
        _store: &Store,
        _account: AccountId,
    ) -> impl Future<Output = Result<Vec<Write>, Refusal>> + Send {
        async { Ok(Vec::new()) }
    }

    /// Writes that belong in the transaction deleting it.
    fn delete_writes(&self, _account: AccountId) -> Vec<Write> {
        Vec::new()
    }
}

/// A change that moves more index entries than one transaction holds (a contact's 40 tags all
/// replaced by 40 others: every tag's link, posting and count move).
pub const MSG_TOO_MANY_CHANGES: &str =
    "Alterações demais de uma só vez (cada etiqueta trocada move os índices do contato): faça a mudança em partes";

/// A refused write of `record`: its unique value taken is a 422 with its message; any other
/// refused condition is a lost race.
fn refusal<R: Editable>(record: &R, error: StoreError) -> Refusal {
    match error {
        StoreError::Duplicate => Refusal::invalid(record.duplicate()),
        StoreError::TooManyWrites(_) => Refusal::invalid(Problem::general(Code::TooLong, MSG_TOO_MANY_CHANGES)),
        other => other.into(),
    }
}

/// The account's record `id`, or 404.
pub async fn find_or_404<R: Record>(store: &Store, account: AccountId, id: R::Id) -> Result<R, Refusal> {
    records::find(store, account, id).await?.ok_or(Refusal::NotFound)
}

/// Creates a record with a new id; a lost race is retried, a taken unique value is a 422.
pub async fn create<R: Editable>(store: &Store, account: AccountId, changes: &R::Changes) -> Result<R, Refusal> {
    crate::contention::retry_on_conflict(|| async {
        let record = R::create(records::next_id::<R>(store, account).await?, changes, Timestamp::now())?;
        let also = record.related_writes(None, store, account).await?;
        records::insert(store, account, &record, also).await.map_err(|e| refusal(&record, e))?;
        Ok(record)
    })
    .await
}

/// Applies changes to the account's record `id` (404 when it has none); an update that changes
/// nothing writes nothing.
pub async fn update<R: Editable>(
    store: &Store,
    account: AccountId,
    id: R::Id,
    changes: &R::Changes,
) -> Result<R, Refusal> {
    retry_in_turn(records::key_of::<R>(account, id), || async {
        let current: R = find_or_404(store, account, id).await?;
        let Some(next) = current.changed(changes, Timestamp::now())? else {
            return Ok(current);
        };
        let also = next.related_writes(Some(&current), store, account).await?;
        records::replace(store, account, &current, &next, also).await.map_err(|e| refusal(&next, e))?;
        Ok(next)
    })
    .await
}

/// Deletes the account's record `id` (404 when missing, 422 while billings or anything else use
/// it), with what goes with it and `also` (the task of a background cascade) in one transaction.
/// A delete whose answer was lost (DynamoDB failed or timed out after applying it) and that is
/// therefore run again finds the record gone: that is this request's delete, and it succeeded.
pub async fn delete<R: Editable>(
    store: &Store,
    account: AccountId,
    id: R::Id,
    also: Vec<Write>,
) -> Result<(), Refusal> {
    let uncertain = std::sync::atomic::AtomicBool::new(false);
    retry_in_turn(records::key_of::<R>(account, id), || async {
        let current: R = match find_or_404(store, account, id).await {
            Err(Refusal::NotFound) if uncertain.load(std::sync::atomic::Ordering::SeqCst) => return Ok(()),
            found => found?,
        };
        let billed = refs::count(store, account, R::KIND, id.into()).await? > 0;
        if billed || current.in_use() {
            return Err(Refusal::invalid(Problem::general(Code::InUse, current.in_use_message(billed))));
        }
        let mut writes = current.delete_writes(account);
        writes.extend(refs::unused(account, R::KIND, id.into()));
        writes.extend(also.iter().cloned());
        match records::remove(store, account, &current, writes).await {
            Err(StoreError::Unavailable(source)) => {
                uncertain.store(true, std::sync::atomic::Ordering::SeqCst);
                Err(Refusal::Unavailable(source))
            }
            other => Ok(other?),
        }
    })
    .await
}
