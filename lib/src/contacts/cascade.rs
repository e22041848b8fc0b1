//! What a deleted tag or group leaves behind, cleared in the background: the tag id in its
//! holders' tag sets (and the tag's links), or `group_id` in its contacts. The delete answers at
//! once; in its transaction it writes the cascade's state (`A#<account>`, `CASCADE#<TAG|GROUP>#<id>`:
//! the round that runs next) and the task of its first message (`jobs::cascade_state::started`). Each message clears
//! up to [`CHUNK`] holders, found by key in the contact postings of the tag or group; each holder is
//! re-read and written on its version (a concurrent edit is never lost) without touching
//! `updated_at`, and a holder already cleared is skipped. A message runs only the round the state
//! names; while holders remain, the state moves to the next round in one transaction with that
//! round's task, on the condition that it still names this one, so a copy of a message clears
//! nothing twice and sends nothing twice. When no holder is left, the state is deleted, but not
//! before [`GRACE`] has passed since the delete: a contact written at the moment of the delete,
//! having read the tag or group before it (its transaction does not check it again), is
//! written by then, and that last round clears it. Meanwhile no reader
//! shows the deleted tag or group: contact views embed only existing tags and show `group_id` only
//! of an existing group, and lists by a deleted tag or group are empty.

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

use super::model::Contact;
use crate::contention::{move_cursor, retry_in_turn};
use crate::jobs::cascade_state::{state_keys, State};
use crate::jobs::{tasks, Cascade};
use crate::refusal::Refusal;
use crate::store::keys::{self, contact::contact_facet};
use crate::store::records;
use crate::store::stored;
use crate::store::{postings, Condition, KeyRange, Sort, Store, Update, Write};
use crate::values::{AccountId, ContactId, ContactType, GroupId, TagId, Timestamp};

/// Holders one message clears.
pub const CHUNK: usize = 100;

/// What one message came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Cleared this many holders; the next round's message is recorded.
    Continued(usize),
    Done(usize),
    /// Another message ran this round, or the cascade is over.
    Skipped(&'static str),
}

/// How long after the delete the cascade's last round runs at the earliest: longer than any
/// request that read the tag or group before it can go on writing (the API functions stop at 10 s).
const GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// One message: up to [`CHUNK`] holders of the deleted tag or group cleared, when the message
/// names the round that runs next.
pub async fn run(store: &Store, message: &Cascade) -> anyhow::Result<Outcome> {
    let account = message.account_id;
    let (pk, sk) = state_keys(message)?;
    let mut started_at = None;
    if let Some(round) = message.round {
        let state = stored::find::<State>(store, (pk.clone(), sk.clone())).await?;
        match state {
            Some(state) if state.round == round => started_at = state.started_at,
            _ => return Ok(Outcome::Skipped("another message ran this round, or the cascade is over")),
        }
    }
    // A tag's holders under today's facet and, those not yet renamed, the one before.
    let facets = match (message.tag_id, message.group_id) {
        (Some(tag), _) => keys::contact::ContactNames::BOTH.map(|names| names.tag(tag)).to_vec(),
        (None, Some(group)) => vec![contact_facet::group(Some(group))],
        (None, None) => anyhow::bail!("a cascade names a tag or a group"),
    };
    let mut holders: Vec<ContactId> = Vec::new();
    'read: for facet in &facets {
        for contact_type in ContactType::ALL {
            let range = KeyRange::listing(
                keys::contact::contact_postings(account, contact_type.as_str(), facet),
                Sort::All,
                true,
            );
            let found = postings::matching(store, &range, CHUNK - holders.len()).await?;
            holders.extend(found.keys().map(|id| ContactId::new(*id)));
            if holders.len() >= CHUNK {
                break 'read;
            }
        }
    }
    for id in &holders {
        clear(store, account, *id, message.tag_id, message.group_id).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let mut more = holders.len() >= CHUNK;
    if let Some(tag) = message.tag_id {
        // The links bulk expansion reads go with the tag.
        let links = store.first_keys(keys::contact::tag_links(account, tag), CHUNK + 1).await?;
        more |= links.len() > CHUNK;
        store.delete_all(links.into_iter().take(CHUNK).collect()).await?;
    }
    // No holder left before the grace is over: one more round when it is.
    let wait = match (more, started_at) {
        (false, Some(at)) => {
            let elapsed = (Timestamp::now().0 - at.0).to_std().unwrap_or_default();
            GRACE.checked_sub(elapsed).map(|left| left.as_secs() as u32 + 1)
        }
        _ => None,
    };
    next_round(store, message, (pk, sk), more || wait.is_some(), wait.unwrap_or(0))
        .await
        .map_err(|e| anyhow::anyhow!("the cascade's next round: {e}"))?;
    Ok(if more || wait.is_some() { Outcome::Continued(holders.len()) } else { Outcome::Done(holders.len()) })
}

/// Moves the state to the next round with its task, or ends the cascade, provided the state still
/// names this round (a copy running at the same time may have moved it). A message sent before
/// rounds were counted records its successor alone.
async fn next_round(
    store: &Store,
    message: &Cascade,
    (pk, sk): (String, String),
    more: bool,
    delay_seconds: u32,
) -> anyhow::Result<()> {
    let Some(round) = message.round else {
        if more {
            store.write(vec![tasks::one(message.account_id, message.clone())?]).await?;
        }
        return Ok(());
    };
    let here = Condition::equals("round", &round);
    let writes = match more {
        true => {
            let moved = Update::new().set("round", &(round + 1));
            let next = Cascade { round: Some(round + 1), ..message.clone() };
            vec![
                Write::update(pk, sk, moved, Some(here)),
                tasks::record_delayed(message.account_id, &[next], delay_seconds)?,
            ]
        }
        false => vec![Write::delete_if(pk, sk, here)],
    };
    move_cursor(store, writes).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

/// Takes the tag or group out of one contact, on its version.
async fn clear(
    store: &Store,
    account: AccountId,
    id: ContactId,
    tag: Option<TagId>,
    group: Option<GroupId>,
) -> Result<(), Refusal> {
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
        // The tag's counts go with it, as a write taking the tag off would move them.
        let counts = super::counts::reach_moves(account, Some(&current), Some(&next));
        records::replace(store, account, &current, &next, counts).await?;
        Ok(())
    })
    .await
}

/// The cascades worker: the batch's messages at once.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "cascade", move |message: Cascade| async move { run(store, &message).await }).await
}
