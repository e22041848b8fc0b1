//! Contact input: the sent fields are applied over the current contact (or the defaults), the
//! result is normalized as §2.3 lists, then validated as a whole, since the rules depend on
//! `legal_entity`. Every broken rule is reported at once.
//!
//! The contact being edited is a [`draft::Draft`]; [`normalize`] holds its normalization and
//! [`validate`] its validation, one group of fields at a time: who the contact is
//! ([`person_or_company`]), how it is reached ([`email_and_phones`]), where ([`address`]).

use chrono::NaiveDate;
use serde_json::{Map, Value};

use super::model::Contact;
use crate::http::fields::id_in;
use crate::http::{Fields, Sent};
use crate::refusal::{Problem, Refusal};
use crate::values::{GroupId, TagId};

mod address;
mod draft;
mod email_and_phones;
mod normalize;
mod person_or_company;
mod validate;

use draft::Draft;

const TEXT_FIELDS: [&str; 19] = [
    "code",
    "email",
    "full_name",
    "company_name",
    "trademark",
    "cpf",
    "cnpj",
    "business_phone_area",
    "business_phone_number",
    "cell_phone_area",
    "cell_phone_number",
    "address_postal_code",
    "address_street",
    "address_number",
    "address_complement",
    "address_district",
    "address_city",
    "address_state",
    "observation",
];

pub const MAX_TAGS: usize = 40;
pub const MSG_GROUP_NOT_FOUND: &str = "Grupo não encontrado";
pub const MSG_TAGS_NOT_FOUND: &str = "Etiquetas não encontradas";

fn label(key: &str) -> &'static str {
    match key {
        "contact_type" => "Tipo de contato",
        "group_id" => "Grupo",
        "code" => "Código",
        "active" => "Ativo",
        "reminders_opt_out" => "Sem lembretes",
        "email" => "E-mail",
        "legal_entity" => "Pessoa jurídica",
        "full_name" => "Nome completo",
        "company_name" => "Razão social",
        "trademark" => "Nome fantasia",
        "birth_date" => "Data de nascimento",
        "cpf" => "CPF",
        "cnpj" => "CNPJ",
        "business_phone_area" => "DDD do telefone comercial",
        "business_phone_number" => "Telefone comercial",
        "cell_phone_area" => "DDD do celular",
        "cell_phone_number" => "Celular",
        "address_postal_code" => "CEP",
        "address_street" => "Logradouro",
        "address_number" => "Número",
        "address_complement" => "Complemento",
        "address_district" => "Bairro",
        "address_city" => "Cidade",
        "address_state" => "Estado (UF)",
        "observation" => "Observação",
        "tag_ids" => "Etiquetas",
        _ => "Campo",
    }
}

/// The `contact` envelope as sent; applied to a contact by [`ContactChanges::applied_to`].
#[derive(Clone, Debug, Default)]
pub struct ContactChanges(pub Map<String, Value>);

impl ContactChanges {
    pub fn new(fields: Fields<'_>) -> Self {
        let mut map = Map::new();
        for key in TEXT_FIELDS.iter().chain(&[
            "contact_type",
            "group_id",
            "active",
            "legal_entity",
            "birth_date",
            "tag_ids",
            "reminders_opt_out",
        ]) {
            if let Some(value) = fields.raw(key) {
                map.insert((*key).to_owned(), value.clone());
            }
        }
        ContactChanges(map)
    }

    /// `base` with these changes, normalized and validated; `registered` is the registration date
    /// the age rule counts from.
    pub fn applied_to(&self, base: &Contact, registered: NaiveDate) -> Result<Contact, Refusal> {
        let mut errors = Vec::new();
        let mut draft = Draft::of(base);
        let fields = Fields::new(&self.0);

        for key in TEXT_FIELDS {
            if let Some(value) = fields.text(key, label(key), &mut errors) {
                draft.texts.insert(key, value);
            }
        }
        if let Some(value) = fields.text("contact_type", label("contact_type"), &mut errors) {
            draft.contact_type = value.unwrap_or_default().trim().to_owned();
        }
        if let Some(value) = fields.boolean("active", label("active"), &mut errors) {
            draft.active = value.unwrap_or(true);
        }
        if let Some(value) = fields.boolean("legal_entity", label("legal_entity"), &mut errors) {
            draft.legal_entity = value.unwrap_or(false);
        }
        if let Some(value) = fields.boolean("reminders_opt_out", label("reminders_opt_out"), &mut errors) {
            draft.reminders_opt_out = value.unwrap_or(false);
        }
        match fields.date("birth_date") {
            Sent::Omitted => {}
            Sent::Empty => draft.birth_date = None,
            Sent::Given(date) => draft.birth_date = Some(date),
            Sent::Invalid => {
                draft.birth_date = None;
                errors.push(Problem::invalid(
                    "birth_date",
                    format!("{} não é válida (use AAAA-MM-DD)", label("birth_date")),
                ));
            }
        }
        match fields.id::<GroupId>("group_id") {
            Sent::Omitted => {}
            Sent::Empty => draft.group_id = None,
            Sent::Given(group) => draft.group_id = Some(group),
            Sent::Invalid => {
                errors.push(Problem::invalid("group_id", format!("{} não é válido", label("group_id"))));
            }
        }
        if let Some(value) = fields.raw("tag_ids") {
            draft.tag_ids = tag_ids(value);
        }

        draft.normalize();
        draft.validate(registered, &mut errors);
        if errors.is_empty() {
            Ok(draft.into_contact(base))
        } else {
            Err(Refusal::Invalid(errors))
        }
    }
}

/// §2.4: a replacement list; null or empty removes all; non-numeric values are ignored.
fn tag_ids(value: &Value) -> Vec<TagId> {
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        // A form may send `contact[tag_ids][0]=1`, read as an object of index → id.
        Value::Object(map) => map.values().collect(),
        Value::Null => Vec::new(),
        single => vec![single],
    };
    let mut ids = Vec::new();
    // One id past the limit is enough for the 422; the rest is not read.
    for item in items {
        if ids.len() > MAX_TAGS {
            break;
        }
        if let Sent::Given(id) = id_in::<TagId>(Some(item)) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refusal::Code;
    use crate::values::{Cnpj, Cpf};
    use serde_json::json;

    pub(super) fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    pub(super) fn individual() -> serde_json::Value {
        json!({
            "full_name": "  Maria   da Silva ", "cpf": "529.982.247-25", "email": " Maria.Silva@Example.COM ",
            "cell_phone_area": "11", "cell_phone_number": "98765-4321",
            "address_postal_code": "01310100", "address_street": "Avenida  Paulista", "address_number": "1000",
            "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": " sp "
        })
    }

    pub(super) fn apply(body: serde_json::Value) -> Result<Contact, Refusal> {
        let base = Contact::blank(crate::values::ContactId::new(1));
        ContactChanges(body.as_object().unwrap().clone()).applied_to(&base, date("2026-11-22"))
    }

    pub(super) fn problems(body: serde_json::Value) -> Vec<Problem> {
        match apply(body) {
            Err(Refusal::Invalid(problems)) => problems,
            other => panic!("expected 422, got {other:?}"),
        }
    }

    pub(super) fn errors(body: serde_json::Value) -> Vec<String> {
        problems(body).into_iter().map(|p| p.message).collect()
    }

    #[test]
    fn problems_name_the_field_as_sent() {
        let mut body = individual();
        body["cpf"] = json!("111.111.111-11");
        body["birth_date"] = json!("2010-01-01");
        body["cell_phone_area"] = json!("011");
        body["address_street"] = json!("Rua");
        body["address_postal_code"] = json!(null);
        body["email"] = json!(["a@b.co"]);
        let fields: Vec<_> = problems(body).into_iter().map(|p| (p.field.unwrap_or_default(), p.code)).collect();
        let expected = [
            ("email", Code::Invalid),
            ("cpf", Code::Invalid),
            ("birth_date", Code::OutOfRange),
            ("cell_phone_area", Code::Invalid),
            ("address_postal_code", Code::Blank),
            ("address_street", Code::TooShort),
        ];
        assert_eq!(fields, expected.map(|(f, c)| (f.to_owned(), c)));
        let mut body = individual();
        body["tag_ids"] = json!((1..=41).collect::<Vec<i64>>());
        body["contact_type"] = json!("fornecedor");
        assert_eq!(
            problems(body),
            [
                Problem::invalid("contact_type", "Tipo de contato não está incluído na lista (customer, supplier)"),
                Problem::too_long("tag_ids", "Etiquetas: no máximo 40 por contato"),
            ]
        );
    }

    #[test]
    fn an_individual_is_normalized() {
        let c = apply(individual()).unwrap();
        assert_eq!(c.full_name.as_deref(), Some("Maria da Silva"));
        assert_eq!(c.cpf.as_ref().map(Cpf::to_string).as_deref(), Some("52998224725"));
        assert_eq!(c.email.as_deref(), Some("maria.silva@example.com"));
        assert_eq!(c.address_state.as_deref(), Some("SP"));
        assert_eq!(c.address_street.as_deref(), Some("Avenida Paulista"));
        assert_eq!(c.address_postal_code.as_deref(), Some("01310-100"));
        assert_eq!(c.cell_phone_number.as_deref(), Some("987654321"));
        assert_eq!((c.description(), c.document().as_deref()), (Some("Maria da Silva"), Some("52998224725")));
    }

    #[test]
    fn a_company_with_an_alphanumeric_cnpj() {
        let mut body = individual();
        body["legal_entity"] = json!(true);
        body["company_name"] = json!("Exemplo  Comércio Ltda");
        body["cnpj"] = json!("12.abc.345/01de-35");
        body["full_name"] = json!(null);
        let c = apply(body).unwrap();
        assert_eq!(c.cnpj.as_ref().map(Cnpj::to_string).as_deref(), Some("12ABC34501DE35"));
        assert_eq!(c.cpf, None);
        assert_eq!((c.description(), c.document().as_deref()), (Some("Exemplo Comércio Ltda"), Some("12ABC34501DE35")));
    }

    #[test]
    fn tag_ids_are_a_replacement_that_ignores_non_numbers() {
        assert_eq!(tag_ids(&json!([3, "5", "x", "", 3, -1, null])), vec![3, 5]);
        assert!(tag_ids(&json!([""])).is_empty());
        assert!(tag_ids(&json!(null)).is_empty());
        assert_eq!(tag_ids(&json!({"0": "7", "1": "8"})), vec![7, 8]);
    }
}
