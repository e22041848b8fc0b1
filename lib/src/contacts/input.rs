//! Contact input: the sent fields are applied over the current contact (or the defaults), the
//! result is normalized as §2.3 lists, then validated as a whole, since the rules depend on
//! `legal_entity`. Every broken rule is reported at once.

use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value};

use super::{Contact, CONTACT_TYPES};
use crate::documents::{normalize_cnpj, normalize_cpf, Cnpj, Cpf};
use crate::http::{ApiError, ApiResult, Fields};
use crate::text::collapse_whitespace;

pub const TEXT_FIELDS: [&str; 19] = [
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
pub const OBSERVATION_MAX_CHARS: usize = 10_000;
pub const MSG_GROUP_NOT_FOUND: &str = "Grupo não encontrado";
pub const MSG_TAGS_NOT_FOUND: &str = "Etiquetas não encontradas";
pub const MSG_FULL_NAME_PATTERN: &str = "Nome completo deve conter nome e sobrenome (somente letras)";
pub const MSG_UNDERAGE: &str = "Data de nascimento: o contato deve ter ao menos 18 anos na data do cadastro";

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
        for key in
            TEXT_FIELDS.iter().chain(&["contact_type", "group_id", "active", "legal_entity", "birth_date", "tag_ids"])
        {
            if let Some(value) = fields.raw(key) {
                map.insert((*key).to_owned(), value.clone());
            }
        }
        ContactChanges(map)
    }

    /// `base` with these changes, normalized and validated; `registered` is the registration date
    /// the age rule counts from.
    pub fn applied_to(&self, base: &Contact, registered: NaiveDate) -> ApiResult<Contact> {
        let mut errors = Vec::new();
        let mut contact = base.clone();
        let fields = Fields::new(&self.0);

        for key in TEXT_FIELDS {
            if let Some(value) = fields.text(key, label(key), &mut errors) {
                *contact.text_mut(key).expect("a text field") = value;
            }
        }
        if let Some(value) = fields.text("contact_type", label("contact_type"), &mut errors) {
            contact.contact_type = value.unwrap_or_default().trim().to_owned();
        }
        if let Some(value) = fields.boolean("active", label("active"), &mut errors) {
            contact.active = value.unwrap_or(true);
        }
        if let Some(value) = fields.boolean("legal_entity", label("legal_entity"), &mut errors) {
            contact.legal_entity = value.unwrap_or(false);
        }
        if let Some(value) = fields.text("birth_date", label("birth_date"), &mut errors) {
            contact.birth_date = None;
            if let Some(text) = value.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()) {
                match crate::dates::parse(&text) {
                    Some(date) => contact.birth_date = Some(date),
                    None => errors.push(format!("{} não é válida (use AAAA-MM-DD)", label("birth_date"))),
                }
            }
        }
        if let Some(value) = fields.raw("group_id") {
            match group_id(value) {
                Ok(group) => contact.group_id = group,
                Err(()) => errors.push(format!("{} não é válido", label("group_id"))),
            }
        }
        if let Some(value) = fields.raw("tag_ids") {
            contact.tag_ids = tag_ids(value);
        }

        normalize(&mut contact);
        validate(&contact, registered, &mut errors);
        if errors.is_empty() {
            Ok(contact)
        } else {
            Err(ApiError::Validation(errors))
        }
    }
}

/// An id, or null/empty for none; anything else is an error.
fn group_id(value: &Value) -> Result<Option<i64>, ()> {
    match value {
        Value::Null => Ok(None),
        Value::Number(n) => n.as_i64().filter(|id| *id > 0).map(Some).ok_or(()),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => s.trim().parse::<i64>().ok().filter(|id| *id > 0).map(Some).ok_or(()),
        _ => Err(()),
    }
}

/// §2.4: a replacement list; null or empty removes all; non-numeric values are ignored.
fn tag_ids(value: &Value) -> Vec<i64> {
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
        let id = match item {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        if let Some(id) = id.filter(|id| *id > 0) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// §2.3 normalization, plus: blank text is null, phones keep only digits, an 8-digit postal code
/// gets its hyphen, and the other entity's document is dropped.
fn normalize(contact: &mut Contact) {
    let blank_is_none = |v: &mut Option<String>, f: &dyn Fn(&str) -> String| {
        *v = v.as_deref().map(f).filter(|t| !t.is_empty());
    };
    blank_is_none(&mut contact.cpf, &normalize_cpf);
    blank_is_none(&mut contact.cnpj, &normalize_cnpj);
    blank_is_none(&mut contact.email, &|e| e.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase());
    blank_is_none(&mut contact.address_state, &|s| s.trim().to_uppercase());
    for text in [
        &mut contact.full_name,
        &mut contact.company_name,
        &mut contact.trademark,
        &mut contact.address_street,
        &mut contact.address_number,
        &mut contact.address_complement,
        &mut contact.address_district,
        &mut contact.address_city,
    ] {
        blank_is_none(text, &collapse_whitespace);
    }
    blank_is_none(&mut contact.code, &|c| c.trim().to_owned());
    blank_is_none(&mut contact.observation, &|o| o.trim().to_owned());
    for phone in [
        &mut contact.business_phone_area,
        &mut contact.business_phone_number,
        &mut contact.cell_phone_area,
        &mut contact.cell_phone_number,
    ] {
        blank_is_none(phone, &|p| p.chars().filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')')).collect());
    }
    blank_is_none(&mut contact.address_postal_code, &|p| {
        let p = p.trim();
        if p.len() == 8 && p.bytes().all(|b| b.is_ascii_digit()) {
            format!("{}-{}", &p[..5], &p[5..])
        } else {
            p.to_owned()
        }
    });
    if contact.legal_entity {
        contact.cpf = None;
    } else {
        contact.cnpj = None;
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

fn validate(contact: &Contact, registered: NaiveDate, errors: &mut Vec<String>) {
    let required = |key: &str, value: &Option<String>, errors: &mut Vec<String>| -> bool {
        if value.is_none() {
            errors.push(format!("{} não pode ficar em branco", label(key)));
        }
        value.is_some()
    };
    let size = |key: &str, value: &Option<String>, min: usize, max: usize, errors: &mut Vec<String>| {
        if let Some(text) = value {
            if chars(text) > max {
                errors.push(format!("{} é muito longo (máximo: {max} caracteres)", label(key)));
            } else if chars(text) < min {
                errors.push(format!("{} é muito curto (mínimo: {min} caracteres)", label(key)));
            }
        }
    };

    if !CONTACT_TYPES.contains(&contact.contact_type.as_str()) {
        errors.push("Tipo de contato não está incluído na lista (customer, supplier)".to_owned());
    }
    if contact.legal_entity {
        if required("cnpj", &contact.cnpj, errors) && Cnpj::parse(contact.cnpj.as_deref().unwrap_or_default()).is_none()
        {
            errors.push("CNPJ não é válido".to_owned());
        }
        required("company_name", &contact.company_name, errors);
    } else {
        if required("cpf", &contact.cpf, errors) && Cpf::parse(contact.cpf.as_deref().unwrap_or_default()).is_none() {
            errors.push("CPF não é válido".to_owned());
        }
        if required("full_name", &contact.full_name, errors)
            && !is_full_name(contact.full_name.as_deref().unwrap_or_default())
        {
            errors.push(MSG_FULL_NAME_PATTERN.to_owned());
        }
        if let Some(birth) = contact.birth_date {
            if age_on(birth, registered) < 18 {
                errors.push(MSG_UNDERAGE.to_owned());
            }
        }
    }
    for key in ["full_name", "company_name", "trademark"] {
        let value = match key {
            "full_name" => &contact.full_name,
            "company_name" => &contact.company_name,
            _ => &contact.trademark,
        };
        size(key, value, 0, 255, errors);
    }
    size("code", &contact.code, 0, 20, errors);
    size("observation", &contact.observation, 0, OBSERVATION_MAX_CHARS, errors);
    if let Some(email) = &contact.email {
        if chars(email) > 160 {
            errors.push("E-mail é muito longo (máximo: 160 caracteres)".to_owned());
        } else if !is_email(email) {
            errors.push("E-mail não é válido".to_owned());
        }
    }
    for (area_key, area, number_key, number) in [
        ("business_phone_area", &contact.business_phone_area, "business_phone_number", &contact.business_phone_number),
        ("cell_phone_area", &contact.cell_phone_area, "cell_phone_number", &contact.cell_phone_number),
    ] {
        if area.as_deref().is_some_and(|a| a.len() != 2 || !a.bytes().all(|b| b.is_ascii_digit())) {
            errors.push(format!("{} deve ter 2 dígitos", label(area_key)));
        }
        if number.as_deref().is_some_and(|n| !(8..=9).contains(&n.len()) || !n.bytes().all(|b| b.is_ascii_digit())) {
            errors.push(format!("{} deve ter 8 ou 9 dígitos", label(number_key)));
        }
    }

    // A complete address (§2.3 rule 3).
    if required("address_postal_code", &contact.address_postal_code, errors)
        && !is_postal_code(contact.address_postal_code.as_deref().unwrap_or_default())
    {
        errors.push("CEP não é válido (formato 00000-000)".to_owned());
    }
    for (key, value, min) in [
        ("address_street", &contact.address_street, 5),
        ("address_number", &contact.address_number, 1),
        ("address_district", &contact.address_district, 3),
        ("address_city", &contact.address_city, 2),
    ] {
        if required(key, value, errors) {
            size(key, value, min, if key == "address_number" { 10 } else { 255 }, errors);
        }
    }
    size("address_complement", &contact.address_complement, 0, 255, errors);
    if required("address_state", &contact.address_state, errors)
        && !STATES.contains(&contact.address_state.as_deref().unwrap_or_default())
    {
        errors.push("Estado (UF) não é válido".to_owned());
    }
    if contact.tag_ids.len() > MAX_TAGS {
        errors.push(format!("Etiquetas: no máximo {MAX_TAGS} por contato"));
    }
}

/// Whole years from `birth` to `on` (someone born on 29 February turns a year older on 1 March in
/// common years).
pub fn age_on(birth: NaiveDate, on: NaiveDate) -> i32 {
    let mut age = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        age -= 1;
    }
    age
}

/// A given name plus a surname: two or more words of letters (accents included), apostrophes and
/// hyphens inside words, lowercase particles between them, and single-letter initials with a
/// period in the middle ("João P. Silva").
pub fn is_full_name(name: &str) -> bool {
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
pub fn is_email(email: &str) -> bool {
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

    fn apply(body: serde_json::Value) -> ApiResult<Contact> {
        let base = Contact { contact_type: "customer".into(), active: true, ..Contact::default() };
        ContactChanges(body.as_object().unwrap().clone()).applied_to(&base, date("2026-11-22"))
    }

    fn errors(body: serde_json::Value) -> Vec<String> {
        match apply(body) {
            Err(ApiError::Validation(errors)) => errors,
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn an_individual_is_normalized() {
        let c = apply(individual()).unwrap();
        assert_eq!(c.full_name.as_deref(), Some("Maria da Silva"));
        assert_eq!(c.cpf.as_deref(), Some("52998224725"));
        assert_eq!(c.email.as_deref(), Some("maria.silva@example.com"));
        assert_eq!(c.address_state.as_deref(), Some("SP"));
        assert_eq!(c.address_street.as_deref(), Some("Avenida Paulista"));
        assert_eq!(c.address_postal_code.as_deref(), Some("01310-100"));
        assert_eq!(c.cell_phone_number.as_deref(), Some("987654321"));
        assert_eq!((c.description(), c.document()), (Some("Maria da Silva"), Some("52998224725")));
    }

    #[test]
    fn a_company_with_an_alphanumeric_cnpj() {
        let mut body = individual();
        body["legal_entity"] = json!(true);
        body["company_name"] = json!("Exemplo  Comércio Ltda");
        body["cnpj"] = json!("12.abc.345/01de-35");
        body["full_name"] = json!(null);
        let c = apply(body).unwrap();
        assert_eq!(c.cnpj.as_deref(), Some("12ABC34501DE35"));
        assert_eq!(c.cpf, None);
        assert_eq!((c.description(), c.document()), (Some("Exemplo Comércio Ltda"), Some("12ABC34501DE35")));
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
        assert_eq!(tag_ids(&json!([""])), Vec::<i64>::new());
        assert_eq!(tag_ids(&json!(null)), Vec::<i64>::new());
        assert_eq!(tag_ids(&json!({"0": "7", "1": "8"})), vec![7, 8]);
    }
}
