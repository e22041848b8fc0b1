//! What the API does with tags beyond editing them: listing, and deleting with what goes with a
//! tag (its links to contacts, and the tag id in each holder's tag set).

use super::model::Tag;
use crate::contacts::service::detach;
use crate::editing;
use crate::http::ApiResult;
use crate::store::records::{self, Listed, Window};
use crate::store::{keys, Store};
use crate::values::text::{contains_ignoring_case, sort_key};
use crate::values::{AccountId, TagId};

/// Tags ordered by name (ignoring case and accents), then id; `search` is a case-insensitive
/// substring of the name.
pub async fn list(store: &Store, account: AccountId, search: Option<&str>, window: Window) -> ApiResult<Listed<Tag>> {
    Ok(records::list::<Tag, _, _, _>(
        store,
        account,
        None,
        |entry| search.is_none_or(|s| contains_ignoring_case(&entry.fields.name, s)),
        |entry| sort_key(&entry.fields.name),
        window,
    )
    .await?)
}

/// Deletes the tag (refused while billings use it); its links to contacts go with it, the contacts
/// are otherwise untouched. The cascade runs after the delete committed and is idempotent: a retry
/// after a failure finds less to do, and no reader shows a tag that no longer exists meanwhile.
pub async fn delete(store: &Store, account: AccountId, id: TagId) -> ApiResult<()> {
    let tag: Tag = editing::delete(store, account, id).await?;
    detach(
        store,
        account,
        |fields| fields.tag_ids.contains(&tag.id),
        |contact| contact.tag_ids.retain(|t| *t != tag.id),
    )
    .await?;
    let links = store.partition_keys(keys::tag_links(account, tag.id)).await?;
    store.delete_all(links).await?;
    Ok(())
}
