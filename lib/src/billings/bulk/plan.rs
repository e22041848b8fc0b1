//! A chunk's plan, made once when the chunk first runs: its contacts (the tag's holders after the
//! cursor that a bulk billing reaches) and the ids of their billings and items, written before any
//! billing, so that whoever runs the chunk writes the same billings.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::eligible::eligible;
use crate::billings::input::Draft;
use crate::billings::model::Billing;
use crate::contacts::Contact;
use crate::refusal::Refusal;
use crate::store::records::Record;
use crate::store::stored::{self, Key, Stored};
use crate::store::{keys, KeyRange, Sort, Store};
use crate::values::{AccountId, BillingId, ContactId, TagId, Timestamp};

/// Contacts expanded by one message: a few seconds of work, well inside the function's timeout.
pub const CHUNK: usize = 50;

/// A chunk's plan, written before its billings: who gets one, with which ids.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Plan {
    /// The reached contacts, in order; billing `i` is `first_billing + i`, its items from
    /// `first_item + i × items`.
    pub(super) contacts: Vec<ContactId>,
    pub(super) first_billing: i64,
    pub(super) first_item: i64,
    pub(super) next_after: Option<ContactId>,
    /// Plans go with the table's TTL a month after their chunk ran.
    pub(super) expires_at: i64,
}

impl Stored for Plan {
    const KIND: Option<&'static str> = Some("bulk_plan");
    /// The account, the expansion and the contact its chunk starts after.
    type Scope<'a> = (AccountId, &'a str, i64);

    fn key(&self, (account, expansion_id, after): Self::Scope<'_>) -> Key {
        plan_key(account, expansion_id, after)
    }
}

pub(super) fn plan_key(account: AccountId, expansion_id: &str, after: i64) -> Key {
    (keys::account(account), keys::billing::bulk_plan(expansion_id, after))
}

const PLAN_DAYS: i64 = 30;

/// The links of the tag's holders after contact `after`, by contact id: a chunk and one more.
pub(super) async fn links_after(
    store: &Store,
    account: AccountId,
    tag: TagId,
    after: i64,
) -> Result<Vec<ContactId>, Refusal> {
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
pub(super) async fn plan_chunk(
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
pub(super) fn planned_billings(plan: &Plan, draft: &Draft) -> Vec<Billing> {
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
