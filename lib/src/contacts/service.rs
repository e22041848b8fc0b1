//! The contact workflows: create, update and delete through the shared editing workflow (with the
//! group and tag references checked and the tag links kept), the list, and the detaching of
//! contacts from a deleted tag or group.

use std::future::Future;

use super::input::{ContactChanges, MSG_GROUP_NOT_FOUND, MSG_TAGS_NOT_FOUND};
use super::model::{
    duplicate_message, index_prefix, Contact, ContactListFields, MSG_IN_USE, MSG_IN_USE_AT_POINT_OF_SALE,
};
use crate::contention::retry_in_turn;
use crate::editing::Editable;
use crate::groups::Group;
use crate::http::{ApiError, ApiResult};
use crate::store::records::{self, Entry, Listed, Record, Window};
use crate::store::{keys, KeyItem, Store, Write};
use crate::tags::Tag;
use crate::values::text::{contains_ignoring_case, sort_key};
use crate::values::{AccountId, ContactId, ContactType, GroupId, TagId, Timestamp};

/// The link from a tag to a holder, which bulk expansion and tag deletion query.
fn link(account: AccountId, tag: TagId, contact: ContactId) -> (String, String) {
    (keys::tag_links(account, tag), keys::record(Contact::KIND, contact))
}

impl Editable for Contact {
    type Changes = ContactChanges;
    const IN_USE: &'static str = MSG_IN_USE;

    fn create(id: ContactId, changes: &ContactChanges, now: crate::values::Timestamp) -> ApiResult<Self> {
        let contact = changes.applied_to(&Contact::blank(id), now.date())?;
        Ok(Contact { created_at: Some(now), updated_at: Some(now), version: 1, ..contact })
    }

    fn changed(&self, changes: &ContactChanges, now: Timestamp) -> ApiResult<Option<Self>> {
        let registered = self.created_at.map(|t| t.date()).unwrap_or_else(|| now.date());
        let next = changes.applied_to(self, registered)?;
        if next == *self {
            return Ok(None);
        }
        Ok(Some(Contact { updated_at: Some(now), version: self.version + 1, ..next }))
    }

    fn duplicate(&self) -> String {
        duplicate_message(self)
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

    /// The group and every newly added tag must exist in the account (checked now for the 422 and
    /// again inside the transaction against a concurrent delete); links follow the tag set.
    fn related_writes(
        &self,
        before: Option<&Self>,
        store: &Store,
        account: AccountId,
    ) -> impl Future<Output = ApiResult<Vec<Write>>> + Send {
        let old_tags: Vec<TagId> = before.map(|b| b.tag_ids.clone()).unwrap_or_default();
        let added: Vec<TagId> = self.tag_ids.iter().copied().filter(|t| !old_tags.contains(t)).collect();
        let removed: Vec<TagId> = old_tags.iter().copied().filter(|t| !self.tag_ids.contains(t)).collect();
        let new_group = self.group_id.filter(|g| before.is_none_or(|b| b.group_id != Some(*g)));
        let id = self.id;
        async move {
            let mut errors = Vec::new();
            if let Some(group) = new_group {
                if records::find::<Group>(store, account, group).await?.is_none() {
                    errors.push(MSG_GROUP_NOT_FOUND.to_owned());
                }
            }
            let found: Vec<TagId> =
                records::find_many::<Tag>(store, account, &added).await?.iter().map(|t| t.id).collect();
            let missing: Vec<String> = added.iter().filter(|id| !found.contains(id)).map(|id| id.to_string()).collect();
            if !missing.is_empty() {
                errors.push(format!("{MSG_TAGS_NOT_FOUND}: {}", missing.join(", ")));
            }
            if !errors.is_empty() {
                return Err(ApiError::Validation(errors));
            }

            let mut writes = Vec::new();
            if let Some(group) = new_group {
                let (pk, sk) = records::key_of::<Group>(account, group);
                writes.push(Write::check_exists(pk, sk));
            }
            for tag in &added {
                let (pk, sk) = records::key_of::<Tag>(account, *tag);
                writes.push(Write::check_exists(pk, sk));
                let (pk, sk) = link(account, *tag, id);
                writes.push(Write::put(crate::store::item::to_item(&KeyItem { pk, sk })?));
            }
            for tag in removed {
                let (pk, sk) = link(account, tag, id);
                writes.push(Write::delete(pk, sk));
            }
            Ok(writes)
        }
    }

    fn delete_writes(&self, account: AccountId) -> Vec<Write> {
        self.tag_ids
            .iter()
            .map(|tag| {
                let (pk, sk) = link(account, *tag, self.id);
                Write::delete(pk, sk)
            })
            .collect()
    }
}

/// The filters of `GET /v1/contacts` (§4.4).
#[derive(Debug, Default)]
pub struct ContactFilter {
    pub contact_type: Option<ContactType>,
    /// `Some(None)`: contacts without a group (`group_id=0`).
    pub group_id: Option<Option<GroupId>>,
    pub tag_id: Option<TagId>,
    pub active: Option<bool>,
    pub search: Option<Search>,
    /// A filter value that cannot match anything (`group_id=abc`, `active=maybe`).
    pub impossible: bool,
}

#[derive(Debug)]
pub enum Search {
    Description(String),
    /// Digits of the term; a term without digits matches nothing.
    Document(String),
    EmailPrefix(String),
    Code(String),
}

impl ContactFilter {
    fn keep(&self, entry: &Entry<ContactListFields>) -> bool {
        let fields = &entry.fields;
        if self.impossible {
            return false;
        }
        if self.group_id.is_some_and(|group| fields.group_id != group) {
            return false;
        }
        if self.tag_id.is_some_and(|tag| !fields.tag_ids.contains(&tag)) {
            return false;
        }
        if self.active.is_some_and(|active| fields.active != active) {
            return false;
        }
        let text = |value: &Option<String>| value.clone().unwrap_or_default();
        match &self.search {
            None => true,
            Some(Search::Description(term)) => contains_ignoring_case(&text(&fields.description), term),
            Some(Search::Document(digits)) => !digits.is_empty() && text(&fields.document).contains(digits.as_str()),
            Some(Search::EmailPrefix(prefix)) => text(&fields.email).starts_with(prefix.as_str()),
            Some(Search::Code(code)) => text(&fields.code) == *code,
        }
    }
}

/// Contacts ordered by description (ignoring case and accents), then id.
pub async fn list(
    store: &Store,
    account: AccountId,
    filter: &ContactFilter,
    window: Window,
) -> ApiResult<Listed<Contact>> {
    // The prefix only narrows the read.
    let prefix = filter.contact_type.map(index_prefix);
    Ok(records::list::<Contact, _, _, _>(
        store,
        account,
        prefix.as_deref(),
        |entry| filter.keep(entry),
        |entry| sort_key(entry.fields.description.as_deref().unwrap_or_default()),
        window,
    )
    .await?)
}

/// Rewrites the contacts of the account whose index entry matches `pick`, without touching
/// `updated_at` (a tag or group deleted under them). Each contact is re-read and written on its
/// version, so a concurrent edit is never lost.
pub async fn detach(
    store: &Store,
    account: AccountId,
    pick: impl Fn(&ContactListFields) -> bool,
    change: impl Fn(&mut Contact),
) -> ApiResult<()> {
    let entries = records::entries::<Contact>(store, account, None).await?;
    for entry in entries.iter().filter(|e| pick(&e.fields)) {
        let Some(id) = entry.id::<ContactId>() else { continue };
        retry_in_turn(records::key_of::<Contact>(account, id), || async {
            let Some(current) = records::find::<Contact>(store, account, id).await? else { return Ok(()) };
            let mut next = current.clone();
            change(&mut next);
            if next == current {
                return Ok(());
            }
            next.version += 1;
            records::replace(store, account, &current, &next, Vec::new()).await?;
            Ok(())
        })
        .await?;
    }
    Ok(())
}
