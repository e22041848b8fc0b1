//! Bulk billings (§2.1, §4.2): one billing per active customer carrying a tag, made in the
//! background.
//!
//! The create route checks the body and its references as for any billing, counts the eligible
//! contacts and enqueues a `bulk_expansion` job: `202 {status, enqueued, contacts_count}`. No
//! billing exists yet. The worker expands a chunk of contacts per message, in ascending contact
//! id, and sends the message of the next chunk:
//! - eligible: an active `customer` linked to the tag, none of whose tags is in `excluded_tag_ids`,
//!   judged when its chunk runs (a contact tagged or deactivated meanwhile is judged then);
//! - each generated billing is an ordinary `individual` billing of that contact (the bulk billing
//!   is a request, not a record), with its billet registration asked for like any other;
//! - a guard item per (expansion, contact), written in the billing's own transaction, makes the
//!   worker idempotent: a message delivered twice, or a chunk run again after a failure, creates
//!   nothing twice.

use std::collections::HashSet;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde_json::{json, Value};

use super::input::{Draft, IssueType};
use super::model::Billing;
use super::routes::{check_references, insert_new};
use crate::accounts::AccountId;
use crate::contacts::Contact;
use crate::http::{ApiError, ApiResult};
use crate::jobs::{Job, Queues};
use crate::store::records::Record as _;
use crate::store::{keys, retry_on_conflict, Condition, Item, Store, Write};
use crate::time::Timestamp;

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

/// Accepts a bulk billing whose body is valid: checks its references, counts the contacts it will
/// reach and enqueues the expansion. A bulk billing reaching nobody is refused (422).
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
    check_references(store, account, draft).await?;
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    let ids = tagged_contact_ids(store, account, tag).await?;
    let count = eligible(store, account, &ids, &draft.excluded_tag_ids).await?.len();
    if count == 0 {
        return Err(ApiError::validation(MSG_NO_CONTACTS));
    }
    let job = Job::BulkExpansion {
        account_id: account,
        expansion_id: crate::billets::registrar::uuid_v4(),
        billing,
        after_contact_id: None,
        requested_at: Timestamp::now().to_string(),
    };
    queues.send(&job).await?;
    Ok(accepted(count))
}

/// Handles one SQS batch of the bulk-expansion queue; failed messages go back for redelivery.
pub async fn handle_batch(store: &Store, queues: &Queues, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "bulk expansion", move |job| async move {
        match job {
            Job::BulkExpansion { account_id, expansion_id, billing, after_contact_id, .. } => {
                expand(store, queues, account_id, &expansion_id, &billing, after_contact_id).await
            }
            other => anyhow::bail!("not a bulk expansion: {other:?}"),
        }
    })
    .await
}

/// What one expansion message came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expanded {
    /// Billings created by this message (those made by an earlier delivery are not counted).
    pub created: Vec<i64>,
    /// The contact after which the next message starts, when there is one.
    pub next_after: Option<i64>,
}

/// Runs one expansion message: the chunk of contacts after `after_contact_id`.
pub async fn expand(
    store: &Store,
    queues: &Queues,
    account: AccountId,
    expansion_id: &str,
    billing: &Value,
    after_contact_id: Option<i64>,
) -> anyhow::Result<Expanded> {
    let parsed = billing.as_object().map(|map| Draft::parse(crate::http::Fields::new(map)));
    let draft = match parsed {
        Some(Ok(draft)) if draft.issue_type == IssueType::Bulk => draft,
        // Accepted once, so only a hand-made message gets here: nothing to expand.
        other => anyhow::bail!("the expansion's billing is not a valid bulk billing: {other:?}"),
    };
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    // The bank rule, category or tag deleted since: the message fails and ends in the DLQ.
    check_references(store, account, &draft).await.map_err(|e| anyhow::anyhow!("references: {e:?}"))?;
    let ids: Vec<i64> = tagged_contact_ids(store, account, tag)
        .await?
        .into_iter()
        .filter(|id| after_contact_id.is_none_or(|after| *id > after))
        .collect();
    let chunk = &ids[..ids.len().min(CHUNK)];
    let next_after = (ids.len() > CHUNK).then(|| chunk[chunk.len() - 1]);
    let mut created = Vec::new();
    for contact in eligible(store, account, chunk, &draft.excluded_tag_ids).await? {
        if let Some(billing) = create_for(store, account, expansion_id, &draft, contact.id).await? {
            crate::billets::lifecycle::request_registration(queues, account, &billing).await;
            created.push(billing.id);
        }
    }
    if let Some(after) = next_after {
        let job = Job::BulkExpansion {
            account_id: account,
            expansion_id: expansion_id.to_owned(),
            billing: billing.clone(),
            after_contact_id: Some(after),
            requested_at: Timestamp::now().to_string(),
        };
        queues.send(&job).await?;
    }
    Ok(Expanded { created, next_after })
}

/// The billing of one contact of the expansion, unless an earlier run made it.
async fn create_for(
    store: &Store,
    account: AccountId,
    expansion_id: &str,
    bulk: &Draft,
    contact: i64,
) -> ApiResult<Option<Billing>> {
    let guard = keys::unique("BULKCONTACT", &format!("{expansion_id}#{contact}"));
    let draft = Draft {
        issue_type: IssueType::Individual,
        contact_id: Some(contact),
        patient_id: None,
        tag_id: None,
        excluded_tag_ids: Vec::new(),
        ..bulk.clone()
    };
    retry_on_conflict(|| async {
        // Read again on every attempt: a lost race is another delivery that made it.
        if store.get(keys::account(account), guard.clone()).await?.is_some() {
            return Ok(None);
        }
        let mut marker = Item::new();
        marker.insert("pk".into(), aws_sdk_dynamodb::types::AttributeValue::S(keys::account(account)));
        marker.insert("sk".into(), aws_sdk_dynamodb::types::AttributeValue::S(guard.clone()));
        let made = Write::put_if(marker, Condition::absent());
        insert_new(store, account, &draft, Some(contact), vec![made]).await.map(Some)
    })
    .await
}

/// Ids of the contacts linked to `tag`, ascending.
async fn tagged_contact_ids(store: &Store, account: AccountId, tag: i64) -> ApiResult<Vec<i64>> {
    let links = store.partition_keys(keys::tag_links(account, tag)).await?;
    let mut ids: Vec<i64> = links.iter().filter_map(|(_, sk)| keys::id_of(sk)).collect();
    ids.sort_unstable();
    Ok(ids)
}

/// Those of `ids` a bulk billing reaches (ascending): active customers without an excluded tag.
async fn eligible(store: &Store, account: AccountId, ids: &[i64], excluded: &[i64]) -> ApiResult<Vec<Contact>> {
    let excluded: HashSet<i64> = excluded.iter().copied().collect();
    let keys: Vec<_> = ids.iter().map(|id| (keys::account(account), keys::record(Contact::KIND, *id))).collect();
    let mut contacts = store
        .batch_get(&keys)
        .await?
        .iter()
        .map(Contact::from_item)
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .filter(|c| reached(c, &excluded))
        .collect::<Vec<_>>();
    contacts.sort_unstable_by_key(|c| c.id);
    Ok(contacts)
}

/// §2.1: inactive contacts and suppliers are skipped; holders of an excluded tag are left out.
fn reached(contact: &Contact, excluded: &HashSet<i64>) -> bool {
    contact.active && contact.contact_type == "customer" && !contact.tag_ids.iter().any(|t| excluded.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(active: bool, contact_type: &str, tag_ids: Vec<i64>) -> Contact {
        Contact { id: 1, active, contact_type: contact_type.into(), tag_ids, ..Contact::default() }
    }

    #[test]
    fn who_a_bulk_billing_reaches() {
        let excluded = HashSet::from([7]);
        assert!(reached(&contact(true, "customer", vec![3]), &excluded));
        assert!(!reached(&contact(false, "customer", vec![3]), &excluded));
        assert!(!reached(&contact(true, "supplier", vec![3]), &excluded));
        assert!(!reached(&contact(true, "customer", vec![3, 7]), &excluded));
    }

    #[test]
    fn the_accepted_body() {
        assert_eq!(accepted(12), json!({"status": 202, "enqueued": true, "contacts_count": 12}));
    }
}
