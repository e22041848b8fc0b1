//! Bulk billings (§2.1, §4.2): one billing per active customer carrying a tag, made in the
//! background.
//!
//! The create route checks the body and its references as for any billing, counts the eligible
//! contacts and enqueues a `bulk_expansion` message: `202 {status, enqueued, contacts_count}`. No
//! billing exists yet. From acceptance until its last chunk has run, the expansion holds a
//! reference on its tag and excluded tags (an expansion item and `billing_refs` + 1 on each, in
//! one transaction), so a tag in use by a bulk request still expanding cannot be deleted (§4.5).
//! The worker expands a chunk of contacts per message, in ascending contact id, and sends the
//! message of the next chunk; the last chunk releases the hold:
//! - eligible: an active `customer` linked to the tag, none of whose tags is in `excluded_tag_ids`,
//!   judged when its chunk runs (a contact tagged or deactivated meanwhile is judged then);
//! - each generated billing is a bulk billing (`billing_issue_type = bulk`, the request's `tag_id`
//!   and `excluded_tag_ids`) whose payer (`contact_id`) is that contact, with its billet
//!   registration asked for like any other; it counts on its tags like any billing, so the tag
//!   stays in use while the billings it made exist;
//! - a guard item per (expansion, contact), written in the billing's own transaction, makes the
//!   worker idempotent: a message delivered twice, or a chunk run again after a failure, creates
//!   nothing twice; the hold is released by deleting the expansion item, which happens once.

use std::collections::HashSet;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::input::Draft;
use super::model::Billing;
use super::service::{check_references, insert_new};
use crate::contacts::Contact;
use crate::contention::retry_on_conflict;
use crate::http::{ApiError, ApiResult, Fields};
use crate::jobs::{BulkExpansion, Queues};
use crate::store::records;
use crate::store::records::Record as _;
use crate::store::{item, keys, refs, Condition, KeyItem, Store, StoreError, Write};
use crate::tags::Tag;
use crate::values::{AccountId, ContactId, ContactType, IssueType, TagId, Timestamp};

/// Contacts expanded by one message: a few seconds of work, well inside the function's timeout.
pub const CHUNK: usize = 25;

/// The body travels in the queue messages (SQS takes up to 256 KB each).
pub const MAX_BODY_BYTES: usize = 200_000;

pub const MSG_TOO_LARGE: &str = "Cobrança em lote grande demais: o corpo pode ter até 200 KB";
pub const MSG_NO_CONTACTS: &str =
    "Nenhum cliente ativo com a etiqueta (tag_id) fora das etiquetas excluídas: a cobrança em lote não geraria cobranças";

/// What a bulk create answers (`202`).
pub fn accepted(contacts_count: usize) -> Value {
    json!({"status": 202, "enqueued": true, "contacts_count": contacts_count})
}

/// An expansion while it runs: which tags it holds.
#[derive(Serialize, Deserialize)]
struct Expansion {
    pk: String,
    sk: String,
    kind: String,
    expansion_id: String,
    tag_ids: Vec<TagId>,
    requested_at: Timestamp,
}

/// The tags a bulk draft uses: its target and the excluded ones.
fn tags_of(draft: &Draft) -> Vec<TagId> {
    let mut tags: Vec<TagId> = draft.tag_id.into_iter().collect();
    tags.extend(draft.excluded_tag_ids.iter().copied().filter(|t| Some(*t) != draft.tag_id));
    tags
}

/// The tags' reference counts moved by `delta`, in the shard of the expansion (each tag must
/// still exist when held).
fn tag_refs(account: AccountId, expansion_id: &str, tags: &[TagId], delta: i64) -> Vec<Write> {
    let holder = i64::from(expansion_id.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))));
    let mut writes = Vec::new();
    for tag in tags {
        writes.push(refs::moved(account, Tag::KIND, tag.get(), holder, delta));
        if delta > 0 {
            let (pk, sk) = records::key_of::<Tag>(account, *tag);
            writes.push(Write::check_exists(pk, sk));
        }
    }
    writes
}

/// The writes that hold the expansion's tags.
fn hold(account: AccountId, expansion_id: &str, tags: &[TagId]) -> Result<Vec<Write>, StoreError> {
    let expansion = Expansion {
        pk: keys::account(account),
        sk: keys::bulk_expansion(expansion_id),
        kind: "bulk_expansion".to_owned(),
        expansion_id: expansion_id.to_owned(),
        tag_ids: tags.to_vec(),
        requested_at: Timestamp::now(),
    };
    let mut writes = vec![Write::put_if(item::to_item(&expansion)?, Condition::absent())];
    writes.extend(tag_refs(account, expansion_id, tags, 1));
    Ok(writes)
}

/// Releases the expansion's hold on its tags, once: a second release finds the expansion gone.
async fn release(store: &Store, account: AccountId, expansion_id: &str, tags: &[TagId]) -> anyhow::Result<()> {
    let mut writes =
        vec![Write::delete_if(keys::account(account), keys::bulk_expansion(expansion_id), Condition::present())];
    writes.extend(tag_refs(account, expansion_id, tags, -1));
    match store.write(writes).await {
        Ok(()) => Ok(()),
        Err(error) if error.failed_at(0) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Accepts a bulk billing whose body is valid: checks its references, counts the contacts it will
/// reach, holds its tags and enqueues the expansion. A bulk billing reaching nobody is refused
/// (422).
pub async fn accept(
    store: &Store,
    queues: &Queues,
    account: AccountId,
    draft: &Draft,
    billing: Value,
) -> ApiResult<Value> {
    if billing.to_string().len() > MAX_BODY_BYTES {
        return Err(ApiError::validation(MSG_TOO_LARGE));
    }
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    let expansion_id = uuid::Uuid::new_v4().to_string();
    let tags = tags_of(draft);
    let count = retry_on_conflict(|| async {
        check_references(store, account, draft).await?;
        let ids = tagged_contact_ids(store, account, tag).await?;
        let count = eligible(store, account, &ids, &draft.excluded_tag_ids).await?.len();
        if count == 0 {
            return Err(ApiError::validation(MSG_NO_CONTACTS));
        }
        // A tag deleted since it was read fails this: the references are read again.
        store.write(hold(account, &expansion_id, &tags)?).await?;
        Ok(count)
    })
    .await?;
    let message = BulkExpansion {
        account_id: account,
        expansion_id: expansion_id.clone(),
        billing,
        after_contact_id: None,
        requested_at: Timestamp::now().to_string(),
    };
    if let Err(error) = queues.send(&message).await {
        // Nothing will expand: the tags are free again.
        if let Err(released) = release(store, account, &expansion_id, &tags).await {
            tracing::error!(error = ?released, expansion_id, "could not release a bulk expansion that was not enqueued");
        }
        return Err(error.into());
    }
    Ok(accepted(count))
}

/// Handles one SQS batch of the bulk-expansion queue; failed messages go back for redelivery.
pub async fn handle_batch(store: &Store, queues: &Queues, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "bulk expansion", move |message: BulkExpansion| async move {
        expand(store, queues, &message).await
    })
    .await
}

/// What one expansion message came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Expanded {
    /// Billings created by this message (those made by an earlier delivery are not counted).
    pub created: Vec<Billing>,
    /// The contact after which the next message starts, when there is one.
    pub next_after: Option<ContactId>,
}

/// Runs one expansion message: the chunk of contacts after `after_contact_id`.
pub async fn expand(store: &Store, queues: &Queues, message: &BulkExpansion) -> anyhow::Result<Expanded> {
    let account = message.account_id;
    let parsed = message.billing.as_object().map(|map| Draft::parse(Fields::new(map)));
    let draft = match parsed {
        Some(Ok(draft)) if draft.issue_type == IssueType::Bulk => draft,
        // Accepted once, so only a hand-made message gets here: nothing to expand.
        other => anyhow::bail!("the expansion's billing is not a valid bulk billing: {other:?}"),
    };
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    // The bank rule or category deleted since: the message fails and ends in the DLQ.
    check_references(store, account, &draft).await.map_err(|e| anyhow::anyhow!("references: {e:?}"))?;
    let ids: Vec<ContactId> = tagged_contact_ids(store, account, tag)
        .await?
        .into_iter()
        .filter(|id| message.after_contact_id.is_none_or(|after| *id > after))
        .collect();
    let chunk = &ids[..ids.len().min(CHUNK)];
    let next_after = (ids.len() > CHUNK).then(|| chunk[chunk.len() - 1]);
    let mut created = Vec::new();
    for contact in eligible(store, account, chunk, &draft.excluded_tag_ids).await? {
        if let Some(billing) = create_for(store, account, &message.expansion_id, &draft, contact.id).await? {
            crate::billets::lifecycle::request_registration(queues, account, &billing).await;
            created.push(billing);
        }
    }
    match next_after {
        Some(after) => {
            let next = BulkExpansion {
                after_contact_id: Some(after),
                requested_at: Timestamp::now().to_string(),
                ..message.clone()
            };
            queues.send(&next).await?;
        }
        None => release(store, account, &message.expansion_id, &tags_of(&draft)).await?,
    }
    Ok(Expanded { created, next_after })
}

/// The billing of one contact of the expansion, unless an earlier run made it.
async fn create_for(
    store: &Store,
    account: AccountId,
    expansion_id: &str,
    bulk: &Draft,
    contact: ContactId,
) -> ApiResult<Option<Billing>> {
    let guard = keys::unique("BULKCONTACT", &format!("{expansion_id}#{contact}"));
    retry_on_conflict(|| async {
        // Read again on every attempt: a lost race is another delivery that made it.
        if store.get(keys::account(account), guard.clone()).await?.is_some() {
            return Ok(None);
        }
        let marker = item::to_item(&KeyItem { pk: keys::account(account), sk: guard.clone() })?;
        let made = Write::put_if(marker, Condition::absent());
        insert_new(store, account, bulk, Some(contact), vec![made]).await.map(Some)
    })
    .await
}

/// Ids of the contacts linked to `tag`, ascending.
async fn tagged_contact_ids(store: &Store, account: AccountId, tag: TagId) -> ApiResult<Vec<ContactId>> {
    let links = store.partition_keys(keys::tag_links(account, tag)).await?;
    let mut ids: Vec<ContactId> = links.iter().filter_map(|(_, sk)| keys::id_of(sk)).map(ContactId::new).collect();
    ids.sort_unstable();
    Ok(ids)
}

/// Those of `ids` a bulk billing reaches (ascending): active customers without an excluded tag.
async fn eligible(store: &Store, account: AccountId, ids: &[ContactId], excluded: &[TagId]) -> ApiResult<Vec<Contact>> {
    let excluded: HashSet<TagId> = excluded.iter().copied().collect();
    let mut contacts: Vec<Contact> = records::find_many::<Contact>(store, account, ids)
        .await?
        .into_iter()
        .filter(|c| reached(c, &excluded))
        .collect();
    contacts.sort_unstable_by_key(|c| c.id);
    Ok(contacts)
}

/// §2.1: inactive contacts and suppliers are skipped; holders of an excluded tag are left out.
fn reached(contact: &Contact, excluded: &HashSet<TagId>) -> bool {
    contact.active
        && contact.contact_type == ContactType::Customer
        && !contact.tag_ids.iter().any(|t| excluded.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(active: bool, contact_type: ContactType, tag_ids: Vec<i64>) -> Contact {
        Contact {
            active,
            contact_type,
            tag_ids: tag_ids.into_iter().map(TagId::new).collect(),
            ..Contact::blank(ContactId::new(1))
        }
    }

    #[test]
    fn who_a_bulk_billing_reaches() {
        let excluded = HashSet::from([TagId::new(7)]);
        assert!(reached(&contact(true, ContactType::Customer, vec![3]), &excluded));
        assert!(!reached(&contact(false, ContactType::Customer, vec![3]), &excluded));
        assert!(!reached(&contact(true, ContactType::Supplier, vec![3]), &excluded));
        assert!(!reached(&contact(true, ContactType::Customer, vec![3, 7]), &excluded));
    }

    #[test]
    fn the_accepted_body() {
        assert_eq!(accepted(12), json!({"status": 202, "enqueued": true, "contacts_count": 12}));
    }

    #[test]
    fn the_tags_an_expansion_holds() {
        let draft = |tag: i64, excluded: Vec<i64>| Draft {
            tag_id: Some(TagId::new(tag)),
            excluded_tag_ids: excluded.into_iter().map(TagId::new).collect(),
            ..super::super::input::tests::valid_draft()
        };
        assert_eq!(tags_of(&draft(3, vec![4, 5])), [TagId::new(3), TagId::new(4), TagId::new(5)]);
        assert_eq!(tags_of(&draft(3, vec![3])), [TagId::new(3)], "each tag once");
    }
}
