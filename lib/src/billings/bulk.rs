//! Bulk billings (§2.1, §4.2): one billing per active customer carrying a tag, made in the
//! background.
//!
//! The create route checks the body and its references as for any billing, counts the eligible
//! contacts and answers `202 {status, enqueued, contacts_count}`; no billing exists yet. Without
//! excluded tags the count is the tag's reach counter, which every contact write keeps in its own
//! transaction (`contacts::counts::reached_by`: constant cost, whatever the tag's size); with
//! excluded tags it takes off that count the tag's reached holders among the excluded tags'
//! holders, read when the excluded tags reach fewer contacts than the tag (else it reads the tag's
//! holders): the cost of the smaller side. In one
//! transaction it writes the *expansion* (`A#<account>`, `EXPANSION#<id>`: the body, the tags it
//! holds and its cursor, the contact after which the next chunk starts), a reference on its tag
//! and excluded tags (so a tag in use by a bulk request still expanding cannot be deleted, §4.5),
//! and the task that sends the first chunk's message (`jobs::tasks`): nothing is accepted that
//! will not expand, and nothing is sent before it is saved.
//!
//! The worker expands one chunk of contacts per message, in ascending contact id:
//! - eligible: an active `customer` linked to the tag, none of whose tags is in `excluded_tag_ids`,
//!   judged when its chunk is planned (a contact tagged or deactivated meanwhile is judged then);
//! - each generated billing is a bulk billing (`billing_issue_type = bulk`, the request's `tag_id`
//!   and `excluded_tag_ids`) whose payer (`contact_id`) is that contact; it counts on its payer and
//!   tags like any billing, so they stay in use while the billings it made exist;
//! - **a message runs only the chunk the expansion's cursor names**: a copy of a message already
//!   run, or one written by hand to start elsewhere, finds another cursor and does nothing;
//! - **each chunk is planned once**: its contacts (read when the chunk first runs), and the ids of
//!   its billings and their items (reserved together), in a plan item written before any billing.
//!   Whoever runs the chunk (a redelivery after a crash, a copy running at the same time) follows
//!   the plan: it reads which of the planned billings exist and writes only the others, each with
//!   a condition that it does not exist, so no contact of an expansion is billed twice;
//! - each billing is written whole in one transaction with its postings, its count on its payer
//!   and the task that asks for its billet's registration; billings go about nine to a
//!   transaction, which also carries their counts on the tags and the billings counter, and the
//!   transactions of a chunk touch different shards of those counts, so they never conflict with
//!   each other. A payer deleted since the chunk was planned is left out (its count refuses);
//! - **the cursor moves on in one transaction with the next chunk's task** (or, after the last
//!   chunk, the expansion is deleted with the hold on its tags), on the condition that it still
//!   names this chunk: of two copies of a message, exactly one sends the next.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use anyhow::Context as _;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::input::Draft;
use super::model::Billing;
use super::service::check_references;
use crate::contacts::Contact;
use crate::contention::{move_cursor, retry_on_conflict};
use crate::http::Fields;
use crate::jobs::{tasks, BilletRegistration, BulkExpansion};
use crate::refusal::{Code, Problem, Refusal};
use crate::store::records::{self, Record};
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, postings, refs, Condition, KeyRange, Sort, Store, StoreError, Update, Write};
use crate::tags::Tag;
use crate::values::{AccountId, BillingId, ContactId, IssueType, TagId, Timestamp};

/// Contacts expanded by one message: a few seconds of work, well inside the function's timeout.
pub const CHUNK: usize = 50;

/// The body travels in the expansion item (and used to travel in the queue messages, which SQS
/// takes up to 256 KB each).
pub const MAX_BODY_BYTES: usize = 200_000;

pub const MSG_TOO_LARGE: &str = "Cobrança em lote grande demais: o corpo pode ter até 200 KB";
pub const MSG_NO_CONTACTS: &str =
    "Nenhum cliente ativo com a etiqueta (tag_id) fora das etiquetas excluídas: a cobrança em lote não geraria cobranças";

/// An expansion while it runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Expansion {
    expansion_id: String,
    /// The tags it holds (target and excluded): `billing_refs + 1` on each until it ends.
    tag_ids: Vec<TagId>,
    /// The create body's `billing` object, as JSON (absent on expansions accepted before it was
    /// kept here: their messages carry it).
    #[serde(default)]
    body: Option<String>,
    /// The contact after which the chunk to run next starts (0: the first).
    #[serde(default)]
    cursor: i64,
    requested_at: Timestamp,
}

impl Stored for Expansion {
    const KIND: Option<&'static str> = Some("bulk_expansion");
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        expansion_key(account, &self.expansion_id)
    }
}

fn expansion_key(account: AccountId, expansion_id: &str) -> Key {
    (keys::account(account), keys::billing::bulk_expansion(expansion_id))
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
    // An increment fails on a tag deleted since it was read (`store::refs`).
    tags.iter().map(|tag| refs::moved(account, <Tag as Record>::KIND, tag.get(), holder, delta)).collect()
}

/// The message of the chunk after `after` (0: the first).
fn chunk_message(account: AccountId, expansion_id: &str, after: i64) -> BulkExpansion {
    BulkExpansion {
        account_id: account,
        expansion_id: expansion_id.to_owned(),
        billing: None,
        after_contact_id: (after > 0).then(|| ContactId::new(after)),
        requested_at: Timestamp::now().to_string(),
    }
}

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

/// Handles one SQS batch of the bulk-expansion queue; failed messages go back for redelivery.
pub async fn handle_batch(store: &Store, event: SqsEvent) -> SqsBatchResponse {
    crate::jobs::handle_batch(event, "bulk expansion", move |message: BulkExpansion| async move {
        expand(store, &message).await
    })
    .await
}

/// What one expansion message came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Expanded {
    /// Billings created by this message (those made by an earlier delivery are not counted).
    pub created: Vec<Billing>,
    /// The contact after which the next chunk starts, when there is one.
    pub next_after: Option<ContactId>,
    /// Why nothing was done, when nothing was.
    pub skipped: Option<&'static str>,
}

impl Expanded {
    fn skipped(reason: &'static str) -> Self {
        Expanded { created: Vec::new(), next_after: None, skipped: Some(reason) }
    }
}

/// A chunk's plan, written before its billings: who gets one, with which ids.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Plan {
    /// The reached contacts, in order; billing `i` is `first_billing + i`, its items from
    /// `first_item + i × items`.
    contacts: Vec<ContactId>,
    first_billing: i64,
    first_item: i64,
    next_after: Option<ContactId>,
    /// Plans go with the table's TTL a month after their chunk ran.
    expires_at: i64,
}

impl Stored for Plan {
    const KIND: Option<&'static str> = Some("bulk_plan");
    /// The account, the expansion and the contact its chunk starts after.
    type Scope<'a> = (AccountId, &'a str, i64);

    fn key(&self, (account, expansion_id, after): Self::Scope<'_>) -> Key {
        plan_key(account, expansion_id, after)
    }
}

fn plan_key(account: AccountId, expansion_id: &str, after: i64) -> Key {
    (keys::account(account), keys::billing::bulk_plan(expansion_id, after))
}

const PLAN_DAYS: i64 = 30;

/// The most actions of one transaction.
const TRANSACTION_ACTIONS: usize = 100;

/// How long a message keeps writing its chunk against conflicts and throttles before it fails
/// (well inside the worker's 60 s timeout).
const CHUNK_BUDGET: Duration = Duration::from_secs(30);

/// Runs one expansion message: the chunk its expansion's cursor names, if the message names it.
pub async fn expand(store: &Store, message: &BulkExpansion) -> anyhow::Result<Expanded> {
    let account = message.account_id;
    let found = stored::find::<Expansion>(store, expansion_key(account, &message.expansion_id)).await?;
    let Some(expansion) = found else {
        return Ok(Expanded::skipped("the expansion is over (or unknown)"));
    };
    let after = message.after_contact_id.map_or(0, |c| c.get());
    if expansion.cursor != after {
        return Ok(Expanded::skipped("the expansion's cursor is elsewhere: this chunk was run, or is not due"));
    }
    let body: Value = match (&expansion.body, &message.billing) {
        (Some(text), _) => serde_json::from_str(text).context("the expansion's body")?,
        (None, Some(body)) => body.clone(),
        (None, None) => anyhow::bail!("the expansion keeps no body and the message carries none"),
    };
    let parsed = body.as_object().map(|map| Draft::parse(Fields::new(map)));
    let draft = match parsed {
        Some(Ok(draft)) if draft.issue_type == IssueType::Bulk => draft,
        // Accepted once, so only a hand-made expansion gets here: nothing to expand.
        other => anyhow::bail!("the expansion's billing is not a valid bulk billing: {other:?}"),
    };
    let tag = draft.tag_id.ok_or_else(|| anyhow::anyhow!("a bulk draft always has a tag"))?;
    let plan_at = (account, message.expansion_id.as_str(), after);
    // One round trip: the references (a bank rule or category deleted since fails the message,
    // which ends in the DLQ), an earlier delivery's plan, the chunk's links.
    let (_, planned, links) = tokio::try_join!(
        async { check_references(store, account, &draft).await.map_err(|e| anyhow::anyhow!("references: {e:?}")) },
        async { Ok(stored::find::<Plan>(store, plan_key(account, &message.expansion_id, after)).await?) },
        async { Ok(links_after(store, account, tag, after).await?) },
    )?;
    let plan = match planned {
        Some(plan) => plan,
        None => plan_chunk(store, plan_at, &draft, links).await?,
    };
    let created = write_billings(store, account, &plan, &draft).await?;
    advance(store, account, &expansion, after, plan.next_after).await?;
    Ok(Expanded { created, next_after: plan.next_after, skipped: None })
}

/// Moves the cursor past this chunk with the next chunk's task, or ends the expansion and its hold
/// on the tags, provided the cursor still names the chunk (a copy running at the same time may
/// have moved it: then it sent the next chunk, and this one sends nothing).
async fn advance(
    store: &Store,
    account: AccountId,
    expansion: &Expansion,
    after: i64,
    next: Option<ContactId>,
) -> anyhow::Result<()> {
    let (pk, sk) = (keys::account(account), keys::billing::bulk_expansion(&expansion.expansion_id));
    let here = Condition::equals("cursor", &after);
    let writes = match next {
        Some(next) => {
            let moved = Update::new().set("cursor", &next.get());
            let message = chunk_message(account, &expansion.expansion_id, next.get());
            vec![Write::update(pk, sk, moved, Some(here)), tasks::one(account, message)?]
        }
        None => {
            let mut writes = vec![Write::delete_if(pk, sk, here)];
            writes.extend(tag_refs(account, &expansion.expansion_id, &expansion.tag_ids, -1));
            writes
        }
    };
    move_cursor(store, writes).await.map_err(|e| anyhow::anyhow!("moving the expansion's cursor: {e}"))?;
    Ok(())
}

/// The links of the tag's holders after contact `after`, by contact id: a chunk and one more.
async fn links_after(store: &Store, account: AccountId, tag: TagId, after: i64) -> Result<Vec<ContactId>, Refusal> {
    let from = keys::record(<Contact as Record>::KIND, after + 1);
    let range = KeyRange::listing(
        keys::contact::tag_links(account, tag),
        Sort::Between(from, keys::record(<Contact as Record>::KIND, i64::MAX / 1000)),
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
    at: <Plan as Stored>::Scope<'_>,
    draft: &Draft,
    links: Vec<ContactId>,
) -> anyhow::Result<Plan> {
    let account = at.0;
    let chunk = &links[..links.len().min(CHUNK)];
    let next_after = (links.len() > CHUNK).then(|| chunk[chunk.len() - 1]);
    let contacts: Vec<ContactId> =
        eligible(store, account, chunk, &draft.excluded_tag_ids).await?.iter().map(|c| c.id).collect();
    let count = contacts.len() as i64;
    let per_billing = draft.items.len() as i64;
    let (first_billing, first_item) = match count {
        0 => (0, 0),
        _ => tokio::try_join!(
            store.reserve_ids(keys::account(account), keys::sequence(<Billing as Record>::KIND), count),
            store.reserve_ids(keys::account(account), keys::sequence("BILLINGITEM"), count * per_billing),
        )?,
    };
    let expires_at = Timestamp::now().0.timestamp() + PLAN_DAYS * 86_400;
    let plan = Plan { contacts, first_billing, first_item, next_after, expires_at };
    match store.write(vec![stored::insert(&plan, at)?]).await {
        Ok(()) => Ok(plan),
        Err(error) if error.failed_at(0) => {
            let theirs = stored::find::<Plan>(store, plan.key(at)).await?;
            Ok(theirs.context("the plan another delivery wrote")?)
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

/// What an action of a chunk's transaction writes, to read a failed condition back.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// The billing itself (fails when another run wrote it).
    Billing(BillingId),
    /// The billing's count on its payer (fails when the payer was deleted since the plan).
    Payer(BillingId),
    /// Its postings, the counts on the tags and the billings counter, the registrations' task.
    Other,
}

/// One transaction of a chunk: its billings, its actions and what each writes.
struct Transaction {
    billings: Vec<Billing>,
    writes: Vec<Write>,
    roles: Vec<Role>,
}

/// Writes the plan's billings that do not exist yet; returns those this call wrote. A transaction
/// that fails because another run wrote one of its billings, or because a payer was deleted since
/// the plan, is written again without them; conflicts and throttles are tried again, for a
/// bounded time.
async fn write_billings(store: &Store, account: AccountId, plan: &Plan, draft: &Draft) -> anyhow::Result<Vec<Billing>> {
    let planned = planned_billings(plan, draft);
    let mut created: Vec<Billing> = Vec::new();
    let mut dropped: HashSet<BillingId> = HashSet::new();
    let deadline = tokio::time::Instant::now() + CHUNK_BUDGET;
    let mut pause = Duration::from_millis(20);
    loop {
        let keys: Vec<_> = planned.iter().map(|b| records::key_of::<Billing>(account, b.id)).collect();
        let stored: HashSet<BillingId> = store
            .batch_get(&keys)
            .await?
            .into_iter()
            .map(records::read::<Billing>)
            .map(|read| read.map(|b| b.id))
            .collect::<Result<_, _>>()?;
        let missing: Vec<&Billing> =
            planned.iter().filter(|b| !stored.contains(&b.id) && !dropped.contains(&b.id)).collect();
        if missing.is_empty() {
            return Ok(created);
        }
        // Each shard's transactions one after the other (they share the shard's counts), the
        // shards at once.
        let shards = transactions(account, &missing, draft)?.into_iter().map(|shard| async move {
            let mut outcomes = Vec::new();
            for transaction in shard {
                let result = store.write(transaction.writes).await;
                let failed = result.is_err();
                outcomes.push((transaction.billings, transaction.roles, result));
                if failed {
                    break;
                }
            }
            outcomes
        });
        let mut again = false;
        for (billings, roles, result) in futures::future::join_all(shards).await.into_iter().flatten() {
            match result {
                Ok(()) => created.extend(billings),
                Err(StoreError::ConditionFailed(failed)) => {
                    // A billing another run wrote is found by the next read; a billing whose payer
                    // was deleted since the plan is left out.
                    for index in failed {
                        if let Some(Role::Payer(id)) = roles.get(index) {
                            tracing::warn!(billing_id = id.get(), "bulk billing left out: its payer was deleted");
                            dropped.insert(*id);
                        }
                    }
                    again = true;
                }
                Err(error) if error.is_transient() => again = true,
                Err(error) => return Err(anyhow::anyhow!("the chunk's billings: {error}")),
            }
        }
        if again {
            if tokio::time::Instant::now() + pause > deadline {
                anyhow::bail!("the chunk's billings met conflicts and throttles for {CHUNK_BUDGET:?}");
            }
            tokio::time::sleep(pause.mul_f64(rand::random::<f64>())).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
    }
}

/// The transactions that write these billings, grouped by the shard of the counts they touch
/// (the billing's id modulo `refs::SHARDS`): each billing with its postings, its count on its
/// payer and its registration in a task of the transaction; per transaction, what its billings
/// share (their counts on the tags, the billings counter). As many billings in each as fit in
/// 100 actions.
fn transactions(account: AccountId, billings: &[&Billing], draft: &Draft) -> anyhow::Result<Vec<Vec<Transaction>>> {
    let tags = tags_of(draft);
    // The tags' counts, each counter the billings count in (the type's; the category's) and its
    // days (the billings share the draft's due date, its category, and their creation date: they
    // are made at one moment), the registrations' task.
    let counted = billings.first().map(|b| crate::store::counting::counters(*b, account)).unwrap_or_default();
    let days: usize =
        counted.iter().map(|c| 1 + c.dated.iter().map(|(day, _)| day).collect::<BTreeSet<_>>().len()).sum();
    let shared = tags.len() + days + 1;
    let mut by_shard: BTreeMap<i64, Vec<&Billing>> = BTreeMap::new();
    for billing in billings {
        by_shard.entry(billing.id.get().rem_euclid(refs::SHARDS)).or_default().push(billing);
    }
    let mut shards = Vec::new();
    for (shard, billings) in by_shard {
        let mut transactions: Vec<Transaction> = Vec::new();
        let mut current: Option<Transaction> = None;
        for billing in billings {
            let contact = billing.contact_id.context("a bulk billing has its payer")?;
            let mut writes = vec![Write::put_if(records::item_of(account, billing)?, Condition::absent())];
            let mut roles = vec![Role::Billing(billing.id)];
            let posted = postings::moved(Vec::new(), billing.postings(account));
            roles.extend(posted.iter().map(|_| Role::Other));
            writes.extend(posted);
            writes.push(refs::moved(account, <Contact as Record>::KIND, contact.get(), billing.id.get(), 1));
            roles.push(Role::Payer(billing.id));
            let fits = current.as_ref().is_some_and(|t| t.writes.len() + writes.len() + shared <= TRANSACTION_ACTIONS);
            if !fits {
                transactions.extend(current.take());
                current = Some(Transaction { billings: Vec::new(), writes: Vec::new(), roles: Vec::new() });
            }
            let transaction = current.as_mut().expect("a transaction");
            transaction.billings.push(billing.clone());
            transaction.writes.extend(writes);
            transaction.roles.extend(roles);
        }
        transactions.extend(current);
        for transaction in &mut transactions {
            let count = transaction.billings.len() as i64;
            for tag in &tags {
                transaction.writes.push(refs::moved(account, <Tag as Record>::KIND, tag.get(), shard, count));
            }
            let first = transaction.billings[0].id.get();
            let shared_from = transaction.writes.len();
            // In each counter, their total and tallies, summed: one item; their counts per due
            // date (one day: the draft's) and creation date (one: today), in the days' shard of
            // their ids.
            let mut summed = crate::store::counting::Summed::new();
            for billing in &transaction.billings {
                crate::store::counting::sum_into(&mut summed, billing, account);
            }
            transaction.writes.extend(crate::store::counting::added(summed, first));
            let registrations: Vec<BilletRegistration> = transaction
                .billings
                .iter()
                .map(|b| BilletRegistration::new(account, b.id, b.billet_generation))
                .collect();
            transaction.writes.push(tasks::record(account, &registrations)?);
            transaction
                .roles
                .extend(std::iter::repeat_n(Role::Other, transaction.writes.len() - shared_from + tags.len()));
        }
        shards.push(transactions);
    }
    Ok(shards)
}

/// Those of `ids` a bulk billing reaches (ascending): active customers without an excluded tag.
async fn eligible(
    store: &Store,
    account: AccountId,
    ids: &[ContactId],
    excluded: &[TagId],
) -> Result<Vec<Contact>, Refusal> {
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
    crate::contacts::counts::reaches(contact) && !contact.tag_ids.iter().any(|t| excluded.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::ContactType;

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
