//! How a contact is stored: its list fields and index key, its postings (`super::postings`), its
//! counter and its unique document. The model (`super::model`) knows nothing of them.

use serde::{Deserialize, Serialize};

use super::model::Contact;
use crate::store::counting::Counting;
use crate::store::keys::{self, contact::contact_facet};
use crate::store::postings::Posting;
use crate::store::records::Record;
use crate::store::Item;
use crate::values::{AccountId, ContactId, ContactType, GroupId, TagId};

/// What the listing index keeps of a contact: everything its list filters and sorts on.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ContactListFields {
    pub contact_type: Option<ContactType>,
    pub description: Option<String>,
    pub document: Option<String>,
    pub email: Option<String>,
    pub code: Option<String>,
    #[serde(default)]
    pub active: bool,
    pub group_id: Option<GroupId>,
    #[serde(default)]
    pub tag_ids: Vec<TagId>,
}

impl Record for Contact {
    const KIND: &'static str = "CONTACT";
    const ITEM_KIND: &'static str = "contact";
    const UNIQUE: Option<&'static str> = Some("DOC");
    /// Contacts come by the hundred thousand (imports): a create writes its transaction only.
    const IDS_FROM_BLOCKS: bool = true;
    type Id = ContactId;
    type ListFields = ContactListFields;

    fn id(&self) -> ContactId {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn list_fields(&self) -> ContactListFields {
        ContactListFields {
            contact_type: Some(self.contact_type),
            description: self.description().map(str::to_owned),
            document: self.document(),
            email: self.email.clone(),
            code: self.code.clone(),
            active: self.active,
            group_id: self.group_id,
            tag_ids: self.tag_ids.clone(),
        }
    }

    /// Lists read the contact postings (`contacts::postings`).
    const LISTED: bool = false;

    fn postings(&self, account: AccountId) -> Vec<Posting> {
        super::postings::of(account, self)
    }

    /// The document is unique per (account, contact type).
    fn unique_value(&self) -> Option<String> {
        self.document().map(|d| keys::typed(self.contact_type, &d))
    }

    /// Contacts stored before `group_id` and `tag_ids` were attributes of their own kept them only
    /// in `list_fields`.
    fn upgrade(item: &mut Item) {
        crate::store::item::lift(item, "list_fields", &["group_id", "tag_ids"]);
    }
}

impl Counting for Contact {
    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::contact::contact_count_shards(account, self.contact_type))
    }

    /// Its group's count and, when active, the active contacts' (named as their postings' facets:
    /// `G<group>`, `G0` without one, `A1`): the totals of a list by one of them.
    fn tallies(&self) -> Vec<String> {
        let group = contact_facet::group(self.group_id);
        match self.active {
            true => vec![group, contact_facet::active(true).to_owned()],
            false => vec![group],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::AccountId;
    use crate::values::{Cpf, GroupId, TagId};

    #[test]
    fn a_contact_stored_with_its_tags_only_in_list_fields_reads_back_whole() {
        let mut contact = Contact::blank(ContactId::new(3));
        contact.full_name = Some("Maria da Silva".into());
        contact.cpf = Cpf::parse("52998224725");
        contact.group_id = Some(GroupId::new(2));
        contact.tag_ids = vec![TagId::new(4), TagId::new(5)];
        contact.version = 1;
        let mut item = crate::store::records::item_of(AccountId::new(1), &contact).unwrap();
        assert_eq!(crate::store::item::text(&item, "cpf"), Some("52998224725"));
        // As a previous version stored it: the group and tags in the listing entry only.
        let listed = crate::store::item::to_attribute(&contact.list_fields()).unwrap();
        item.insert("list_fields".into(), listed);
        item.remove("group_id");
        item.remove("tag_ids");
        assert_eq!(crate::store::records::read::<Contact>(item).unwrap(), contact);
    }
}
