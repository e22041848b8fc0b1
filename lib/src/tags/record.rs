//! How a tag is stored: its list fields, its uniqueness by name (ignoring case), its postings by
//! name, which lists read, and its counter. The model (`super::model`) knows nothing of them.

use serde::{Deserialize, Serialize};

use super::model::Tag;
use crate::store::counting::Counting;
use crate::store::keys;
use crate::store::postings::Posting;
use crate::store::records::Record;
use crate::values::text::{sort_key, uniqueness_key};
use crate::values::{AccountId, TagId};

/// What the listing index keeps of a tag.
#[derive(Serialize, Deserialize)]
pub struct TagListFields {
    #[serde(default)]
    pub name: String,
}

impl Record for Tag {
    const KIND: &'static str = "TAG";
    const ITEM_KIND: &'static str = "tag";
    const UNIQUE: Option<&'static str> = Some("TAGNAME");
    type Id = TagId;
    type ListFields = TagListFields;

    fn id(&self) -> TagId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> TagListFields {
        TagListFields { name: self.name.clone() }
    }

    fn unique_value(&self) -> Option<String> {
        Some(uniqueness_key(&self.name))
    }

    /// Lists read the tag postings, by name.
    const LISTED: bool = false;

    fn postings(&self, account: AccountId) -> Vec<Posting> {
        vec![Posting::new(keys::contact::tag_postings(account), keys::ordered(&sort_key(&self.name), self.id.get()))]
    }
}

impl Counting for Tag {
    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::counter::count_shards(account, Self::KIND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tags::model::tests::created;

    #[test]
    fn a_tag_round_trips_through_its_item_with_todays_attribute_names() {
        let tag = created("VIP");
        let item = crate::store::records::item_of(AccountId::new(7), &tag).unwrap();
        let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "allows_on_account",
                "billing_refs",
                "color",
                "created_at",
                "id",
                "kind",
                "name",
                "pk",
                "sk",
                "updated_at",
                "version"
            ]
        );
        assert_eq!(crate::store::records::read::<Tag>(item).unwrap(), tag);
    }
}
