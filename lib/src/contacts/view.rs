//! What a contact looks like to the API: every field (null when empty), the derived `description`
//! and `document`, its tags, and `on_account_allowed`.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::model::Contact;
use crate::refusal::Refusal;
use crate::store::records;
use crate::store::{keys, Store};
use crate::tags::model::{Tag, ON_ACCOUNT_TAGS};
use crate::values::{AccountId, ContactId, ContactType, GroupId, Money, TagColor, TagId, Timestamp};

/// A tag as a contact shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TagSummary {
    pub id: TagId,
    pub name: String,
    pub color: TagColor,
}

#[derive(Clone, Debug, Serialize)]
pub struct ContactView {
    pub id: ContactId,
    pub contact_type: ContactType,
    pub group_id: Option<GroupId>,
    pub code: Option<String>,
    pub active: bool,
    pub email: Option<String>,
    /// The payer asked for no reminders.
    pub reminders_opt_out: bool,
    pub legal_entity: bool,
    pub full_name: Option<String>,
    pub company_name: Option<String>,
    pub trademark: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub cpf: Option<String>,
    pub cnpj: Option<String>,
    pub business_phone_area: Option<String>,
    pub business_phone_number: Option<String>,
    pub cell_phone_area: Option<String>,
    pub cell_phone_number: Option<String>,
    pub address_postal_code: Option<String>,
    pub address_street: Option<String>,
    pub address_number: Option<String>,
    pub address_complement: Option<String>,
    pub address_district: Option<String>,
    pub address_city: Option<String>,
    pub address_state: Option<String>,
    pub observation: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub description: Option<String>,
    pub document: Option<String>,
    pub tags: Vec<TagSummary>,
    pub on_account_allowed: bool,
    /// Point of sale: the most the contact may owe on account (`null`: no limit).
    pub on_account_limit: Option<Money>,
    /// Point of sale: what the contact owes on account.
    pub on_account_balance: Money,
    /// Point of sale: the contact's credit balance.
    pub store_credit_balance: Money,
}

impl ContactView {
    fn new(c: &Contact, tags: Vec<TagSummary>, on_account_allowed: bool) -> Self {
        ContactView {
            id: c.id,
            contact_type: c.contact_type,
            group_id: c.group_id,
            code: c.code.clone(),
            active: c.active,
            email: c.email.clone(),
            reminders_opt_out: c.reminders_opt_out,
            legal_entity: c.legal_entity,
            full_name: c.full_name.clone(),
            company_name: c.company_name.clone(),
            trademark: c.trademark.clone(),
            birth_date: c.birth_date,
            cpf: c.cpf.as_ref().map(ToString::to_string),
            cnpj: c.cnpj.as_ref().map(ToString::to_string),
            business_phone_area: c.business_phone_area.clone(),
            business_phone_number: c.business_phone_number.clone(),
            cell_phone_area: c.cell_phone_area.clone(),
            cell_phone_number: c.cell_phone_number.clone(),
            address_postal_code: c.address_postal_code.clone(),
            address_street: c.address_street.clone(),
            address_number: c.address_number.clone(),
            address_complement: c.address_complement.clone(),
            address_district: c.address_district.clone(),
            address_city: c.address_city.clone(),
            address_state: c.address_state.clone(),
            observation: c.observation.clone(),
            created_at: c.created_at,
            updated_at: c.updated_at,
            description: c.description().map(str::to_owned),
            document: c.document(),
            tags,
            on_account_allowed,
            on_account_limit: c.on_account_limit,
            on_account_balance: c.on_account_balance,
            store_credit_balance: c.credit_balance,
        }
    }
}

/// Rules 1, 2 and 6–7 of §2.4: while no tag of the account is marked every contact may buy on
/// account; once one is, only holders of a marked tag may.
pub fn on_account_allowed(marked_tags_in_account: i64, holds_marked_tag: bool) -> bool {
    marked_tags_in_account <= 0 || holds_marked_tag
}

/// How many tags of the account allow on-account sales.
pub async fn on_account_tags_marked(store: &Store, account: AccountId) -> Result<i64, Refusal> {
    Ok(store.counter(keys::account(account), keys::counter::counter(ON_ACCOUNT_TAGS)).await?)
}

/// Views of `contacts` with three more reads in all, made at once (one round trip): their tags (one
/// batch), their groups (one batch) and the counter.
pub async fn represent(store: &Store, account: AccountId, contacts: &[Contact]) -> Result<Vec<ContactView>, Refusal> {
    let mut wanted: Vec<TagId> = contacts.iter().flat_map(|c| c.tag_ids.iter().copied()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    // A group deleted while its cascade runs is not shown.
    let mut groups: Vec<GroupId> = contacts.iter().filter_map(|c| c.group_id).collect();
    groups.sort_unstable();
    groups.dedup();
    let (tags, marked, existing) = tokio::try_join!(
        async { Ok::<_, Refusal>(records::find_many::<Tag>(store, account, &wanted).await?) },
        async {
            match contacts.is_empty() {
                true => Ok(0),
                false => on_account_tags_marked(store, account).await,
            }
        },
        async { Ok(records::find_many::<crate::groups::Group>(store, account, &groups).await?) },
    )?;
    let tags: HashMap<TagId, Tag> = tags.into_iter().map(|t| (t.id, t)).collect();
    let existing: Vec<GroupId> = existing.iter().map(|g| g.id).collect();
    Ok(contacts
        .iter()
        .map(|c| {
            let held: Vec<&Tag> = c.tag_ids.iter().filter_map(|id| tags.get(id)).collect();
            let summaries =
                held.iter().map(|t| TagSummary { id: t.id, name: t.name.clone(), color: t.color }).collect();
            let mut view =
                ContactView::new(c, summaries, on_account_allowed(marked, held.iter().any(|t| t.allows_on_account)));
            view.group_id = view.group_id.filter(|g| existing.contains(g));
            view
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
