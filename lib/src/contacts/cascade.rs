//! What a deleted tag or group leaves behind, cleared in the background: the tag id in its
//! holders' tag sets (and the tag's links), or `group_id` in its contacts. The delete answers at
//! once and queues a message (`jobs::Cascade`); each message clears up to [`CHUNK`] holders, found
//! by key in the contact postings of the tag or group, and sends the next while any remain. Each
//! holder is re-read and written on its version (a concurrent edit is never lost) without touching
//! `updated_at`; a holder already cleared is skipped, so redeliveries and retries do no harm.
//! Meanwhile no reader shows the deleted tag or group: contact views embed only existing tags and
//! show `group_id` only of an existing group, and lists by a deleted tag or group are empty.

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

use super::model::Contact;
use crate::contention::retry_in_turn;
use crate::jobs::{Cascade, Queues};
use crate::store::records;
use crate::store::{keys, postings, KeyRange, Sort, Store};
use crate::values::{AccountId, ContactId, ContactType, GroupId, TagId};

/// Holders one message clears.
pub const CHUNK: usize = 100;

/// What one message came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Cleared this many holders; the next message is sent.
    Continued(usize),
    Done(usize),
}

/// One message: up to [`CHUNK`] holders of the deleted tag or group cleared.
pub async fn run(store: &Store, queues: &Queues, message: &Cascade) -> anyhow::Result<Outcome> {
    let account = message.account_id;
    let facet = match (message.tag_id, message.group_id) {
        (Some(tag), _) => format!("T{tag}"),
        (None, Some(group)) => format!("G{group}"),
        (None, None) => anyhow::bail!("a cascade names a tag or a group"),
    };
    let mut holders: Vec<ContactId> = Vec::new();
    for contact_type in ContactType::ALL {
        let range = KeyRange::listing(keys::contact_postings(account, contact_type.as_str(), &facet), Sort::All, true);
        let found = postings::matching(store, &range, CHUNK - holders.len()).await?;
        holders.extend(found.keys().map(|id| ContactId::new(*id)));
        if holders.len() >= CHUNK {
            break;
        }
    }
    for id in &holders {
        clear(store, account, *id, message.tag_id, message.group_id).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let mut more = holders.len() >= CHUNK;
    if let Some(tag) = message.tag_id {
        // The links bulk expansion reads go with the tag.
        let links = store.first_keys(keys::tag_links(account, tag), CHUNK + 1).await?;
        more |= links.len() > CHUNK;
        store.delete_all(links.into_iter().take(CHUNK).collect()).await?;
    }
    if more {
        queues.send(message).await?;
        return Ok(Outcome::Continued(holders.len()));
    }
    Ok(Outcome::Done(holders.len()))
}

/// Takes the tag or group out of one contact, on its version.
async fn clear(
    store: &Store,
    account: AccountId,
    id: ContactId,
    tag: Option<TagId>,
    group: Option<GroupId>,
) -> crate::http::ApiResult<()> {
    retry_in_turn(records::key_of::<Contact>(account, id), || async {
        let Some(current) = records::find::<Contact>(store, account, id).await? else { return Ok(()) };
        let mut next = current.clone();
        if let Some(tag) = tag {
            next.tag_ids.retain(|t| *t != tag);
        }
        if group.is_some() && next.group_id == group {
            next.group_id = None;
        }
        if next == current {
            return Ok(());
        }
        next.version += 1;
        records::replace(store, account, &current, &next, Vec::new()).await?;
        Ok(())
    })
    .await
}

/// The cascades worker: the batch's messages at once.
pub async fn handle_batch(store: &Store, queues: &Queues, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(
        event,
        "cascade",
        move |message: Cascade| async move { run(store, queues, &message).await },
    )
    .await
}
