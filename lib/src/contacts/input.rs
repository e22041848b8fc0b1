//! Contact input: the sent fields are applied over the current contact (or the defaults), the
//! result is normalized as §2.3 lists, then validated as a whole, since the rules depend on
//! `legal_entity`. Every broken rule is reported at once.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value};

use super::model::Contact;
use crate::http::fields::id_in;
use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem, Refusal};
use crate::values::cpf_cnpj::{normalize_cnpj, normalize_cpf};
use crate::values::text::collapse_whitespace;
use crate::values::{Cnpj, ContactType, Cpf, GroupId, TagId};

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
/// The spec gives `observation` no bound; 10,000 characters (at most 40 KB) keep a contact far
/// under DynamoDB's 400 KB item limit.
const OBSERVATION_MAX_CHARS: usize = 10_000;
pub const MSG_GROUP_NOT_FOUND: &str = "Grupo não encontrado";
pub const MSG_TAGS_NOT_FOUND: &str = "Etiquetas não encontradas";
const MSG_FULL_NAME_PATTERN: &str = "Nome completo deve conter nome e sobrenome (somente letras)";
const MSG_UNDERAGE: &str = "Data de nascimento: o contato deve ter ao menos 18 anos na data do cadastro";

const STATES: [&str; 27] = [
    "AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA", "PB", "PR", "PE", "PI", "RJ",
    "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO",
];

/// Lowercase connectors that may stand between the given name and the surname.
const PARTICLES: [&str; 12] = ["da", "das", "de", "del", "della", "di", "do", "dos", "du", "e", "van", "von"];

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

/// A contact being edited: its fields as text, before they are normalized and validated.
struct Draft {
    contact_type: String,
    active: bool,
    legal_entity: bool,
    reminders_opt_out: bool,
    birth_date: Option<NaiveDate>,
    group_id: Option<GroupId>,
    tag_ids: Vec<TagId>,
    texts: BTreeMap<&'static str, Option<String>>,
}

impl Draft {
    fn of(contact: &Contact) -> Draft {
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

    fn text(&self, key: &str) -> Option<&str> {
        self.texts.get(key).and_then(|v| v.as_deref())
    }

    fn set(&mut self, key: &'static str, value: Option<String>) {
        self.texts.insert(key, value);
    }

    /// `base` with the validated draft over it (a draft that passed [`Draft::validate`]).
    fn into_contact(mut self, base: &Contact) -> Contact {
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

impl Draft {
    /// §2.3 normalization, plus: blank text is null, phones keep only their digits, an 8-digit
    /// postal code gets its hyphen, and the other entity's document is dropped.
    fn normalize(&mut self) {
        let rules: [(&'static str, Normalize); 19] = [
            ("cpf", normalize_cpf),
            ("cnpj", normalize_cnpj),
            ("email", |e| e.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase()),
            ("address_state", |s| s.trim().to_uppercase()),
            ("full_name", collapse_whitespace),
            ("company_name", collapse_whitespace),
            ("trademark", collapse_whitespace),
            ("address_street", collapse_whitespace),
            ("address_number", collapse_whitespace),
            ("address_complement", collapse_whitespace),
            ("address_district", collapse_whitespace),
            ("address_city", collapse_whitespace),
            ("code", |c| c.trim().to_owned()),
            ("observation", |o| o.trim().to_owned()),
            ("business_phone_area", digits_of_phone),
            ("business_phone_number", digits_of_phone),
            ("cell_phone_area", digits_of_phone),
            ("cell_phone_number", digits_of_phone),
            ("address_postal_code", postal_code),
        ];
        for (key, rule) in rules {
            let normalized = self.text(key).map(rule).filter(|t| !t.is_empty());
            self.set(key, normalized);
        }
        if self.legal_entity {
            self.set("cpf", None);
        } else {
            self.set("cnpj", None);
        }
    }

    fn validate(&self, registered: NaiveDate, errors: &mut Vec<Problem>) {
        let required = |key: &str, errors: &mut Vec<Problem>| -> bool {
            let present = self.text(key).is_some();
            if !present {
                errors.push(Problem::blank(key, format!("{} não pode ficar em branco", label(key))));
            }
            present
        };
        let size = |key: &str, min: usize, max: usize, errors: &mut Vec<Problem>| {
            if let Some(text) = self.text(key) {
                if chars(text) > max {
                    errors.push(Problem::too_long(
                        key,
                        format!("{} é muito longo (máximo: {max} caracteres)", label(key)),
                    ));
                } else if chars(text) < min {
                    errors.push(Problem::too_short(
                        key,
                        format!("{} é muito curto (mínimo: {min} caracteres)", label(key)),
                    ));
                }
            }
        };

        if ContactType::parse(&self.contact_type).is_none() {
            let message = "Tipo de contato não está incluído na lista (customer, supplier)";
            let code = if self.contact_type.is_empty() { Code::Blank } else { Code::Invalid };
            errors.push(Problem::at("contact_type", code, message));
        }
        if self.legal_entity {
            if required("cnpj", errors) && Cnpj::parse(self.text("cnpj").unwrap_or_default()).is_none() {
                errors.push(Problem::invalid("cnpj", "CNPJ não é válido"));
            }
            required("company_name", errors);
        } else {
            if required("cpf", errors) && Cpf::parse(self.text("cpf").unwrap_or_default()).is_none() {
                errors.push(Problem::invalid("cpf", "CPF não é válido"));
            }
            if required("full_name", errors) && !is_full_name(self.text("full_name").unwrap_or_default()) {
                errors.push(Problem::invalid("full_name", MSG_FULL_NAME_PATTERN));
            }
            if let Some(birth) = self.birth_date {
                if age_on(birth, registered) < 18 {
                    errors.push(Problem::out_of_range("birth_date", MSG_UNDERAGE));
                }
            }
        }
        for key in ["full_name", "company_name", "trademark"] {
            size(key, 0, 255, errors);
        }
        size("code", 0, 20, errors);
        size("observation", 0, OBSERVATION_MAX_CHARS, errors);
        if let Some(email) = self.text("email") {
            if chars(email) > 160 {
                errors.push(Problem::too_long("email", "E-mail é muito longo (máximo: 160 caracteres)"));
            } else if !is_email(email) {
                errors.push(Problem::invalid("email", "E-mail não é válido"));
            }
        }
        for (area_key, number_key) in
            [("business_phone_area", "business_phone_number"), ("cell_phone_area", "cell_phone_number")]
        {
            if self.text(area_key).is_some_and(|a| a.len() != 2 || !a.bytes().all(|b| b.is_ascii_digit())) {
                errors.push(Problem::invalid(area_key, format!("{} deve ter 2 dígitos", label(area_key))));
            }
            if self
                .text(number_key)
                .is_some_and(|n| !(8..=9).contains(&n.len()) || !n.bytes().all(|b| b.is_ascii_digit()))
            {
                errors.push(Problem::invalid(number_key, format!("{} deve ter 8 ou 9 dígitos", label(number_key))));
            }
        }

        // A complete address (§2.3 rule 3).
        if required("address_postal_code", errors)
            && !is_postal_code(self.text("address_postal_code").unwrap_or_default())
        {
            errors.push(Problem::invalid("address_postal_code", "CEP não é válido (formato 00000-000)"));
        }
        for (key, min) in [("address_street", 5), ("address_number", 1), ("address_district", 3), ("address_city", 2)] {
            if required(key, errors) {
                size(key, min, if key == "address_number" { 10 } else { 255 }, errors);
            }
        }
        size("address_complement", 0, 255, errors);
        if required("address_state", errors) && !STATES.contains(&self.text("address_state").unwrap_or_default()) {
            errors.push(Problem::invalid("address_state", "Estado (UF) não é válido"));
        }
        if self.tag_ids.len() > MAX_TAGS {
            errors.push(Problem::too_long("tag_ids", format!("Etiquetas: no máximo {MAX_TAGS} por contato")));
        }
    }
}

/// How one text field is normalized.
type Normalize = fn(&str) -> String;

/// Phones keep their digits: spaces, hyphens, dots and parentheses are removed.
fn digits_of_phone(phone: &str) -> String {
    phone.chars().filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')')).collect()
}

/// An 8-digit postal code gets its hyphen.
fn postal_code(code: &str) -> String {
    let code = code.trim();
    if code.len() == 8 && code.bytes().all(|b| b.is_ascii_digit()) {
        format!("{}-{}", &code[..5], &code[5..])
    } else {
        code.to_owned()
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// Whole years from `birth` to `on` (someone born on 29 February turns a year older on 1 March in
/// common years).
fn age_on(birth: NaiveDate, on: NaiveDate) -> i32 {
    let mut age = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        age -= 1;
    }
    age
}

/// A given name plus a surname: two or more words of letters (accents included), apostrophes and
/// hyphens inside words, lowercase particles between them, and single-letter initials with a
/// period in the middle ("João P. Silva").
fn is_full_name(name: &str) -> bool {
    let words: Vec<&str> = name.split(' ').collect();
    if words.len() < 2 {
        return false;
    }
    let last = words.len() - 1;
    words.iter().enumerate().all(|(i, word)| {
        let is_edge = i == 0 || i == last;
        if is_edge {
            is_name_word(word)
                && !PARTICLES.contains(&word.to_lowercase().as_str())
                && word.chars().filter(|c| c.is_alphabetic()).count() >= 2
        } else {
            is_name_word(word) || is_initial(word)
        }
    })
}

fn is_name_word(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    !chars.is_empty()
        && chars.iter().enumerate().all(|(i, c)| {
            c.is_alphabetic()
                || (matches!(c, '\'' | '’' | '-')
                    && i > 0
                    && i + 1 < chars.len()
                    && chars[i - 1].is_alphabetic()
                    && chars[i + 1].is_alphabetic())
        })
}

fn is_initial(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars.len() == 2 && chars[0].is_alphabetic() && chars[0].is_uppercase() && chars[1] == '.'
}

fn is_postal_code(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() == 9 && b[5] == b'-' && b.iter().enumerate().all(|(i, c)| i == 5 || c.is_ascii_digit())
}

/// A practical address check: one `@`, a local part of allowed characters without edge or double
/// dots, and a domain of at least two labels with a letters-only top level.
fn is_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local.chars().all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~.-".contains(c));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && labels.last().is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
    local_ok && domain_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn date(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn individual() -> serde_json::Value {
        json!({
            "full_name": "  Maria   da Silva ", "cpf": "529.982.247-25", "email": " Maria.Silva@Example.COM ",
            "cell_phone_area": "11", "cell_phone_number": "98765-4321",
            "address_postal_code": "01310100", "address_street": "Avenida  Paulista", "address_number": "1000",
            "address_district": "Bela Vista", "address_city": "São Paulo", "address_state": " sp "
        })
    }

    fn apply(body: serde_json::Value) -> Result<Contact, Refusal> {
        let base = Contact::blank(crate::values::ContactId::new(1));
        ContactChanges(body.as_object().unwrap().clone()).applied_to(&base, date("2026-11-22"))
    }

    fn problems(body: serde_json::Value) -> Vec<Problem> {
        match apply(body) {
            Err(Refusal::Invalid(problems)) => problems,
            other => panic!("expected 422, got {other:?}"),
        }
    }

    fn errors(body: serde_json::Value) -> Vec<String> {
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
    fn entity_rules() {
        let e = errors(json!({}));
        for expected in [
            "CPF não pode ficar em branco",
            "Nome completo não pode ficar em branco",
            "CEP não pode ficar em branco",
            "Logradouro não pode ficar em branco",
            "Número não pode ficar em branco",
            "Bairro não pode ficar em branco",
            "Cidade não pode ficar em branco",
            "Estado (UF) não pode ficar em branco",
        ] {
            assert!(e.contains(&expected.to_owned()), "{expected} missing from {e:?}");
        }
        let e = errors(json!({"legal_entity": true, "cpf": "52998224725"}));
        assert!(
            e.contains(&"CNPJ não pode ficar em branco".to_owned())
                && e.contains(&"Razão social não pode ficar em branco".to_owned())
        );
        let mut body = individual();
        body["cpf"] = json!("111.111.111-11");
        assert_eq!(errors(body), ["CPF não é válido"]);
        let mut body = individual();
        body["legal_entity"] = json!(true);
        body["company_name"] = json!("X Ltda");
        body["cnpj"] = json!("12.ABC.345/01DE-36");
        assert_eq!(errors(body), ["CNPJ não é válido"]);
    }

    #[test]
    fn full_names() {
        for ok in
            ["Maria da Silva", "João P. Souza", "Ana-Maria D'Ávila", "José dos Santos e Silva", "Zoë O’Neil", "Li Na"]
        {
            assert!(is_full_name(ok), "{ok}");
        }
        for bad in [
            "Maria",
            "Maria da",
            "da Silva",
            "Maria Silva2",
            "Maria -Silva",
            "M Silva",
            "Maria  ",
            "Maria S.",
            "R2 D2",
            "Maria @Silva",
        ] {
            assert!(!is_full_name(bad), "{bad}");
        }
        let mut body = individual();
        body["full_name"] = json!("Maria");
        assert_eq!(errors(body), [MSG_FULL_NAME_PATTERN]);
    }

    #[test]
    fn age_is_counted_at_registration() {
        assert_eq!(age_on(date("2008-11-22"), date("2026-11-22")), 18);
        assert_eq!(age_on(date("2008-11-23"), date("2026-11-22")), 17);
        assert_eq!(age_on(date("2008-02-29"), date("2026-02-28")), 17);
        assert_eq!(age_on(date("2008-02-29"), date("2026-03-01")), 18);
        let mut body = individual();
        body["birth_date"] = json!("2008-11-23");
        assert_eq!(errors(body), [MSG_UNDERAGE]);
        let mut body = individual();
        body["birth_date"] = json!("2008-11-22");
        assert!(apply(body).is_ok());
        let mut body = individual();
        body["birth_date"] = json!("22/11/1990");
        assert_eq!(errors(body).len(), 1);
    }

    #[test]
    fn emails_phones_and_sizes() {
        for ok in ["a@b.co", "maria.silva+cob@empresa.com.br", "x_y@sub-dominio.example.org"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in ["a", "a@b", "a@b.c", "a..b@c.com", ".a@c.com", "a@-b.com", "a@b_c.com", "a@@b.com", "a@b.c0m"] {
            assert!(!is_email(bad), "{bad}");
        }
        let mut body = individual();
        body["email"] = json!(format!("{}@example.com", "a".repeat(150)));
        assert_eq!(errors(body), ["E-mail é muito longo (máximo: 160 caracteres)"]);
        let mut body = individual();
        body["cell_phone_area"] = json!("011");
        body["business_phone_number"] = json!("1234567");
        body["code"] = json!("c".repeat(21));
        body["address_number"] = json!("12345678901");
        body["address_street"] = json!("Rua");
        body["address_state"] = json!("XX");
        body["address_postal_code"] = json!("1310-100");
        assert_eq!(errors(body).len(), 7);
    }

    #[test]
    fn tag_ids_are_a_replacement_that_ignores_non_numbers() {
        assert_eq!(tag_ids(&json!([3, "5", "x", "", 3, -1, null])), vec![3, 5]);
        assert!(tag_ids(&json!([""])).is_empty());
        assert!(tag_ids(&json!(null)).is_empty());
        assert_eq!(tag_ids(&json!({"0": "7", "1": "8"})), vec![7, 8]);
    }
}
