//! A contact (§2.3): a customer or supplier of the account, with its document, address, group and
//! tags. The record and what is derived from it.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::store::records::Record;
use crate::store::{keys, Item};
use crate::values::{AccountId, Cnpj, ContactId, ContactType, Cpf, GroupId, Money, TagId, Timestamp};

pub const MSG_IN_USE: &str = "Contato não pode ser excluído: possui cobranças";
pub const MSG_IN_USE_AT_POINT_OF_SALE: &str =
    "Contato não pode ser excluído: possui vendas ou créditos no ponto de venda";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    pub id: ContactId,
    pub contact_type: ContactType,
    #[serde(default)]
    pub group_id: Option<GroupId>,
    pub code: Option<String>,
    pub active: bool,
    pub email: Option<String>,
    pub legal_entity: bool,
    pub full_name: Option<String>,
    pub company_name: Option<String>,
    pub trademark: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub cpf: Option<Cpf>,
    pub cnpj: Option<Cnpj>,
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
    #[serde(default)]
    pub tag_ids: Vec<TagId>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub version: i64,
    /// Billings, bills and cash entries of the contact; deleting is refused while above zero.
    #[serde(default)]
    pub billing_refs: i64,
    /// Health module: the contact who pays for this patient (set by operators, never shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub financial_guardian_id: Option<ContactId>,
    /// Point of sale: the most the contact may owe on account (`None`: no limit), set by operators.
    #[serde(default, with = "number::option", skip_serializing_if = "Option::is_none")]
    pub on_account_limit: Option<Money>,
    /// Point of sale: what the contact owes on account (the open `due_amount` of its sales).
    #[serde(default, with = "number")]
    pub on_account_balance: Money,
    /// Point of sale: the contact's credit balance.
    #[serde(default, with = "number")]
    pub credit_balance: Money,
    /// Credit movements so far; the n-th is numbered n.
    #[serde(default)]
    pub credit_movements: i64,
    /// Point-of-sale sales of the contact.
    #[serde(default)]
    pub sales: i64,
}

impl Contact {
    /// A contact with nothing filled in but the defaults of a create: an active individual customer.
    pub fn blank(id: ContactId) -> Contact {
        Contact {
            id,
            contact_type: ContactType::Customer,
            group_id: None,
            code: None,
            active: true,
            email: None,
            legal_entity: false,
            full_name: None,
            company_name: None,
            trademark: None,
            birth_date: None,
            cpf: None,
            cnpj: None,
            business_phone_area: None,
            business_phone_number: None,
            cell_phone_area: None,
            cell_phone_number: None,
            address_postal_code: None,
            address_street: None,
            address_number: None,
            address_complement: None,
            address_district: None,
            address_city: None,
            address_state: None,
            observation: None,
            tag_ids: Vec::new(),
            created_at: None,
            updated_at: None,
            version: 0,
            billing_refs: 0,
            financial_guardian_id: None,
            on_account_limit: None,
            on_account_balance: Money::ZERO,
            credit_balance: Money::ZERO,
            credit_movements: 0,
            sales: 0,
        }
    }

    /// `company_name` for companies, `full_name` for individuals.
    pub fn description(&self) -> Option<&str> {
        if self.legal_entity {
            self.company_name.as_deref()
        } else {
            self.full_name.as_deref()
        }
    }

    /// `cnpj` for companies, `cpf` for individuals.
    pub fn document(&self) -> Option<String> {
        if self.legal_entity {
            self.cnpj.as_ref().map(Cnpj::to_string)
        } else {
            self.cpf.as_ref().map(Cpf::to_string)
        }
    }
}

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

/// Index sort keys start with the contact type, so a list narrowed by type reads only its part.
pub fn index_prefix(contact_type: ContactType) -> String {
    format!("{contact_type}#")
}

impl Record for Contact {
    const KIND: &'static str = "CONTACT";
    const UNIQUE: Option<&'static str> = Some("DOC");
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

    fn index_sk(&self) -> String {
        format!("{}{}", index_prefix(self.contact_type), keys::record(Self::KIND, self.id))
    }

    /// Lists read the contact postings (`contacts::postings`).
    const LISTED: bool = false;

    fn postings(&self, account: AccountId) -> Vec<crate::store::postings::Posting> {
        super::postings::of(account, self)
    }

    fn counted_in(&self, account: AccountId) -> Option<String> {
        Some(keys::count_shards(account, &format!("{}#{}", Self::KIND, self.contact_type)))
    }

    /// The document is unique per (account, contact type).
    fn unique_value(&self) -> Option<String> {
        self.document().map(|d| format!("{}#{d}", self.contact_type))
    }

    /// Contacts stored before `group_id` and `tag_ids` were attributes of their own kept them only
    /// in `list_fields`.
    fn upgrade(item: &mut Item) {
        let listed = match item.get("list_fields") {
            Some(aws_sdk_dynamodb::types::AttributeValue::M(fields)) => fields.clone(),
            _ => return,
        };
        for key in ["group_id", "tag_ids"] {
            if !item.contains_key(key) {
                if let Some(value) = listed.get(key) {
                    item.insert(key.to_owned(), value.clone());
                }
            }
        }
    }
}

/// A duplicate document is reported with the document's name.
pub fn duplicate_message(contact: &Contact) -> String {
    let document = if contact.legal_entity { "CNPJ" } else { "CPF" };
    format!("{document} já está em uso para este tipo de contato")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::AccountId;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn a_contact_stored_with_its_tags_only_in_list_fields_reads_back_whole() {
        let mut contact = Contact::blank(ContactId::new(3));
        contact.full_name = Some("Maria da Silva".into());
        contact.cpf = Cpf::parse("52998224725");
        contact.group_id = Some(GroupId::new(2));
        contact.tag_ids = vec![TagId::new(4), TagId::new(5)];
        contact.version = 1;
        let mut item = crate::store::records::item_of(AccountId::new(1), &contact).unwrap();
        assert_eq!(item["cpf"], AttributeValue::S("52998224725".into()));
        // As a previous version stored it: the group and tags in the listing entry only.
        let listed = crate::store::item::to_item(&contact.list_fields()).unwrap();
        item.insert("list_fields".into(), AttributeValue::M(listed));
        item.remove("group_id");
        item.remove("tag_ids");
        assert_eq!(crate::store::records::read::<Contact>(item).unwrap(), contact);
    }
}
