//! The create route's part of a bulk billing: a body valid as any billing, references that exist,
//! at least one contact reached; then the expansion, its hold on the tags and its first task, in
//! one transaction.

use serde_json::Value;

use super::eligible::eligible;
use super::expansion::{chunk_message, tag_refs, tags_of, Expansion};
use crate::billings::input::Draft;
use crate::billings::service::check_references;
use crate::contention::retry_on_conflict;
use crate::jobs::tasks;
use crate::refusal::{Code, Problem, Refusal};
use crate::store::stored;
use crate::store::{Store, StoreError, Write};
use crate::values::{AccountId, TagId, Timestamp};

/// The body travels in the expansion item (and used to travel in the queue messages, which SQS
/// takes up to 256 KB each).
pub const MAX_BODY_BYTES: usize = 200_000;

pub const MSG_TOO_LARGE: &str = "Cobrança em lote grande demais: o corpo pode ter até 200 KB";
pub const MSG_NO_CONTACTS: &str =
    "Nenhum cliente ativo com a etiqueta (tag_id) fora das etiquetas excluídas: a cobrança em lote não geraria cobranças";

/// The writes that accept an expansion: the expansion, its hold on the tags, the first chunk's task.
fn hold(account: AccountId, expansion_id: &str, tags: &[TagId], body: &Value) -> Result<Vec<Write>, StoreError> {
    let expansion = Expansion {
        expansion_id: expansion_id.to_owned(),
        tag_ids: tags.to_vec(),
        body: Some(body.to_string()),
        cursor: 0,
        requested_at: Timestamp::now(),
    };
    let mut writes = vec![stored::insert(&expansion, account)?];
    writes.extend(tag_refs(account, expansion_id, tags, 1));
    writes.push(tasks::one(account, chunk_message(account, expansion_id, 0))?);
    Ok(writes)
}

/// Accepts a bulk billing whose body is valid: checks its references, counts the contacts it will
/// reach (returned), and writes the expansion with its hold on the tags and its first task. A bulk
/// billing reaching nobody is refused (422).
pub async fn accept(store: &Store, account: AccountId, draft: &Draft, billing: Value) -> Result<usize, Refusal> {
    if billing.to_string().len() > MAX_BODY_BYTES {
        return Err(Refusal::invalid(Problem::general(Code::TooLarge, MSG_TOO_LARGE)));
    }
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    let expansion_id = uuid::Uuid::new_v4().to_string();
    let tags = tags_of(draft);
    retry_on_conflict(|| async {
        // The reach counters of the tag and of the excluded tags, read beside the references: one
        // round trip, and the whole count when no tag is excluded.
        let excluded = &draft.excluded_tag_ids;
        let reach = excluded.iter().map(|e| crate::contacts::counts::reached_by(store, account, *e));
        let (_, reached, excluded_reach) = tokio::try_join!(
            check_references(store, account, draft),
            crate::contacts::counts::reached_by(store, account, tag),
            futures::future::try_join_all(reach),
        )?;
        let count = match excluded_reach.iter().sum::<usize>() {
            _ if excluded.is_empty() => reached,
            // Fewer reached holders of the excluded tags: read those, and take the ones the tag
            // reaches off its count.
            holding_excluded if holding_excluded < reached => {
                let left_out = crate::contacts::counts::reached_among(store, account, excluded, tag).await?;
                reached.saturating_sub(left_out)
            }
            // Otherwise the tag's own holders, one by one.
            _ => {
                let ids = crate::contacts::counts::holders(store, account, tag).await?;
                eligible(store, account, &ids, excluded).await?.len()
            }
        };
        if count == 0 {
            return Err(Refusal::invalid(Problem::invalid("tag_id", MSG_NO_CONTACTS)));
        }
        // A tag deleted since it was read fails this: the references are read again. An earlier
        // attempt whose answer was lost may have written it already: the id is this request's.
        match store.write(hold(account, &expansion_id, &tags, &billing)?).await {
            Ok(()) => Ok(count),
            Err(error) if error.failed_at(0) => Ok(count),
            Err(error) => Err(error.into()),
        }
    })
    .await
}
