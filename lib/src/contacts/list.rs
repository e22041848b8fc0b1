//! `GET /v1/contacts` (§4.4): the filters read at the route, the plan that chooses the reads
//! (`plan`, with its table test) and the reads it names.

use std::collections::BTreeMap;

use super::counts::{tag_total, TagTotal};
use super::model::Contact;
use crate::groups::Group;
use crate::refusal::Refusal;
use crate::store::keys::{self, contact::contact_facet, contact::ContactNames};
use crate::store::postings;
use crate::store::records::{self, Listed, Window};
use crate::store::{shards, KeyRange, Sort, Store};
use crate::tags::Tag;
use crate::values::{AccountId, ContactType, GroupId, TagId};

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
    if let ContactPlan::OneFacet(CountedFacet::Tag(tag)) = plan {
        return tagged(store, account, &types, tag, window).await;
    }
    if let ContactPlan::OneFacet(facet) = plan {
        let totals = types.iter().map(|contact_type| facet.total(store, account, *contact_type));
        let total = async {
            let totals = futures::future::try_join_all(totals).await?;
            Ok::<_, Refusal>(totals.into_iter().map(|n| usize::try_from(n).unwrap_or_default()).sum::<usize>())
        };
        let partitions: Vec<String> = types
            .iter()
            .map(|contact_type| keys::contact::contact_postings(account, contact_type.as_str(), &facet.name()))
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

/// A list by one tag, as [`listed`] answers a facet: the tag's holders counted and the leading
/// postings of its partition read at once, and, while contacts stored under the names before
/// today's hold the tag (its count under the name before is not zero), the leading postings of
/// its partition under the facet before (`keys::contact::ContactNames::Before`), merged in order: a contact's
/// postings are under one facet or the other, never both.
async fn tagged(
    store: &Store,
    account: AccountId,
    types: &[ContactType],
    tag: TagId,
    window: Window,
) -> Result<Listed<Contact>, Refusal> {
    let partition = |contact_type: ContactType, facet: String| {
        keys::contact::contact_postings(account, contact_type.as_str(), &facet)
    };
    let legacy = std::sync::Mutex::new(Vec::new());
    let total = async {
        let counts = futures::future::try_join_all(types.iter().map(|t| tag_holders(store, account, tag, *t))).await?;
        let mut total = 0;
        for (contact_type, count) in types.iter().zip(&counts) {
            total += usize::try_from(count.total()).unwrap_or_default();
            if count.legacy != 0 {
                legacy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(partition(*contact_type, ContactNames::Before.tag(tag)));
            }
        }
        Ok::<_, Refusal>(total)
    };
    let partitions: Vec<String> = types.iter().map(|t| partition(*t, contact_facet::tag(tag))).collect();
    let (mut positions, total) = postings::leading_counted(store, &partitions, window, total).await?;
    let legacy = legacy.into_inner().unwrap_or_else(|e| e.into_inner());
    if !legacy.is_empty() {
        positions.extend(postings::leading(store, &legacy, window.reach(total)).await?);
        positions.sort_by(|a, b| a.1.cmp(&b.1));
    }
    Ok(crate::store::records::page_of::<Contact>(store, account, positions, total, window).await?)
}

/// How many contacts of `contact_type` hold `tag` (`holding_count`, under both names).
async fn tag_holders(
    store: &Store,
    account: AccountId,
    tag: TagId,
    contact_type: ContactType,
) -> Result<TagTotal, Refusal> {
    tag_total(store, account, tag, |names| names.holding_tally(contact_type, tag)).await
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
        let counter = keys::contact::contact_count_shards(account, contact_type);
        let active = contact_facet::active(true);
        Ok(match self {
            CountedFacet::All => shards::sum(store, counter).await?,
            CountedFacet::Group(_) | CountedFacet::Active(true) => shards::sum_of(store, counter, &self.name()).await?,
            CountedFacet::Active(false) => {
                match shards::sums_of(store, counter, &[keys::counter::COUNT_ATTRIBUTE, active]).await?[..] {
                    [all, active] => all - active,
                    _ => 0,
                }
            }
            CountedFacet::Tag(tag) => tag_holders(store, account, *tag, contact_type).await?.total(),
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
    let partition = |facet: &str| keys::contact::contact_postings(account, contact_type.as_str(), facet);
    let every = |facet: &str| KeyRange::listing(partition(facet), Sort::All, true);
    // Each filter's postings, all read at once: a tag's and a code's under today's facet and the
    // one before (`keys::contact::ContactNames`), where a contact not yet renamed has them.
    let mut filters: Vec<Vec<KeyRange>> = Vec::new();
    if let Some(group) = filter.group_id {
        filters.push(vec![every(&contact_facet::group(group))]);
    }
    if let Some(tag) = filter.tag_id {
        filters.push(ContactNames::BOTH.iter().map(|names| every(&names.tag(tag))).collect());
    }
    if let Some(active) = filter.active {
        filters.push(vec![every(contact_facet::active(active))]);
    }
    match &filter.search {
        Some(Search::Code(code)) => {
            filters.push(ContactNames::BOTH.iter().map(|names| every(&names.code(code))).collect());
        }
        Some(Search::EmailPrefix(prefix)) => {
            filters.push(vec![KeyRange::listing(partition(contact_facet::EMAIL), Sort::Prefix(prefix.clone()), true)]);
        }
        _ => {}
    }
    let reads = filters.iter().map(|ranges| async move {
        let found = ranges.iter().map(|range| postings::matching(store, range, usize::MAX));
        let mut union = BTreeMap::new();
        futures::future::try_join_all(found).await?.into_iter().for_each(|found| union.extend(found));
        Ok::<_, crate::store::StoreError>(union)
    });
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
                        let document =
                            keys::contact::ContactPosting::read(posting).document_digits().unwrap_or_default();
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
