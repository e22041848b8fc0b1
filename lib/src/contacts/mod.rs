//! Contacts (§2.3, §2.4, §4.4): customers and suppliers of the account, with their document,
//! address, group and tags.

mod input;
mod routes;
mod view;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::NaiveDate;

pub use input::ContactChanges;
pub use routes::router;
pub use view::{on_account_tags_marked, represent, ContactView, ON_ACCOUNT_TAGS};

use crate::accounts::AccountId;
use crate::http::{ApiError, ApiResult};
use crate::store::item::{b, n, opt_n, opt_s, s};
use crate::store::records::{self, version_of, Editable, Record};
use crate::store::{keys, Item, ItemExt, Store, Write};
use crate::time::Timestamp;

pub const CONTACT_TYPES: [&str; 2] = ["customer", "supplier"];
pub const MSG_IN_USE: &str = "Contato não pode ser excluído: possui cobranças";

/// Serialized as the API shows it, less what the view adds (`contacts::view`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Contact {
    pub id: i64,
    pub contact_type: String,
    pub group_id: Option<i64>,
    pub code: Option<String>,
    pub active: bool,
    pub email: Option<String>,
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
    #[serde(skip)]
    pub tag_ids: Vec<i64>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    #[serde(skip)]
    pub version: i64,
    /// Billings, bills and cash entries of the contact; deleting is refused while above zero.
    #[serde(skip)]
    pub billing_refs: i64,
    /// Health module: the contact who pays for this patient (set by operators, never shown).
    #[serde(skip)]
    pub financial_guardian_id: Option<i64>,
}

impl Contact {
    /// `company_name` for companies, `full_name` for individuals.
    pub fn description(&self) -> Option<&str> {
        if self.legal_entity {
            self.company_name.as_deref()
        } else {
            self.full_name.as_deref()
        }
    }

    /// `cnpj` for companies, `cpf` for individuals.
    pub fn document(&self) -> Option<&str> {
        if self.legal_entity {
            self.cnpj.as_deref()
        } else {
            self.cpf.as_deref()
        }
    }

    /// The text fields stored as they are, by their API names.
    fn texts(&self) -> [(&'static str, &Option<String>); 19] {
        [
            ("code", &self.code),
            ("email", &self.email),
            ("full_name", &self.full_name),
            ("company_name", &self.company_name),
            ("trademark", &self.trademark),
            ("cpf", &self.cpf),
            ("cnpj", &self.cnpj),
            ("business_phone_area", &self.business_phone_area),
            ("business_phone_number", &self.business_phone_number),
            ("cell_phone_area", &self.cell_phone_area),
            ("cell_phone_number", &self.cell_phone_number),
            ("address_postal_code", &self.address_postal_code),
            ("address_street", &self.address_street),
            ("address_number", &self.address_number),
            ("address_complement", &self.address_complement),
            ("address_district", &self.address_district),
            ("address_city", &self.address_city),
            ("address_state", &self.address_state),
            ("observation", &self.observation),
        ]
    }

    fn text_mut(&mut self, key: &str) -> Option<&mut Option<String>> {
        Some(match key {
            "code" => &mut self.code,
            "email" => &mut self.email,
            "full_name" => &mut self.full_name,
            "company_name" => &mut self.company_name,
            "trademark" => &mut self.trademark,
            "cpf" => &mut self.cpf,
            "cnpj" => &mut self.cnpj,
            "business_phone_area" => &mut self.business_phone_area,
            "business_phone_number" => &mut self.business_phone_number,
            "cell_phone_area" => &mut self.cell_phone_area,
            "cell_phone_number" => &mut self.cell_phone_number,
            "address_postal_code" => &mut self.address_postal_code,
            "address_street" => &mut self.address_street,
            "address_number" => &mut self.address_number,
            "address_complement" => &mut self.address_complement,
            "address_district" => &mut self.address_district,
            "address_city" => &mut self.address_city,
            "address_state" => &mut self.address_state,
            "observation" => &mut self.observation,
            _ => return None,
        })
    }

    fn link(&self, account: AccountId, tag: i64) -> (String, String) {
        (keys::tag_links(account, tag), keys::record(Contact::KIND, self.id))
    }
}

/// Index sort keys start with the contact type, so a list narrowed by type reads only its part.
pub fn index_prefix(contact_type: &str) -> String {
    format!("{contact_type}#")
}

impl Record for Contact {
    const KIND: &'static str = "CONTACT";
    const UNIQUE: Option<&'static str> = Some("DOC");

    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    fn attributes(&self) -> Item {
        let mut item: Item = self.texts().iter().map(|(k, v)| ((*k).to_owned(), opt_s((*v).clone()))).collect();
        item.insert("id".into(), n(self.id));
        item.insert("contact_type".into(), s(&self.contact_type));
        item.insert("active".into(), b(self.active));
        item.insert("legal_entity".into(), b(self.legal_entity));
        item.insert("birth_date".into(), opt_s(self.birth_date.map(|d| d.to_string())));
        item.insert("created_at".into(), opt_s(self.created_at.map(|t| t.to_string())));
        item.insert("updated_at".into(), opt_s(self.updated_at.map(|t| t.to_string())));
        item.insert("billing_refs".into(), n(self.billing_refs));
        if let Some(guardian) = self.financial_guardian_id {
            item.insert("financial_guardian_id".into(), n(guardian));
        }
        item
    }

    fn from_item(item: &Item) -> anyhow::Result<Self> {
        let fields = match item.get("list_fields") {
            Some(AttributeValue::M(map)) => map.clone(),
            _ => HashMap::new(),
        };
        let mut contact = Contact {
            id: item.int("id")?,
            contact_type: item.string("contact_type")?,
            group_id: match fields.get("group_id") {
                Some(AttributeValue::N(v)) => v.parse().ok(),
                _ => None,
            },
            active: item.boolean("active")?,
            legal_entity: item.boolean("legal_entity")?,
            birth_date: item.opt_string("birth_date").and_then(|d| d.parse().ok()),
            tag_ids: match fields.get("tag_ids") {
                Some(AttributeValue::L(ids)) => ids.iter().filter_map(|v| v.as_n().ok()?.parse().ok()).collect(),
                _ => Vec::new(),
            },
            created_at: item.opt_timestamp("created_at"),
            updated_at: item.opt_timestamp("updated_at"),
            version: version_of(item)?,
            billing_refs: item.opt_int("billing_refs").unwrap_or(0),
            financial_guardian_id: item.opt_int("financial_guardian_id"),
            ..Contact::default()
        };
        for key in input::TEXT_FIELDS {
            *contact.text_mut(key).expect("a text field") = item.opt_string(key);
        }
        Ok(contact)
    }

    /// Everything the list filters and sorts on. `group_id` and `tag_ids` live only here.
    fn list_fields(&self) -> HashMap<String, AttributeValue> {
        HashMap::from([
            ("contact_type".into(), s(&self.contact_type)),
            ("description".into(), opt_s(self.description())),
            ("document".into(), opt_s(self.document())),
            ("email".into(), opt_s(self.email.clone())),
            ("code".into(), opt_s(self.code.clone())),
            ("active".into(), b(self.active)),
            ("group_id".into(), opt_n(self.group_id)),
            ("tag_ids".into(), AttributeValue::L(self.tag_ids.iter().map(n).collect())),
        ])
    }

    fn index_sk(&self) -> String {
        format!("{}{}", index_prefix(&self.contact_type), keys::record(Self::KIND, self.id))
    }

    /// The document is unique per (account, contact type).
    fn unique_value(&self) -> Option<String> {
        self.document().map(|d| format!("{}#{d}", self.contact_type))
    }
}

impl Editable for Contact {
    type Changes = ContactChanges;
    const IN_USE: &'static str = MSG_IN_USE;

    fn create(id: i64, changes: &ContactChanges, now: Timestamp) -> ApiResult<Self> {
        let base = Contact { id, contact_type: "customer".into(), active: true, version: 0, ..Contact::default() };
        let mut contact = changes.applied_to(&base, now.date())?;
        contact.created_at = Some(now);
        contact.updated_at = Some(now);
        contact.version = 1;
        Ok(contact)
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
        self.billing_refs > 0
    }

    /// The group and every newly added tag must exist in the account (checked now for the 422 and
    /// again inside the transaction against a concurrent delete); links follow the tag set.
    async fn related_writes(&self, before: Option<&Self>, store: &Store, account: AccountId) -> ApiResult<Vec<Write>> {
        let old_tags: &[i64] = before.map(|b| b.tag_ids.as_slice()).unwrap_or_default();
        let added: Vec<i64> = self.tag_ids.iter().copied().filter(|t| !old_tags.contains(t)).collect();
        let removed: Vec<i64> = old_tags.iter().copied().filter(|t| !self.tag_ids.contains(t)).collect();
        let new_group = self.group_id.filter(|g| before.is_none_or(|b| b.group_id != Some(*g)));

        let mut errors = Vec::new();
        if let Some(group) = new_group {
            if records::find::<crate::groups::Group>(store, account, group).await?.is_none() {
                errors.push(input::MSG_GROUP_NOT_FOUND.to_owned());
            }
        }
        let missing = crate::tags::missing(store, account, &added).await?;
        if !missing.is_empty() {
            let ids: Vec<String> = missing.iter().map(i64::to_string).collect();
            errors.push(format!("{}: {}", input::MSG_TAGS_NOT_FOUND, ids.join(", ")));
        }
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }

        let mut writes = Vec::new();
        if let Some(group) = new_group {
            writes.push(Write::check_exists(keys::account(account), keys::record("GROUP", group)));
        }
        for tag in &added {
            writes.push(Write::check_exists(keys::account(account), keys::record("TAG", *tag)));
            let (pk, sk) = self.link(account, *tag);
            writes.push(Write::put(HashMap::from([
                ("pk".to_owned(), s(pk)),
                ("sk".to_owned(), s(sk)),
                ("kind".to_owned(), s("contact_tag")),
            ])));
        }
        for tag in removed {
            let (pk, sk) = self.link(account, tag);
            writes.push(Write::delete(pk, sk));
        }
        Ok(writes)
    }

    fn delete_writes(&self, account: AccountId) -> Vec<Write> {
        self.tag_ids
            .iter()
            .map(|tag| {
                let (pk, sk) = self.link(account, *tag);
                Write::delete(pk, sk)
            })
            .collect()
    }
}

/// A duplicate document is reported with the document's name.
pub fn duplicate_message(contact: &Contact) -> String {
    let document = if contact.legal_entity { "CNPJ" } else { "CPF" };
    format!("{document} já está em uso para este tipo de contato")
}

/// Rewrites the contacts of the account that match `pick`, without touching `updated_at` (a tag
/// or group deleted under them). Each contact is re-read and written conditionally, so a
/// concurrent edit is never lost.
pub async fn detach(
    store: &Store,
    account: AccountId,
    pick: impl Fn(&crate::store::IndexEntry) -> bool,
    change: impl Fn(&mut Contact),
) -> ApiResult<()> {
    let entries = store.index_entries(keys::listing(account, Contact::KIND), None).await?;
    for entry in entries.iter().filter(|e| pick(e)) {
        let Some(id) = keys::id_of(&entry.sk) else { continue };
        crate::store::retry_in_turn(records::key_of::<Contact>(account, id), || async {
            let Some(current) = records::find::<Contact>(store, account, id).await? else { return Ok(()) };
            let mut next = current.clone();
            change(&mut next);
            if next == current {
                return Ok(());
            }
            next.version += 1;
            records::replace(store, account, &current, &next, "", Vec::new()).await
        })
        .await?;
    }
    Ok(())
}
