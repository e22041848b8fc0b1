//! The counts contact writes keep beside the contacts' own counter (`Counting`): each tag's
//! reach (the active customers a bulk billing on it reaches) and holders per contact type, in the
//! counter of its bucket of tags, moved in each contact's transaction; their totals, under today's
//! names and the ones before (`keys::contact::ContactNames`); the holders read from the tag's links; and
//! the recounts that repair them.

use std::collections::{BTreeMap, BTreeSet};

use super::model::Contact;
use crate::refusal::Refusal;
use crate::store::counting::Counting as _;
use crate::store::keys::{self, contact::contact_facet, contact::ContactNames};
use crate::store::postings;
use crate::store::records;
use crate::store::{shards, KeyRange, Sort, Store, Write};
use crate::values::{AccountId, ContactId, ContactType, TagId};

/// Tags per item of the reach counter: a contact's write moves one item per bucket of the tags
/// whose count moves (usually one: an account's tag ids are close together).
const REACH_BUCKET: i64 = 100;

/// The counter a tag's counts are kept in: its bucket of tags' (`A#<acct>#COUNT#REACH#<bucket>`,
/// sharded by contact id).
fn tag_counter(account: AccountId, tag: TagId) -> String {
    keys::contact::tag_reach_count_shards(account, tag.get().div_euclid(REACH_BUCKET))
}

/// Where a tag's reach is counted: its bucket's counter and the tag's attribute in it (`l<tag>`).
fn reach_count(account: AccountId, tag: TagId) -> (String, String) {
    (tag_counter(account, tag), keys::contact::tag_reach_tally(tag))
}

/// Whether a contact counts in the reach of the tags it holds: an active customer, whom a bulk
/// billing on its tags reaches unless it holds an excluded one (§2.1).
pub fn reaches(contact: &Contact) -> bool {
    contact.active && contact.contact_type == ContactType::Customer
}

/// Where a tag's holders of a contact type are counted: the same bucket as its reach, attribute
/// `<type>#L<tag>` (the type and the tag's postings facet): the total of a contact list by the tag.
fn holding_count(account: AccountId, tag: TagId, contact_type: ContactType) -> (String, String) {
    (tag_counter(account, tag), ContactNames::Today.holding_tally(contact_type, tag))
}

/// The total of a tag's count, named by `name`: its attribute under today's name and, for
/// contacts not yet renamed, under the one before, both in the same items (one read).
pub(super) async fn tag_total(
    store: &Store,
    account: AccountId,
    tag: TagId,
    name: impl Fn(ContactNames) -> String,
) -> Result<TagTotal, Refusal> {
    let [today, before] = ContactNames::BOTH.map(name);
    let sums = shards::sums_of(store, tag_counter(account, tag), &[&today, &before]).await?;
    Ok(TagTotal { renamed: sums[0], legacy: sums[1] })
}

/// A tag count as [`tag_total`] reads it.
pub(super) struct TagTotal {
    renamed: i64,
    /// Counted by contacts stored under the names before today's.
    pub(super) legacy: i64,
}

impl TagTotal {
    pub(super) fn total(&self) -> i64 {
        self.renamed + self.legacy
    }
}

/// The tag counts `contact` adds to: for each of its tags, the holders of its type and, when it
/// [`reaches`], the tag's reach, under the names its postings are stored under.
fn tag_counts(account: AccountId, contact: Option<&Contact>) -> BTreeSet<(String, String)> {
    let mut counts = BTreeSet::new();
    let Some(c) = contact else { return counts };
    for tag in &c.tag_ids {
        let counter = tag_counter(account, *tag);
        counts.insert((counter.clone(), c.names.holding_tally(c.contact_type, *tag)));
        if reaches(c) {
            counts.insert((counter, c.names.reach_tally(*tag)));
        }
    }
    counts
}

/// The tag counts a contact's write moves, from `before` to `after` (create: no `before`;
/// delete: no `after`; a rename: the same contact under other names), in the transaction that
/// writes it: one write per bucket. Public for tools that store contacts straight to the table.
pub fn reach_moves(account: AccountId, before: Option<&Contact>, after: Option<&Contact>) -> Vec<Write> {
    let (old, new) = (tag_counts(account, before), tag_counts(account, after));
    let Some(holder) = after.or(before).map(|c| c.id.get()) else { return Vec::new() };
    let mut buckets: BTreeMap<String, Vec<(String, i64)>> = BTreeMap::new();
    let moved = old.difference(&new).map(|t| (t, -1)).chain(new.difference(&old).map(|t| (t, 1)));
    for ((counter, attribute), delta) in moved {
        buckets.entry(counter.clone()).or_default().push((attribute.clone(), delta));
    }
    buckets.into_iter().map(|(counter, deltas)| shards::add_each(counter, holder, &deltas)).collect()
}

/// `count` more active customers carrying `tag`, counted in `holder`'s shard: for tools that write
/// contacts straight to the table (benchmarks, test fixtures) instead of through [`Editable`].
pub fn reach_added(account: AccountId, tag: TagId, holder: ContactId, count: i64) -> Write {
    let (counter, attribute) = reach_count(account, tag);
    shards::add_each(counter, holder.get(), &[(attribute, count)])
}

/// `count` more contacts of `contact_type` carrying `tag`, counted in `holder`'s shard: for the
/// same tools, when the contacts they write are listed (have their postings).
pub fn holders_added(
    account: AccountId,
    tag: TagId,
    contact_type: ContactType,
    holder: ContactId,
    count: i64,
) -> Write {
    let (counter, attribute) = holding_count(account, tag, contact_type);
    shards::add_each(counter, holder.get(), &[(attribute, count)])
}

/// The tag's reach counter as its shards add up (below zero when a count was taken off that was
/// never added).
async fn reach_total(store: &Store, account: AccountId, tag: TagId) -> Result<i64, Refusal> {
    Ok(tag_total(store, account, tag, |names| names.reach_tally(tag)).await?.total())
}

/// How many active customers carry `tag`: the contacts a bulk billing on it reaches when it
/// excludes no tag (§2.1), from the counter its holders' writes keep (one query of each of the
/// counter's partitions, at once, whatever the tag's size).
pub async fn reached_by(store: &Store, account: AccountId, tag: TagId) -> Result<usize, Refusal> {
    Ok(usize::try_from(reach_total(store, account, tag).await?).unwrap_or_default())
}

/// Ids of the contacts linked to `tag` (its link partition), ascending.
pub async fn holders(store: &Store, account: AccountId, tag: TagId) -> Result<Vec<ContactId>, Refusal> {
    let links = store.partition_keys(keys::contact::tag_links(account, tag)).await?;
    let mut ids: Vec<ContactId> = links.iter().filter_map(|(_, sk)| keys::id_of(sk)).map(ContactId::new).collect();
    ids.sort_unstable();
    Ok(ids)
}

/// How many of the holders of any of `tags` (each tag's links read at once, then the contacts a
/// hundred to a batch read) are active customers holding `tag`: read from the holders, not the
/// counter.
pub async fn reached_among(store: &Store, account: AccountId, tags: &[TagId], tag: TagId) -> Result<usize, Refusal> {
    let reads = tags.iter().map(|t| holders(store, account, *t));
    let ids: BTreeSet<ContactId> = futures::future::try_join_all(reads).await?.into_iter().flatten().collect();
    let ids: Vec<ContactId> = ids.into_iter().collect();
    let contacts = records::find_many::<Contact>(store, account, &ids).await?;
    Ok(contacts.iter().filter(|c| reaches(c) && c.tag_ids.contains(&tag)).count())
}

/// Counts again how many active customers hold `tag`, from its holders ([`reached_among`]), and
/// moves the reach counter to that count: the repair for a counter that contacts written around
/// the service left behind (`ops contact recount-reach`). Returns the counter's total before and
/// the count. Reads every holder of the tag; a holder written while it runs may leave the counter
/// one off: run it again if in doubt.
pub async fn recount_reach(store: &Store, account: AccountId, tag: TagId) -> Result<(i64, i64), Refusal> {
    let counted = reached_among(store, account, &[tag], tag).await? as i64;
    let was = reach_total(store, account, tag).await?;
    if counted != was {
        store.write(vec![reach_added(account, tag, ContactId::new(0), counted - was)]).await?;
    }
    Ok((was, counted))
}

/// One count that moved in a recount, and its counter.
pub type Recounted = (String, shards::Recounted);

/// Counts the account's contacts again (every contact of both types, a hundred to a batch read,
/// holding only the counts) and moves every count their writes keep to what they say: each type's
/// counter (`value`, `G<group>`, `A1`) and every tag's bucket (its reach and its holders per
/// type), for the tags the contacts hold and every tag of the account. The repair for counts that
/// contacts written around the service (or before the counts existed) left behind (`ops contact
/// recount`). A contact written while it runs can leave a count one off: run it again when the
/// account is quiet if in doubt (a second run moves nothing).
pub async fn recount(store: &Store, account: AccountId) -> Result<Vec<Recounted>, Refusal> {
    let mut counted: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for contact_type in ContactType::ALL {
        counted.entry(keys::contact::contact_count_shards(account, *contact_type)).or_default();
        let range = KeyRange::listing(
            keys::contact::contact_postings(account, contact_type.as_str(), contact_facet::ALL),
            Sort::All,
            true,
        );
        let mut ids = Vec::new();
        postings::scan(store, &range, usize::MAX, |posting| {
            ids.extend(crate::store::item::text(posting, "sk").and_then(postings::id_at_end).map(ContactId::new));
        })
        .await?;
        for chunk in ids.chunks(100) {
            for contact in records::find_many::<Contact>(store, account, chunk).await? {
                let counter = contact.counted_in(account).unwrap_or_default();
                for (name, delta) in crate::store::counting::counts_of(&contact, 1) {
                    *counted.entry(counter.clone()).or_default().entry(name).or_default() += delta;
                }
                for (counter, name) in tag_counts(account, Some(&contact)) {
                    *counted.entry(counter).or_default().entry(name).or_default() += 1;
                }
            }
        }
    }
    // Every tag's bucket, held or not: a count left on a tag nobody holds any more moves to zero.
    let range = KeyRange::listing(keys::contact::tag_postings(account), Sort::All, true);
    let mut tags = Vec::new();
    postings::scan(store, &range, usize::MAX, |posting| {
        tags.extend(crate::store::item::text(posting, "sk").and_then(postings::id_at_end).map(TagId::new));
    })
    .await?;
    for tag in tags {
        counted.entry(reach_count(account, tag).0).or_default();
    }
    let mut moved = Vec::new();
    for (counter, counts) in counted {
        let here = shards::recount(store, counter.clone(), &counts).await?;
        moved.extend(here.into_iter().map(|moved| (counter.clone(), moved)));
    }
    Ok(moved)
}
