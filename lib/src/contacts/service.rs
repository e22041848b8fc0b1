//! The contact workflows: create, update and delete through the shared editing workflow (with the
//! group and tag references checked and the tag links kept), the list, and the detaching of
//! contacts from a deleted tag or group.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;

use super::input::{ContactChanges, MSG_GROUP_NOT_FOUND, MSG_TAGS_NOT_FOUND};
use super::model::{document_field, duplicate_message, Contact, MSG_IN_USE, MSG_IN_USE_AT_POINT_OF_SALE};
use crate::editing::Editable;
use crate::groups::Group;
use crate::refusal::{Problem, Refusal};
use crate::store::counting::Counting as _;
use crate::store::keys::{self, contact_facet};
use crate::store::postings;
use crate::store::records::{self, Listed, Record, Window};
use crate::store::{shards, KeyRange, Sort, Store, Write};
use crate::tags::Tag;
use crate::values::{AccountId, ContactId, ContactType, GroupId, TagId, Timestamp};

/// The link from a tag to a holder, which bulk expansion and tag deletion query.
fn link(account: AccountId, tag: TagId, contact: ContactId) -> (String, String) {
    (keys::tag_links(account, tag), keys::record(Contact::KIND, contact))
}

/// Tags per item of the reach counter: a contact's write moves one item per bucket of the tags
/// whose count moves (usually one: an account's tag ids are close together).
const REACH_BUCKET: i64 = 100;

/// Where a tag's reach is counted: the counter of its bucket of tags
/// (`A#<acct>#COUNT#REACH#<bucket>`, sharded by contact id) and the tag's attribute in it
/// (`t<tag>`).
fn reach_count(account: AccountId, tag: TagId) -> (String, String) {
    let bucket = tag.get().div_euclid(REACH_BUCKET);
    (keys::tag_reach_count_shards(account, bucket), keys::tag_reach_tally(tag))
}

/// Whether a contact counts in the reach of the tags it holds: an active customer, whom a bulk
/// billing on its tags reaches unless it holds an excluded one (§2.1).
pub fn reaches(contact: &Contact) -> bool {
    contact.active && contact.contact_type == ContactType::Customer
}

/// Where a tag's holders of a contact type are counted: the same bucket as its reach, attribute
/// `<type>#T<tag>` (the type and the tag's postings facet): the total of a contact list by the tag.
fn holding_count(account: AccountId, tag: TagId, contact_type: ContactType) -> (String, String) {
    let (counter, _) = reach_count(account, tag);
    (counter, keys::tag_holding_tally(contact_type, tag))
}

/// The tag counts `contact` adds to: for each of its tags, the holders of its type and, when it
/// [`reaches`], the tag's reach.
fn tag_counts(account: AccountId, contact: Option<&Contact>) -> BTreeSet<(String, String)> {
    let mut counts = BTreeSet::new();
    let Some(c) = contact else { return counts };
    for tag in &c.tag_ids {
        counts.insert(holding_count(account, *tag, c.contact_type));
        if reaches(c) {
            counts.insert(reach_count(account, *tag));
        }
    }
    counts
}

/// The tag counts a contact's write moves, from `before` to `after` (create: no `before`;
/// delete: no `after`), in the transaction that writes it: one write per bucket.
fn reach_moves(account: AccountId, before: Option<&Contact>, after: Option<&Contact>) -> Vec<Write> {
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
    let (counter, attribute) = reach_count(account, tag);
    Ok(shards::sum_of(store, counter, &attribute).await?)
}

/// How many active customers carry `tag`: the contacts a bulk billing on it reaches when it
/// excludes no tag (§2.1), from the counter its holders' writes keep (one query of each of the
/// counter's partitions, at once, whatever the tag's size).
pub async fn reached_by(store: &Store, account: AccountId, tag: TagId) -> Result<usize, Refusal> {
    Ok(usize::try_from(reach_total(store, account, tag).await?).unwrap_or_default())
}

/// Ids of the contacts linked to `tag` (its link partition), ascending.
pub async fn holders(store: &Store, account: AccountId, tag: TagId) -> Result<Vec<ContactId>, Refusal> {
    let links = store.partition_keys(keys::tag_links(account, tag)).await?;
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
        counted.entry(keys::contact_count_shards(account, *contact_type)).or_default();
        let range = KeyRange::listing(
            keys::contact_postings(account, contact_type.as_str(), contact_facet::ALL),
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
    let range = KeyRange::listing(keys::tag_postings(account), Sort::All, true);
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

impl Editable for Contact {
    type Changes = ContactChanges;
    const IN_USE: &'static str = MSG_IN_USE;

    fn create(id: ContactId, changes: &ContactChanges, now: crate::values::Timestamp) -> Result<Self, Refusal> {
        let contact = changes.applied_to(&Contact::blank(id), now.date())?;
        Ok(Contact { created_at: Some(now), updated_at: Some(now), version: 1, ..contact })
    }

    fn changed(&self, changes: &ContactChanges, now: Timestamp) -> Result<Option<Self>, Refusal> {
        let registered = self.created_at.map(|t| t.date()).unwrap_or_else(|| now.date());
        let next = changes.applied_to(self, registered)?;
        if next == *self {
            return Ok(None);
        }
        Ok(Some(Contact { updated_at: Some(now), version: self.version + 1, ..next }))
    }

    fn duplicate(&self) -> Problem {
        Problem::taken(document_field(self), duplicate_message(self))
    }

    fn in_use(&self) -> bool {
        self.billing_refs > 0 || self.sales > 0 || self.credit_movements > 0
    }

    fn in_use_message(&self, billed: bool) -> &'static str {
        match billed || self.billing_refs > 0 {
            true => MSG_IN_USE,
            false => MSG_IN_USE_AT_POINT_OF_SALE,
        }
    }

    /// The group and every newly added tag must exist in the account (read for the 422); links
    /// follow the tag set. They are not checked again inside the transaction: a check there would
    /// make every contact write naming a tag conflict with every other on DynamoDB (a transaction
    /// condition-checking an item conflicts with any other touching it). A tag or group deleted at
    /// that very moment is cleared from the contact by the delete's cascade, whose last round runs
    /// after every write that could have read it is over (`contacts::cascade`); until then no
    /// reader shows a deleted tag or group, and ids are never reused.
    fn related_writes(
        &self,
        before: Option<&Self>,
        store: &Store,
        account: AccountId,
    ) -> impl Future<Output = Result<Vec<Write>, Refusal>> + Send {
        let old_tags: Vec<TagId> = before.map(|b| b.tag_ids.clone()).unwrap_or_default();
        let added: Vec<TagId> = self.tag_ids.iter().copied().filter(|t| !old_tags.contains(t)).collect();
        let removed: Vec<TagId> = old_tags.iter().copied().filter(|t| !self.tag_ids.contains(t)).collect();
        let new_group = self.group_id.filter(|g| before.is_none_or(|b| b.group_id != Some(*g)));
        let id = self.id;
        let reach = reach_moves(account, before, Some(self));
        async move {
            let mut errors = Vec::new();
            // The group and the added tags read at once: one round trip.
            let (group, tags) = tokio::try_join!(
                records::find_referenced::<Group>(store, account, new_group),
                records::find_many::<Tag>(store, account, &added),
            )?;
            if new_group.is_some() && group.is_none() {
                errors.push(Problem::not_found("group_id", MSG_GROUP_NOT_FOUND));
            }
            let found: Vec<TagId> = tags.iter().map(|t| t.id).collect();
            let missing: Vec<String> = added.iter().filter(|id| !found.contains(id)).map(|id| id.to_string()).collect();
            if !missing.is_empty() {
                errors.push(Problem::not_found("tag_ids", format!("{MSG_TAGS_NOT_FOUND}: {}", missing.join(", "))));
            }
            if !errors.is_empty() {
                return Err(Refusal::Invalid(errors));
            }

            let mut writes = Vec::new();
            for tag in &added {
                let (pk, sk) = link(account, *tag, id);
                writes.push(Write::put_keys(pk, sk));
            }
            for tag in removed {
                let (pk, sk) = link(account, tag, id);
                writes.push(Write::delete(pk, sk));
            }
            writes.extend(reach);
            Ok(writes)
        }
    }

    fn delete_writes(&self, account: AccountId) -> Vec<Write> {
        let links = self.tag_ids.iter().map(|tag| {
            let (pk, sk) = link(account, *tag, self.id);
            Write::delete(pk, sk)
        });
        links.chain(reach_moves(account, Some(self), None)).collect()
    }
}

/// The filters of `GET /v1/contacts` (§4.4).
#[derive(Debug, Default)]
pub struct ContactFilter {
    pub contact_type: Option<ContactType>,
    /// `Some(None)`: contacts without a group (`group_id=0`).
    pub group_id: Option<Option<GroupId>>,
    pub tag_id: Option<TagId>,
    pub active: Option<bool>,
    pub search: Option<Search>,
    /// A filter value that cannot match anything (`group_id=abc`, `active=maybe`).
    pub impossible: bool,
}

#[derive(Debug)]
pub enum Search {
    Description(String),
    /// Digits of the term; a term without digits matches nothing.
    Document(String),
    EmailPrefix(String),
    Code(String),
}

/// Contacts ordered by description (ignoring case and accents), then id, read as [`plan`] says.
pub async fn list(
    store: &Store,
    account: AccountId,
    filter: &ContactFilter,
    window: Window,
) -> Result<Listed<Contact>, Refusal> {
    let plan = plan(filter);
    if plan == ContactPlan::Nothing {
        return Ok(Listed::empty());
    }
    // A deleted group or tag has no contacts, even while its cascade runs: whether they are there
    // is read beside the list.
    let group = async {
        match filter.group_id {
            Some(Some(group)) => Ok::<_, Refusal>(records::find::<Group>(store, account, group).await?.is_some()),
            _ => Ok(true),
        }
    };
    let tag = async {
        match filter.tag_id {
            Some(tag) => Ok::<_, Refusal>(records::find::<Tag>(store, account, tag).await?.is_some()),
            None => Ok(true),
        }
    };
    let (group, tag, listed) = tokio::try_join!(group, tag, listed(store, account, filter, plan, window))?;
    Ok(match group && tag {
        true => listed,
        false => Listed::empty(),
    })
}

/// [`list`] once its group and tag are known to be there.
async fn listed(
    store: &Store,
    account: AccountId,
    filter: &ContactFilter,
    plan: ContactPlan,
    window: Window,
) -> Result<Listed<Contact>, Refusal> {
    let types: Vec<ContactType> = match filter.contact_type {
        Some(contact_type) => vec![contact_type],
        None => ContactType::ALL.to_vec(),
    };
    if let ContactPlan::OneFacet(facet) = plan {
        let totals = types.iter().map(|contact_type| facet.total(store, account, *contact_type));
        let total = async {
            let totals = futures::future::try_join_all(totals).await?;
            Ok::<_, Refusal>(totals.into_iter().map(|n| usize::try_from(n).unwrap_or_default()).sum::<usize>())
        };
        let partitions: Vec<String> = types
            .iter()
            .map(|contact_type| keys::contact_postings(account, contact_type.as_str(), &facet.name()))
            .collect();
        let (positions, total) = postings::leading_counted(store, &partitions, window, total).await?;
        return Ok(crate::store::records::page_of::<Contact>(store, account, positions, total, window).await?);
    }
    let found = types.iter().map(|contact_type| matching(store, account, *contact_type, filter));
    let mut partial = false;
    let mut positions: Vec<(i64, String)> = Vec::new();
    for (matched, stopped) in futures::future::try_join_all(found).await? {
        partial |= stopped;
        positions.extend(matched);
    }
    let total = positions.len();
    Ok(crate::store::records::page_of::<Contact>(store, account, positions, total, window).await?.partial_if(partial))
}

/// How a contact list is answered (`contact_type` reads each of its types' partitions; without it,
/// both types').
#[derive(Clone, Copy, Debug, PartialEq)]
enum ContactPlan {
    /// A filter value that cannot match anything (`group_id=abc`, `active=maybe`): nothing read.
    Nothing,
    /// No filter, or one group, one tag or `active` alone: the total from the type's counter (or
    /// the tag's bucket), the page from that facet's postings, which are in the list's order, up
    /// to the page (`postings::leading_counted`).
    OneFacet(CountedFacet),
    /// Anything else: the postings of each filter value (group, tag, active, code, e-mail prefix)
    /// read and intersected; the description and document searches, which no key can serve
    /// (substrings), read the type's postings, up to `postings::SEARCH_SCAN` of them, and match
    /// among those (`matching`).
    Intersect,
}

/// The plan of a contact list.
fn plan(filter: &ContactFilter) -> ContactPlan {
    if filter.impossible {
        return ContactPlan::Nothing;
    }
    let facet = match (filter.group_id, filter.tag_id, filter.active, &filter.search) {
        (None, None, None, None) => CountedFacet::All,
        (Some(group), None, None, None) => CountedFacet::Group(group),
        (None, Some(tag), None, None) => CountedFacet::Tag(tag),
        (None, None, Some(active), None) => CountedFacet::Active(active),
        _ => return ContactPlan::Intersect,
    };
    ContactPlan::OneFacet(facet)
}

/// A filter a list takes its total from a count for and its page from one facet's postings.
#[derive(Clone, Copy, Debug, PartialEq)]
enum CountedFacet {
    /// No filter: every contact of the type.
    All,
    Group(Option<GroupId>),
    Tag(TagId),
    Active(bool),
}

impl CountedFacet {
    /// The facet of its postings.
    fn name(&self) -> String {
        match self {
            CountedFacet::All => contact_facet::ALL.to_owned(),
            CountedFacet::Group(group) => contact_facet::group(*group),
            CountedFacet::Tag(tag) => contact_facet::tag(*tag),
            CountedFacet::Active(active) => contact_facet::active(*active).to_owned(),
        }
    }

    /// How many contacts of `contact_type` it admits: the group's or the active contacts' count
    /// beside the type's total (`Contact::tallies`), the tag's holders of the type beside its
    /// reach (`holding_count`); the inactive, the total less the active.
    async fn total(&self, store: &Store, account: AccountId, contact_type: ContactType) -> Result<i64, Refusal> {
        let counter = keys::contact_count_shards(account, contact_type);
        let active = contact_facet::active(true);
        Ok(match self {
            CountedFacet::All => shards::sum(store, counter).await?,
            CountedFacet::Group(_) | CountedFacet::Active(true) => shards::sum_of(store, counter, &self.name()).await?,
            CountedFacet::Active(false) => {
                match shards::sums_of(store, counter, &[keys::COUNT_ATTRIBUTE, active]).await?[..] {
                    [all, active] => all - active,
                    _ => 0,
                }
            }
            CountedFacet::Tag(tag) => {
                let (counter, attribute) = holding_count(account, *tag, contact_type);
                shards::sum_of(store, counter, &attribute).await?
            }
        })
    }
}

/// The contacts of one type a filtered list finds (id → position), and whether its search stopped at
/// `postings::SEARCH_SCAN` postings.
async fn matching(
    store: &Store,
    account: AccountId,
    contact_type: ContactType,
    filter: &ContactFilter,
) -> Result<(BTreeMap<i64, String>, bool), Refusal> {
    let partition = |facet: &str| keys::contact_postings(account, contact_type.as_str(), facet);
    let every = |facet: &str| KeyRange::listing(partition(facet), Sort::All, true);
    // Each filter's postings, all read at once.
    let mut ranges: Vec<KeyRange> = Vec::new();
    if let Some(group) = filter.group_id {
        ranges.push(every(&contact_facet::group(group)));
    }
    if let Some(tag) = filter.tag_id {
        ranges.push(every(&contact_facet::tag(tag)));
    }
    if let Some(active) = filter.active {
        ranges.push(every(contact_facet::active(active)));
    }
    match &filter.search {
        Some(Search::Code(code)) => ranges.push(every(&contact_facet::code(code))),
        Some(Search::EmailPrefix(prefix)) => {
            ranges.push(KeyRange::listing(partition(contact_facet::EMAIL), Sort::Prefix(prefix.clone()), true));
        }
        _ => {}
    }
    let reads = ranges.iter().map(|range| postings::matching(store, range, usize::MAX));
    let searched = async {
        Ok::<_, Refusal>(match &filter.search {
            Some(Search::Description(term)) => {
                let (found, stopped) = postings::named(store, partition(contact_facet::ALL), term).await?;
                Some((found.into_iter().collect(), stopped))
            }
            Some(Search::Document(digits)) => {
                let mut found = BTreeMap::new();
                let mut stopped = false;
                if !digits.is_empty() {
                    stopped = postings::scan(store, &every(contact_facet::ALL), postings::SEARCH_SCAN, |posting| {
                        let document = keys::ContactPosting::read(posting).document.unwrap_or_default();
                        if document.contains(digits.as_str()) {
                            found.extend(postings::position(posting));
                        }
                    })
                    .await?;
                }
                Some((found, stopped))
            }
            _ => None,
        })
    };
    let (read, searched) =
        tokio::try_join!(async { Ok::<_, Refusal>(futures::future::try_join_all(reads).await?) }, searched)?;
    let mut sets: Vec<BTreeMap<i64, String>> = read;
    let partial = searched.as_ref().is_some_and(|(_, stopped)| *stopped);
    sets.extend(searched.map(|(found, _)| found));
    sets.sort_by_key(BTreeMap::len);
    let mut sets = sets.into_iter();
    let Some(mut found) = sets.next() else { return Ok((BTreeMap::new(), partial)) };
    for other in sets {
        found.retain(|id, _| other.contains_key(id));
    }
    Ok((found, partial))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contact_query_shape_has_one_plan() {
        let filter = |f: ContactFilter| plan(&f);
        let (group, tag) = (GroupId::new(3), TagId::new(4));
        let search = || Some(Search::Description("maria".into()));
        let rows = [
            (ContactFilter::default(), ContactPlan::OneFacet(CountedFacet::All)),
            (
                ContactFilter { contact_type: Some(ContactType::Supplier), ..Default::default() },
                ContactPlan::OneFacet(CountedFacet::All),
            ),
            (
                ContactFilter { group_id: Some(Some(group)), ..Default::default() },
                ContactPlan::OneFacet(CountedFacet::Group(Some(group))),
            ),
            (
                ContactFilter { group_id: Some(None), ..Default::default() },
                ContactPlan::OneFacet(CountedFacet::Group(None)),
            ),
            (ContactFilter { tag_id: Some(tag), ..Default::default() }, ContactPlan::OneFacet(CountedFacet::Tag(tag))),
            (
                ContactFilter { active: Some(false), ..Default::default() },
                ContactPlan::OneFacet(CountedFacet::Active(false)),
            ),
            (
                ContactFilter { group_id: Some(Some(group)), tag_id: Some(tag), ..Default::default() },
                ContactPlan::Intersect,
            ),
            (ContactFilter { search: search(), ..Default::default() }, ContactPlan::Intersect),
            (ContactFilter { tag_id: Some(tag), search: search(), ..Default::default() }, ContactPlan::Intersect),
            (ContactFilter { impossible: true, tag_id: Some(tag), ..Default::default() }, ContactPlan::Nothing),
        ];
        for (query, expected) in rows {
            let shown = format!("{query:?}");
            assert_eq!(filter(query), expected, "{shown}");
        }
    }
}
