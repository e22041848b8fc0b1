//! What the API does with groups beyond editing them: listing, and deleting with what goes with a
//! group (the `group_id` of the contacts that pointed to it).

use super::model::{index_prefix, Group};
use crate::contacts::service::detach;
use crate::editing;
use crate::http::ApiResult;
use crate::store::records::{self, Listed, Window};
use crate::store::Store;
use crate::values::text::{contains_ignoring_case, sort_key};
use crate::values::{AccountId, GroupContactType, GroupId};

/// The filters of `GET /v1/groups`.
#[derive(Debug, Default)]
pub struct GroupFilter<'a> {
    /// `None` with `impossible`: a type that is not one matches nothing.
    pub contact_type: Option<GroupContactType>,
    pub impossible: bool,
    pub search: Option<&'a str>,
}

/// Groups ordered by contact type, then description (ignoring case and accents), then id.
pub async fn list(
    store: &Store,
    account: AccountId,
    filter: &GroupFilter<'_>,
    window: Window,
) -> ApiResult<Listed<Group>> {
    // The prefix only narrows the read.
    let prefix = filter.contact_type.map(index_prefix);
    Ok(records::list::<Group, _, _, _>(
        store,
        account,
        prefix.as_deref(),
        |entry| {
            !filter.impossible && filter.search.is_none_or(|s| contains_ignoring_case(&entry.fields.description, s))
        },
        |entry| (entry.fields.contact_type.as_str(), sort_key(&entry.fields.description)),
        window,
    )
    .await?)
}

/// Deletes the group (refused while billings depend on it); contacts that pointed to it get
/// `group_id` null, after the delete committed (idempotent, like the tag's cascade).
pub async fn delete(store: &Store, account: AccountId, id: GroupId) -> ApiResult<()> {
    let group: Group = editing::delete(store, account, id).await?;
    detach(store, account, |fields| fields.group_id == Some(group.id), |contact| contact.group_id = None).await
}
