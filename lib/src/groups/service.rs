//! What the API does with groups beyond editing them: listing, and deleting with what goes with a
//! group (the `group_id` of the contacts that pointed to it).

use super::model::Group;
use crate::editing;
use crate::refusal::Refusal;
use crate::store::postings;
use crate::store::records::{Listed, Window};
use crate::store::{keys, shards, Store};
use crate::values::{AccountId, GroupContactType, GroupId};

/// The filters of `GET /v1/groups`.
#[derive(Debug, Default)]
pub struct GroupFilter<'a> {
    /// `None` with `impossible`: a type that is not one matches nothing.
    pub contact_type: Option<GroupContactType>,
    pub impossible: bool,
    pub search: Option<&'a str>,
}

/// Groups ordered by contact type, then description (ignoring case and accents), then id. A page
/// reads each type's postings up to it and the total from the counters; a search reads the
/// postings (up to `postings::SEARCH_SCAN` a type).
pub async fn list(
    store: &Store,
    account: AccountId,
    filter: &GroupFilter<'_>,
    window: Window,
) -> Result<Listed<Group>, Refusal> {
    if filter.impossible {
        return Ok(Listed::empty());
    }
    let types: Vec<GroupContactType> = match filter.contact_type {
        Some(contact_type) => vec![contact_type],
        None => GroupContactType::ALL.to_vec(),
    };
    let counts = async {
        let sums = types
            .iter()
            .filter(|_| filter.search.is_none())
            .map(|contact_type| shards::sum(store, keys::contact::group_count_shards(account, contact_type)));
        let counts = futures::future::try_join_all(sums).await?;
        Ok::<usize, Refusal>(counts.into_iter().map(|n| usize::try_from(n).unwrap_or_default()).sum())
    };
    // Every type's postings at once (one round trip), up to `reach` each.
    let reads = |reach: usize| {
        futures::future::try_join_all(types.iter().map(move |contact_type| async move {
            let partition = keys::contact::group_postings(account, contact_type.as_str());
            let (found, stopped): (Vec<(i64, String)>, bool) = match filter.search {
                None => (postings::leading(store, &[partition], reach).await?, false),
                Some(term) => postings::named(store, partition, term).await?,
            };
            Ok::<_, Refusal>((*contact_type, found, stopped))
        }))
    };
    // A search, or a page within the first entries, reads beside the count
    // (`postings::BESIDE_THE_COUNT`); a deeper page after it.
    let (counted, found) = match filter.search.is_some() || window.end() <= postings::BESIDE_THE_COUNT {
        true => tokio::try_join!(counts, reads(window.end()))?,
        false => {
            let counted = counts.await?;
            (counted, reads(window.reach(counted)).await?)
        }
    };
    // In type order, a type's positions prefixed so that the merged order is by type first.
    let mut positions = Vec::new();
    let mut partial = false;
    let mut searched = 0;
    for (contact_type, found, stopped) in found {
        partial |= stopped;
        searched += found.len();
        positions.extend(found.into_iter().map(|(id, order)| (id, keys::typed(contact_type, &order))));
    }
    let total = match filter.search {
        Some(_) => searched,
        None => counted,
    };
    Ok(crate::store::records::page_of::<Group>(store, account, positions, total, window).await?.partial_if(partial))
}

/// Deletes the group (refused while billings depend on it); its contacts get `group_id` null in
/// the background (`contacts::cascade`), and no reader shows the group meanwhile.
pub async fn delete(store: &Store, account: AccountId, id: GroupId) -> Result<(), Refusal> {
    let cascade = crate::jobs::cascade_state::started(account, None, Some(id))?;
    editing::delete::<Group>(store, account, id, cascade).await
}
