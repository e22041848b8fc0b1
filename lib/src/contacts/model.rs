//! A contact (§2.3): a customer or supplier of the account, with its document, address, group and
//! tags. The record and what is derived from it.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::store::item::number;
use crate::store::keys::contact::ContactNames;
use crate::values::{Cnpj, ContactId, ContactType, Cpf, GroupId, Money, TagId, Timestamp};

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
    /// The payer asked for no reminders (the unsubscribe page, or the API): none is sent to it.
    #[serde(default)]
    pub reminders_opt_out: bool,
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
    /// Which names its postings and tag counts are stored under: today's for every contact
    /// written since they were renamed; the names before (the attribute absent, as on a contact
    /// stored before and not written since). Never shown.
    #[serde(default, skip_serializing_if = "stored_before")]
    pub names: ContactNames,
}

/// Whether a contact's names are the ones before, which such a contact does not spell.
fn stored_before(names: &ContactNames) -> bool {
    *names == ContactNames::Before
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
            reminders_opt_out: false,
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
            names: ContactNames::Today,
        }
    }

    /// Whether its postings and tag counts are stored under the names before today's.
    pub fn legacy_names(&self) -> bool {
        stored_before(&self.names)
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

/// A duplicate document is reported with the document's name.
pub fn duplicate_message(contact: &Contact) -> String {
    let document = if contact.legal_entity { "CNPJ" } else { "CPF" };
    format!("{document} já está em uso para este tipo de contato")
}

/// The field of the contact's document: `cnpj` for a legal entity, else `cpf`.
pub fn document_field(contact: &Contact) -> &'static str {
    if contact.legal_entity {
        "cnpj"
    } else {
        "cpf"
    }
}
