//! The contact workflows: create, update and delete through the shared editing workflow (with the
//! group and tag references checked, the tag links kept and the tag counts moved,
//! `contacts::counts`), and the move of contacts stored under the names before today's.

use std::future::Future;

use super::counts::reach_moves;
use super::input::{ContactChanges, MSG_GROUP_NOT_FOUND, MSG_TAGS_NOT_FOUND};
use super::model::{document_field, duplicate_message, Contact, MSG_IN_USE, MSG_IN_USE_AT_POINT_OF_SALE};
use crate::editing::Editable;
use crate::groups::Group;
use crate::refusal::{Problem, Refusal};
use crate::store::keys::{self, contact::contact_facet};
use crate::store::postings;
use crate::store::records::{self, Record};
use crate::store::{KeyRange, Sort, Store, Write};
use crate::tags::Tag;
use crate::values::{AccountId, ContactId, ContactType, TagId, Timestamp};

/// The link from a tag to a holder, which bulk expansion and tag deletion query.
fn link(account: AccountId, tag: TagId, contact: ContactId) -> (String, String) {
    (keys::contact::tag_links(account, tag), keys::record(Contact::KIND, contact))
}

/// What [`rename_stored`] did to an account's contacts.
#[derive(Debug, Default, PartialEq)]
pub struct Renamed {
    /// Contacts moved to today's names.
    pub renamed: usize,
    /// Contacts already under them.
    pub already: usize,
    /// Contacts left under the names before: their move is more writes than one transaction takes
    /// (a contact holding tags in more than about fifteen buckets of a hundred tag ids). They keep
    /// being read under both names, and a write of theirs that fits renames them.
    pub left: Vec<ContactId>,
}

/// Moves every contact of the account stored under the names before today's
/// (`keys::contact::ContactNames::Before`) to today's, as a write of the contact would, each in one transaction
/// (its record with the next version, its postings and its tag counts), a hundred contacts to a
/// read of the type's `ALL` postings: bounded by the page, whatever the account's size. A contact
/// written meanwhile is read again (its own write may have renamed it). Safe to run again: a
/// second run renames nothing (`ops contact rename-stored`).
pub async fn rename_stored(store: &Store, account: AccountId) -> Result<Renamed, Refusal> {
    let mut done = Renamed::default();
    for contact_type in ContactType::ALL {
        let all = keys::contact::contact_postings(account, contact_type.as_str(), contact_facet::ALL);
        let range = KeyRange::listing(all, Sort::All, true);
        let mut start = None;
        loop {
            let page = store.page(&range, RENAMED_AT_ONCE, start).await?;
            let ids: Vec<ContactId> = page
                .items
                .iter()
                .filter_map(|posting| crate::store::item::text(posting, "sk").and_then(postings::id_at_end))
                .map(ContactId::new)
                .collect();
            for contact in records::find_many::<Contact>(store, account, &ids).await? {
                match contact.legacy_names() {
                    false => done.already += 1,
                    true => match rename(store, account, contact).await? {
                        Ok(()) => done.renamed += 1,
                        Err(id) => done.left.push(id),
                    },
                }
            }
            match page.next {
                Some(next) => start = Some(next),
                None => break,
            }
        }
    }
    Ok(done)
}

/// Contacts read at once by [`rename_stored`]: DynamoDB's batch read.
const RENAMED_AT_ONCE: usize = 100;

/// Moves one contact to today's names (read again while other writes get in first); its id when
/// the move is more than one transaction.
async fn rename(store: &Store, account: AccountId, mut contact: Contact) -> Result<Result<(), ContactId>, Refusal> {
    loop {
        let next =
            Contact { names: keys::contact::ContactNames::Today, version: contact.version + 1, ..contact.clone() };
        let moves = reach_moves(account, Some(&contact), Some(&next));
        match records::replace(store, account, &contact, &next, moves).await {
            Ok(()) => return Ok(Ok(())),
            Err(crate::store::StoreError::TooManyWrites(_)) => return Ok(Err(contact.id)),
            Err(error) if error.failed_at(0) => match records::find::<Contact>(store, account, contact.id).await? {
                Some(again) if again.legacy_names() => contact = again,
                // Renamed by a write of its own, or deleted.
                _ => return Ok(Ok(())),
            },
            Err(error) => return Err(error.into()),
        }
    }
}

impl Editable for Contact {
    type Changes = ContactChanges;
    const IN_USE: &'static str = MSG_IN_USE;

    fn create(id: ContactId, changes: &ContactChanges, now: crate::values::Timestamp) -> Result<Self, Refusal> {
        let contact = changes.applied_to(&Contact::blank(id), now.date())?;
        Ok(Contact { created_at: Some(now), updated_at: Some(now), version: 1, ..contact })
    }

    fn changed(&self, changes: &ContactChanges, now: Timestamp) -> Result<Option<Self>, Refusal> {
        let registered = self.created_at.map(|t| t.date()).unwrap_or_else(|| now.date());
        let next = changes.applied_to(self, registered)?;
        if next == *self {
            return Ok(None);
        }
        // A write moves a contact stored under the names before today's to today's.
        Ok(Some(Contact {
            updated_at: Some(now),
            version: self.version + 1,
            names: keys::contact::ContactNames::Today,
            ..next
        }))
    }

    fn duplicate(&self) -> Problem {
        Problem::taken(document_field(self), duplicate_message(self))
    }

    fn in_use(&self) -> bool {
        self.billing_refs > 0 || self.sales > 0 || self.credit_movements > 0
    }

    fn in_use_message(&self, billed: bool) -> &'static str {
        match billed || self.billing_refs > 0 {
            true => MSG_IN_USE,
            false => MSG_IN_USE_AT_POINT_OF_SALE,
        }
    }

    /// The group and every newly added tag must exist in the account (read for the 422); links
    /// follow the tag set. They are not checked again inside the transaction: a check there would
    /// make every contact write naming a tag conflict with every other on DynamoDB (a transaction
    /// condition-checking an item conflicts with any other touching it). A tag or group deleted at
    /// that very moment is cleared from the contact by the delete's cascade, whose last round runs
    /// after every write that could have read it is over (`contacts::cascade`); until then no
    /// reader shows a deleted tag or group, and ids are never reused.
    fn related_writes(
        &self,
        before: Option<&Self>,
        store: &Store,
        account: AccountId,
    ) -> impl Future<Output = Result<Vec<Write>, Refusal>> + Send {
        let old_tags: Vec<TagId> = before.map(|b| b.tag_ids.clone()).unwrap_or_default();
        let added: Vec<TagId> = self.tag_ids.iter().copied().filter(|t| !old_tags.contains(t)).collect();
        let removed: Vec<TagId> = old_tags.iter().copied().filter(|t| !self.tag_ids.contains(t)).collect();
        let new_group = self.group_id.filter(|g| before.is_none_or(|b| b.group_id != Some(*g)));
        let id = self.id;
        let reach = reach_moves(account, before, Some(self));
        async move {
            let mut errors = Vec::new();
            // The group and the added tags read at once: one round trip.
            let (group, tags) = tokio::try_join!(
                records::find_referenced::<Group>(store, account, new_group),
                records::find_many::<Tag>(store, account, &added),
            )?;
            if new_group.is_some() && group.is_none() {
                errors.push(Problem::not_found("group_id", MSG_GROUP_NOT_FOUND));
            }
            let found: Vec<TagId> = tags.iter().map(|t| t.id).collect();
            let missing: Vec<String> = added.iter().filter(|id| !found.contains(id)).map(|id| id.to_string()).collect();
            if !missing.is_empty() {
                errors.push(Problem::not_found("tag_ids", format!("{MSG_TAGS_NOT_FOUND}: {}", missing.join(", "))));
            }
            if !errors.is_empty() {
                return Err(Refusal::Invalid(errors));
            }

            let mut writes = Vec::new();
            for tag in &added {
                let (pk, sk) = link(account, *tag, id);
                writes.push(Write::put_keys(pk, sk));
            }
            for tag in removed {
                let (pk, sk) = link(account, tag, id);
                writes.push(Write::delete(pk, sk));
            }
            writes.extend(reach);
            Ok(writes)
        }
    }

    fn delete_writes(&self, account: AccountId) -> Vec<Write> {
        let links = self.tag_ids.iter().map(|tag| {
            let (pk, sk) = link(account, *tag, self.id);
            Write::delete(pk, sk)
        });
        links.chain(reach_moves(account, Some(self), None)).collect()
    }
}
