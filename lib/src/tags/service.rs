//! What the API does with tags beyond editing them: listing, and deleting with what goes with a
//! tag (its links to contacts, and the tag id in each holder's tag set).

use super::model::Tag;
use crate::editing;
use crate::refusal::Refusal;
use crate::store::postings;
use crate::store::records::{Listed, Record as _, Window};
use crate::store::{keys, shards, Store};
use crate::values::{AccountId, TagId};

/// Tags ordered by name (ignoring case and accents), then id; `search` is a substring of the name
/// (ignoring case and accents). A page reads the tag postings up to it and the total from the
/// counter; a search reads the postings (up to `postings::SEARCH_SCAN`).
pub async fn list(
    store: &Store,
    account: AccountId,
    search: Option<&str>,
    window: Window,
) -> Result<Listed<Tag>, Refusal> {
    let partition = keys::contact::tag_postings(account);
    let (positions, total, partial) = match search {
        None => {
            let count = async {
                let sum = shards::sum(store, keys::counter::count_shards(account, Tag::KIND)).await?;
                Ok::<_, Refusal>(usize::try_from(sum).unwrap_or_default())
            };
            let (positions, total) = postings::leading_counted(store, &[partition], window, count).await?;
            (positions, total, false)
        }
        // A term longer than any name matches nothing.
        Some(term) if crate::values::text::beyond_search(term) => (Vec::new(), 0, false),
        Some(term) => {
            let (kept, partial) = postings::named(store, partition, term).await?;
            let total = kept.len();
            (kept, total, partial)
        }
    };
    let page = crate::store::records::page_of::<Tag>(store, account, positions, total, window).await?;
    Ok(page.partial_if(partial))
}

/// Deletes the tag (refused while billings use it); its holders lose it, and its links go, in the
/// background (`contacts::cascade`); no reader shows the tag meanwhile.
pub async fn delete(store: &Store, account: AccountId, id: TagId) -> Result<(), Refusal> {
    let cascade = crate::jobs::cascade_state::started(account, Some(id), None)?;
    editing::delete::<Tag>(store, account, id, cascade).await
}
