//! How a group is stored: its list fields and index key (by contact type), its uniqueness by
//! description (ignoring case), its postings by description, which lists read, and its counter per
//! contact type. The model (`super::model`) knows nothing of them.

use serde::{Deserialize, Serialize};

use super::model::Group;
use crate::store::counting::Counting;
use crate::store::keys;
use crate::store::postings::Posting;
use crate::store::records::Record;
use crate::values::text::{sort_key, uniqueness_key};
use crate::values::{AccountId, GroupContactType, GroupId};

/// What the listing index keeps of a group.
#[derive(Serialize, Deserialize)]
pub struct GroupListFields {
    pub contact_type: GroupContactType,
    #[serde(default)]
    pub description: String,
}

impl Record for Group {
    const KIND: &'static str = "GROUP";
    const ITEM_KIND: &'static str = "group";
    const UNIQUE: Option<&'static str> = Some("GROUPDESC");
    type Id = GroupId;
    type ListFields = GroupListFields;

    fn id(&self) -> GroupId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> GroupListFields {
        GroupListFields { contact_type: self.contact_type, description: self.description.clone() }
    }

    fn unique_value(&self) -> Option<String> {
        Some(uniqueness_key(&self.description))
    }

    /// Lists read the group postings of a contact type, by description.
    const LISTED: bool = false;

    fn postings(&self, account: AccountId) -> Vec<Posting> {
        let partition = keys::contact::group_postings(account, self.contact_type.as_str());
        vec![Posting::new(partition, keys::ordered(&sort_key(&self.description), self.id.get()))]
    }
}

impl Counting for Group {
    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::contact::group_count_shards(account, self.contact_type))
    }
}
