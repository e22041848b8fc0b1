//! The postings of a contact (`store::postings`), which contact lists read: per contact type, one
//! in every filter partition the contact belongs to (`keys::contact::contact_postings`), in the list's
//! order (the description's sort key, then the id). `ALL` carries the document's digits (the
//! document search reads them), `M` is ordered by e-mail (the prefix search) and carries the
//! description's order.

use super::model::Contact;
use crate::store::keys::{self, contact::contact_facet, ordered, ListedElsewhere};
use crate::store::postings::Posting;
use crate::values::text::sort_key;
use crate::values::AccountId;

/// The position of a contact in every list: its description's sort key, then its id.
fn order_of(contact: &Contact) -> String {
    ordered(&sort_key(contact.description().unwrap_or_default()), contact.id.get())
}

/// A contact's postings, under the names it is stored under (`Contact::names`): a write that
/// renames it moves them all in its transaction.
pub fn of(account: AccountId, contact: &Contact) -> Vec<Posting> {
    let partition = |facet: &str| keys::contact::contact_postings(account, contact.contact_type.as_str(), facet);
    let order = order_of(contact);
    let document = contact.document();
    let names = contact.names;
    let mut all = Posting::new(partition(contact_facet::ALL), order.clone());
    all.extra = names.document(document.as_deref()).attributes();
    let mut postings = vec![all];
    postings.push(Posting::new(partition(&contact_facet::group(contact.group_id)), order.clone()));
    for tag in &contact.tag_ids {
        postings.push(Posting::new(partition(&names.tag(*tag)), order.clone()));
    }
    postings.push(Posting::new(partition(contact_facet::active(contact.active)), order.clone()));
    if let Some(code) = contact.code.as_deref().filter(|c| !c.is_empty()) {
        postings.push(Posting::new(partition(&names.code(code)), order.clone()));
    }
    if let Some(email) = contact.email.as_deref().filter(|e| !e.is_empty()) {
        let mut by_email = Posting::new(partition(contact_facet::EMAIL), keys::contact::by_email(email, &order));
        by_email.extra = ListedElsewhere { order: Some(&order) }.attributes();
        postings.push(by_email);
    }
    postings
}
