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
//! - each chunk is planned once: its contacts (read once, when the chunk first runs), whether each
//!   is reached, and the ids of its billings and items (reserved together) are written in a plan
//!   item before any billing. A redelivery, or a run after a crash, follows the plan: it reads which
//!   of the planned billings exist and writes only the others, so nothing is made twice;
//! - the billings are written in transactions of up to about thirty (the billing, and its count on
//!   its contact, which fails on a contact deleted meanwhile; once per transaction, the counts on the
//!   tags, the checks of the bank rule and category and the billings counter), all at once; their
//!   postings (the lists' key-only entries) follow in batch writes, and a rerun of the plan writes
//!   them again for its billings still unchanged. Per billing that is about 0.15 sequential round
//!   trips and 11 to 12 write units (`docs/data-model.md`), where one transaction per billing took
//!   2.2 round trips and 34 units;
//! - the hold is released by deleting the expansion item, which happens once.

use std::collections::HashSet;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::input::Draft;
use super::model::Billing;
use super::service::check_references;
use crate::contacts::Contact;
use crate::contention::retry_on_conflict;
use crate::http::{ApiError, ApiResult, Fields};
use anyhow::Context as _;

use crate::jobs::{BilletRegistration, BulkExpansion, Queues};
use crate::store::records;
use crate::store::records::Record as _;
use crate::store::{item, keys, refs, shards, Condition, Item, KeyRange, Sort, Store, StoreError, Write};
use crate::tags::Tag;
use crate::values::{AccountId, BillingId, ContactId, ContactType, IssueType, TagId, Timestamp};

/// Contacts expanded by one message: a few seconds of work, well inside the function's timeout.
pub const CHUNK: usize = 50;

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

/// The tags' reference counts moved by `delta`, in the shard of the expansion.
fn tag_refs(account: AccountId, expansion_id: &str, tags: &[TagId], delta: i64) -> Vec<Write> {
    let holder = i64::from(expansion_id.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))));
    let mut writes = Vec::new();
    for tag in tags {
        // An increment fails on a tag deleted since it was read (`store::refs`).
        writes.push(refs::moved(account, Tag::KIND, tag.get(), holder, delta));
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

/// A chunk's plan, written before its billings: who gets one, with which ids.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Plan {
    pk: String,
    sk: String,
    kind: String,
    /// The reached contacts, in order; billing `i` is `first_billing + i`, its items from
    /// `first_item + i × items`.
    contacts: Vec<ContactId>,
    first_billing: i64,
    first_item: i64,
    next_after: Option<ContactId>,
    /// Plans go with the table's TTL a month after their chunk ran.
    expires_at: i64,
}

const PLAN_DAYS: i64 = 30;

/// The most actions of one transaction.
const TRANSACTION_ACTIONS: usize = 100;

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
    let plan_sk = keys::unique(
        "BULKPLAN",
        &format!("{}#{}", message.expansion_id, message.after_contact_id.map_or(0, |c| c.get())),
    );
    // One round trip: the references (a bank rule or category deleted since fails the message,
    // which ends in the DLQ), an earlier delivery's plan, the chunk's links.
    let (_, planned, links) = tokio::try_join!(
        async { check_references(store, account, &draft).await.map_err(|e| anyhow::anyhow!("references: {e:?}")) },
        async { Ok(store.get(keys::account(account), plan_sk.clone()).await?) },
        async { Ok(links_after(store, account, tag, message.after_contact_id).await?) },
    )?;
    let (plan, rerun) = match planned {
        Some(item) => (item::from_item::<Plan>(item)?, true),
        None => plan_chunk(store, account, &draft, plan_sk, links).await?,
    };
    let billings = planned_billings(&plan, &draft);
    // A rerun writes only what the plan's earlier runs did not, and posts again those unchanged
    // since (a changed billing's postings moved with its change).
    let found: Vec<Billing> = match rerun {
        true => {
            let keys: Vec<_> = billings.iter().map(|b| records::key_of::<Billing>(account, b.id)).collect();
            store.batch_get(&keys).await?.into_iter().map(records::read::<Billing>).collect::<Result<_, _>>()?
        }
        false => Vec::new(),
    };
    let stored: HashSet<BillingId> = found.iter().map(|b| b.id).collect();
    let missing: Vec<&Billing> = billings.iter().filter(|b| !stored.contains(&b.id)).collect();
    let writes = transactions(account, &missing, &draft)?.into_iter().map(|writes| store.write(writes));
    futures::future::try_join_all(writes).await.map_err(|e| anyhow::anyhow!("the chunk's billings: {e}"))?;
    let unchanged = found.iter().filter(|b| b.version == 1);
    let current: Vec<&Billing> = missing.iter().copied().chain(unchanged).collect();
    let posted: Vec<Item> = current.iter().flat_map(|b| super::postings::items(account, b)).collect();
    let registrations: Vec<BilletRegistration> =
        current.iter().map(|b| BilletRegistration::new(account, b.id, b.billet_generation)).collect();
    let (posted, registered) = tokio::join!(store.put_all(posted), queues.send_all(&registrations));
    posted?;
    if let Err(error) = registered {
        // The billings wait without a billet; an update re-issues it (as for any billing).
        tracing::error!(error = ?error, expansion_id = message.expansion_id, "could not enqueue the billets' registrations");
    }
    match plan.next_after {
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
    let created = billings.iter().filter(|b| !stored.contains(&b.id)).cloned().collect();
    Ok(Expanded { created, next_after: plan.next_after })
}

/// The links of the tag's holders after `after`, by contact id: a chunk and one more.
async fn links_after(
    store: &Store,
    account: AccountId,
    tag: TagId,
    after: Option<ContactId>,
) -> ApiResult<Vec<ContactId>> {
    let from = keys::record(Contact::KIND, after.map_or(0, |c| c.get() + 1));
    let range = KeyRange::listing(
        keys::tag_links(account, tag),
        Sort::Between(from, keys::record(Contact::KIND, i64::MAX / 1000)),
        true,
    );
    let links = store.items_in(&range, 0, CHUNK + 1).await?;
    Ok(links
        .iter()
        .filter_map(|item| item.get("sk")?.as_s().ok().and_then(|sk| keys::id_of(sk)))
        .map(ContactId::new)
        .collect())
}

/// Plans a chunk the first time it runs: reads its contacts, reserves the ids of its billings and
/// their items, and writes the plan; when another delivery planned it first, that plan.
async fn plan_chunk(
    store: &Store,
    account: AccountId,
    draft: &Draft,
    sk: String,
    links: Vec<ContactId>,
) -> anyhow::Result<(Plan, bool)> {
    let chunk = &links[..links.len().min(CHUNK)];
    let next_after = (links.len() > CHUNK).then(|| chunk[chunk.len() - 1]);
    let contacts: Vec<ContactId> =
        eligible(store, account, chunk, &draft.excluded_tag_ids).await?.iter().map(|c| c.id).collect();
    let count = contacts.len() as i64;
    let per_billing = draft.items.len() as i64;
    let (first_billing, first_item) = match count {
        0 => (0, 0),
        _ => tokio::try_join!(
            store.reserve_ids(keys::account(account), keys::sequence(Billing::KIND), count),
            store.reserve_ids(keys::account(account), keys::sequence("BILLINGITEM"), count * per_billing),
        )?,
    };
    let expires_at = Timestamp::now().0.timestamp() + PLAN_DAYS * 86_400;
    let plan = Plan {
        pk: keys::account(account),
        sk: sk.clone(),
        kind: "bulk_plan".to_owned(),
        contacts,
        first_billing,
        first_item,
        next_after,
        expires_at,
    };
    match store.write(vec![Write::put_if(item::to_item(&plan)?, Condition::absent())]).await {
        Ok(()) => Ok((plan, false)),
        Err(error) if error.failed_at(0) => {
            let theirs = store.get(keys::account(account), sk).await?.context("the plan another delivery wrote")?;
            Ok((item::from_item::<Plan>(theirs)?, true))
        }
        Err(error) => Err(error.into()),
    }
}

/// The billings a plan makes, as the first run wrote them (their `created_at` aside).
fn planned_billings(plan: &Plan, draft: &Draft) -> Vec<Billing> {
    let now = Timestamp::now();
    let per_billing = draft.items.len() as i64;
    plan.contacts
        .iter()
        .enumerate()
        .map(|(i, contact)| {
            let i = i as i64;
            let items = Billing::items_from(plan.first_item + i * per_billing, &draft.items);
            Billing::new(BillingId::new(plan.first_billing + i), draft, Some(*contact), items, now)
        })
        .collect()
}

/// The transactions that write these billings: each billing with its count on its contact, and
/// per transaction what they share (their counts on the tags, shard by shard; the checks of the
/// bank rule and category; the billings counter). As many billings in each as fit in 100 actions.
fn transactions(account: AccountId, billings: &[&Billing], draft: &Draft) -> anyhow::Result<Vec<Vec<Write>>> {
    let tags = tags_of(draft);
    let mut groups: Vec<Vec<&Billing>> = Vec::new();
    let shared = |group: &[&Billing]| {
        let shards: HashSet<i64> = group.iter().map(|b| b.id.get().rem_euclid(refs::SHARDS)).collect();
        tags.len() * shards.len() + 3
    };
    for billing in billings {
        let fits = groups.last().is_some_and(|group| {
            let mut with: Vec<&Billing> = group.clone();
            with.push(billing);
            2 * with.len() + shared(&with) <= TRANSACTION_ACTIONS
        });
        match (fits, groups.last_mut()) {
            (true, Some(group)) => group.push(billing),
            _ => groups.push(vec![billing]),
        }
    }
    let mut transactions = Vec::new();
    for group in groups {
        let mut writes = Vec::new();
        let mut per_shard: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
        for billing in &group {
            writes.push(Write::put_if(records::item_of(account, *billing)?, Condition::absent()));
            let contact = billing.contact_id.context("a bulk billing has its payer")?;
            writes.push(refs::moved(account, Contact::KIND, contact.get(), billing.id.get(), 1));
            *per_shard.entry(billing.id.get().rem_euclid(refs::SHARDS)).or_default() += 1;
        }
        for tag in &tags {
            for (shard, count) in &per_shard {
                writes.push(refs::moved(account, Tag::KIND, tag.get(), *shard, *count));
            }
        }
        writes.extend(super::links::reference_checks(account, group[0]));
        let counter = group[0].counted_in(account).context("billings are counted")?;
        writes.push(shards::add(counter, group[0].id.get(), group.len() as i64));
        transactions.push(writes);
    }
    Ok(transactions)
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
