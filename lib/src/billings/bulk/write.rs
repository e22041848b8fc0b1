//! Writing a chunk's planned billings: those not written yet, about nine to a transaction with
//! their postings, counts and registrations, grouped by the shard of the counts they touch; a
//! billing another run wrote, or whose payer was deleted, is left out and the rest written again.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use anyhow::Context as _;

use super::expansion::tags_of;
use super::plan::{planned_billings, Plan};
use crate::billings::input::Draft;
use crate::billings::model::Billing;
use crate::contacts::Contact;
use crate::jobs::{tasks, BilletRegistration};
use crate::store::records::{self, Record};
use crate::store::{postings, refs, Condition, Store, StoreError, Write};
use crate::tags::Tag;
use crate::values::{AccountId, BillingId};

/// The most actions of one transaction.
const TRANSACTION_ACTIONS: usize = 100;

/// How long a message keeps writing its chunk against conflicts and throttles before it fails
/// (well inside the worker's 60 s timeout).
const CHUNK_BUDGET: Duration = Duration::from_secs(30);

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
pub(super) async fn write_billings(
    store: &Store,
    account: AccountId,
    plan: &Plan,
    draft: &Draft,
) -> anyhow::Result<Vec<Billing>> {
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
