//! Who a bulk billing reaches (§2.1): the active customers among the tag's holders, less the
//! holders of an excluded tag.

use std::collections::HashSet;

use crate::contacts::Contact;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::Store;
use crate::values::{AccountId, ContactId, TagId};

/// Those of `ids` a bulk billing reaches (ascending): active customers without an excluded tag.
pub(super) async fn eligible(
    store: &Store,
    account: AccountId,
    ids: &[ContactId],
    excluded: &[TagId],
) -> Result<Vec<Contact>, Refusal> {
    let excluded: HashSet<TagId> = excluded.iter().copied().collect();
    let mut contacts: Vec<Contact> = records::find_many::<Contact>(store, account, ids)
        .await?
        .into_iter()
        .filter(|c| reached(c, &excluded))
        .collect();
    contacts.sort_unstable_by_key(|c| c.id);
    Ok(contacts)
}

/// §2.1: inactive contacts and suppliers are skipped; holders of an excluded tag are left out.
fn reached(contact: &Contact, excluded: &HashSet<TagId>) -> bool {
    crate::contacts::counts::reaches(contact) && !contact.tag_ids.iter().any(|t| excluded.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::ContactType;

    fn contact(active: bool, contact_type: ContactType, tag_ids: Vec<i64>) -> Contact {
        Contact {
            active,
            contact_type,
            tag_ids: tag_ids.into_iter().map(TagId::new).collect(),
            ..Contact::blank(ContactId::new(1))
        }
    }

    #[test]
    fn who_a_bulk_billing_reaches() {
        let excluded = HashSet::from([TagId::new(7)]);
        assert!(reached(&contact(true, ContactType::Customer, vec![3]), &excluded));
        assert!(!reached(&contact(false, ContactType::Customer, vec![3]), &excluded));
        assert!(!reached(&contact(true, ContactType::Supplier, vec![3]), &excluded));
        assert!(!reached(&contact(true, ContactType::Customer, vec![3, 7]), &excluded));
    }
}
