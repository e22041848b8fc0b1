//! What a contact looks like to the API: every field (null when empty), the derived `description`
//! and `document`, its tags, and `on_account_allowed`.

use std::collections::HashMap;

use serde::Serialize;

use super::Contact;
use crate::accounts::AccountId;
use crate::http::ApiResult;
use crate::store::{keys, ItemExt, Store};
use crate::tags::Tag;

/// Counter of the account's tags with `allows_on_account`, kept by tag writes in their own
/// transactions, so the on-account rule needs one read instead of a scan of the tags.
pub const ON_ACCOUNT_TAGS: &str = "ON_ACCOUNT_TAGS";

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TagSummary {
    pub id: i64,
    pub name: String,
    pub color: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ContactView {
    #[serde(flatten)]
    pub contact: Contact,
    pub description: Option<String>,
    pub document: Option<String>,
    pub tags: Vec<TagSummary>,
    pub on_account_allowed: bool,
}

/// Rules 1, 2 and 6–7 of §2.4: while no tag of the account is marked every contact may buy on
/// account; once one is, only holders of a marked tag may.
pub fn on_account_allowed(marked_tags_in_account: i64, holds_marked_tag: bool) -> bool {
    marked_tags_in_account <= 0 || holds_marked_tag
}

pub async fn on_account_tags_marked(store: &Store, account: AccountId) -> ApiResult<i64> {
    let item = store.get(keys::account(account), keys::counter(ON_ACCOUNT_TAGS)).await?;
    Ok(item.and_then(|i| i.opt_int("value")).unwrap_or(0))
}

/// Views of `contacts` with two more reads in all: their tags (one batch) and the counter.
pub async fn represent(store: &Store, account: AccountId, contacts: &[Contact]) -> ApiResult<Vec<ContactView>> {
    let mut wanted: Vec<i64> = contacts.iter().flat_map(|c| c.tag_ids.iter().copied()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let tags: HashMap<i64, Tag> =
        crate::tags::find_many(store, account, &wanted).await?.into_iter().map(|t| (t.id, t)).collect();
    let marked = if contacts.is_empty() { 0 } else { on_account_tags_marked(store, account).await? };
    Ok(contacts
        .iter()
        .map(|c| {
            let held: Vec<&Tag> = c.tag_ids.iter().filter_map(|id| tags.get(id)).collect();
            ContactView {
                contact: c.clone(),
                description: c.description().map(str::to_owned),
                document: c.document().map(str::to_owned),
                tags: held
                    .iter()
                    .map(|t| TagSummary { id: t.id, name: t.name.clone(), color: t.color.clone() })
                    .collect(),
                on_account_allowed: on_account_allowed(marked, held.iter().any(|t| t.allows_on_account)),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_on_account_rule() {
        // Rule 1: no marked tag in the account → everyone.
        assert!(on_account_allowed(0, false));
        // Rule 2: once a tag is marked, only its holders.
        assert!(!on_account_allowed(1, false));
        assert!(on_account_allowed(2, true));
    }
}
