//! A contact being edited: its fields as text, read from the stored contact, checked by the rules
//! most fields share (required, within a size), and turned back into a contact once valid.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::label;
use crate::contacts::model::Contact;
use crate::refusal::Problem;
use crate::values::{Cnpj, ContactType, Cpf, GroupId, TagId};

/// A contact being edited: its fields as text, before they are normalized and validated.
pub(super) struct Draft {
    pub(super) contact_type: String,
    pub(super) active: bool,
    pub(super) legal_entity: bool,
    pub(super) reminders_opt_out: bool,
    pub(super) birth_date: Option<NaiveDate>,
    pub(super) group_id: Option<GroupId>,
    pub(super) tag_ids: Vec<TagId>,
    pub(super) texts: BTreeMap<&'static str, Option<String>>,
}

impl Draft {
    pub(super) fn of(contact: &Contact) -> Draft {
        let c = contact;
        let texts: [(&'static str, Option<String>); 19] = [
            ("code", c.code.clone()),
            ("email", c.email.clone()),
            ("full_name", c.full_name.clone()),
            ("company_name", c.company_name.clone()),
            ("trademark", c.trademark.clone()),
            ("cpf", c.cpf.as_ref().map(Cpf::to_string)),
            ("cnpj", c.cnpj.as_ref().map(Cnpj::to_string)),
            ("business_phone_area", c.business_phone_area.clone()),
            ("business_phone_number", c.business_phone_number.clone()),
            ("cell_phone_area", c.cell_phone_area.clone()),
            ("cell_phone_number", c.cell_phone_number.clone()),
            ("address_postal_code", c.address_postal_code.clone()),
            ("address_street", c.address_street.clone()),
            ("address_number", c.address_number.clone()),
            ("address_complement", c.address_complement.clone()),
            ("address_district", c.address_district.clone()),
            ("address_city", c.address_city.clone()),
            ("address_state", c.address_state.clone()),
            ("observation", c.observation.clone()),
        ];
        Draft {
            contact_type: c.contact_type.as_str().to_owned(),
            active: c.active,
            legal_entity: c.legal_entity,
            reminders_opt_out: c.reminders_opt_out,
            birth_date: c.birth_date,
            group_id: c.group_id,
            tag_ids: c.tag_ids.clone(),
            texts: texts.into_iter().collect(),
        }
    }

    pub(super) fn text(&self, key: &str) -> Option<&str> {
        self.texts.get(key).and_then(|v| v.as_deref())
    }

    pub(super) fn set(&mut self, key: &'static str, value: Option<String>) {
        self.texts.insert(key, value);
    }

    /// Whether `key` holds a text; when it does not, a problem says it is blank.
    pub(super) fn required(&self, key: &str, errors: &mut Vec<Problem>) -> bool {
        let present = self.text(key).is_some();
        if !present {
            errors.push(Problem::blank(key, format!("{} não pode ficar em branco", label(key))));
        }
        present
    }

    /// A problem when `key` holds a text of more than `max` or fewer than `min` characters.
    pub(super) fn size(&self, key: &str, min: usize, max: usize, errors: &mut Vec<Problem>) {
        if let Some(text) = self.text(key) {
            if chars(text) > max {
                errors.push(Problem::too_long(key, format!("{} é muito longo (máximo: {max} caracteres)", label(key))));
            } else if chars(text) < min {
                errors
                    .push(Problem::too_short(key, format!("{} é muito curto (mínimo: {min} caracteres)", label(key))));
            }
        }
    }

    /// `base` with the validated draft over it (a draft that passed [`Draft::validate`]).
    pub(super) fn into_contact(mut self, base: &Contact) -> Contact {
        let mut take = |key: &str| self.texts.remove(key).flatten();
        Contact {
            contact_type: ContactType::parse(&self.contact_type).unwrap_or(base.contact_type),
            active: self.active,
            legal_entity: self.legal_entity,
            reminders_opt_out: self.reminders_opt_out,
            birth_date: self.birth_date,
            group_id: self.group_id,
            tag_ids: self.tag_ids.clone(),
            code: take("code"),
            email: take("email"),
            full_name: take("full_name"),
            company_name: take("company_name"),
            trademark: take("trademark"),
            cpf: take("cpf").and_then(|c| Cpf::parse(&c)),
            cnpj: take("cnpj").and_then(|c| Cnpj::parse(&c)),
            business_phone_area: take("business_phone_area"),
            business_phone_number: take("business_phone_number"),
            cell_phone_area: take("cell_phone_area"),
            cell_phone_number: take("cell_phone_number"),
            address_postal_code: take("address_postal_code"),
            address_street: take("address_street"),
            address_number: take("address_number"),
            address_complement: take("address_complement"),
            address_district: take("address_district"),
            address_city: take("address_city"),
            address_state: take("address_state"),
            observation: take("observation"),
            ..base.clone()
        }
    }
}

pub(super) fn chars(text: &str) -> usize {
    text.chars().count()
}
