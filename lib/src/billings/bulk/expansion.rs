//! A bulk billing's expansion while it runs (`A#<account>`, `EXPANSION#<id>`): the body, the tags
//! it holds (a reference on each, so that a tag in use cannot be deleted) and its cursor; and the
//! message that runs its next chunk.

use serde::{Deserialize, Serialize};

use crate::billings::input::Draft;
use crate::jobs::BulkExpansion;
use crate::store::records::Record;
use crate::store::stored::{Key, Stored};
use crate::store::{keys, refs, Write};
use crate::tags::Tag;
use crate::values::{AccountId, ContactId, TagId, Timestamp};

/// An expansion while it runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Expansion {
    pub(super) expansion_id: String,
    /// The tags it holds (target and excluded): `billing_refs + 1` on each until it ends.
    pub(super) tag_ids: Vec<TagId>,
    /// The create body's `billing` object, as JSON (absent on expansions accepted before it was
    /// kept here: their messages carry it).
    #[serde(default)]
    pub(super) body: Option<String>,
    /// The contact after which the chunk to run next starts (0: the first).
    #[serde(default)]
    pub(super) cursor: i64,
    pub(super) requested_at: Timestamp,
}

impl Stored for Expansion {
    const KIND: Option<&'static str> = Some("bulk_expansion");
    type Scope<'a> = AccountId;

    fn key(&self, account: AccountId) -> Key {
        expansion_key(account, &self.expansion_id)
    }
}

pub(super) fn expansion_key(account: AccountId, expansion_id: &str) -> Key {
    (keys::account(account), keys::billing::bulk_expansion(expansion_id))
}

/// The tags a bulk draft uses: its target and the excluded ones.
pub(super) fn tags_of(draft: &Draft) -> Vec<TagId> {
    let mut tags: Vec<TagId> = draft.tag_id.into_iter().collect();
    tags.extend(draft.excluded_tag_ids.iter().copied().filter(|t| Some(*t) != draft.tag_id));
    tags
}

/// The tags' reference counts moved by `delta`, in the shard of the expansion.
pub(super) fn tag_refs(account: AccountId, expansion_id: &str, tags: &[TagId], delta: i64) -> Vec<Write> {
    let holder = i64::from(expansion_id.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))));
    // An increment fails on a tag deleted since it was read (`store::refs`).
    tags.iter().map(|tag| refs::moved(account, <Tag as Record>::KIND, tag.get(), holder, delta)).collect()
}

/// The message of the chunk after `after` (0: the first).
pub(super) fn chunk_message(account: AccountId, expansion_id: &str, after: i64) -> BulkExpansion {
    BulkExpansion {
        account_id: account,
        expansion_id: expansion_id.to_owned(),
        billing: None,
        after_contact_id: (after > 0).then(|| ContactId::new(after)),
        requested_at: Timestamp::now().to_string(),
        booklet_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tags_an_expansion_holds() {
        let draft = |tag: i64, excluded: Vec<i64>| Draft {
            tag_id: Some(TagId::new(tag)),
            excluded_tag_ids: excluded.into_iter().map(TagId::new).collect(),
            ..crate::billings::input::tests::valid_draft()
        };
        assert_eq!(tags_of(&draft(3, vec![4, 5])), [TagId::new(3), TagId::new(4), TagId::new(5)]);
        assert_eq!(tags_of(&draft(3, vec![3])), [TagId::new(3)], "each tag once");
    }
}
