//! Who a contact is (§2.3): a person, with a valid CPF, a full name and at least 18 years at
//! registration, or a company, with a valid CNPJ and a company name; and the bounds of its names.

use chrono::{Datelike, NaiveDate};

use super::draft::Draft;
use crate::refusal::Problem;
use crate::values::{Cnpj, Cpf};

const MSG_FULL_NAME_PATTERN: &str = "Nome completo deve conter nome e sobrenome (somente letras)";
const MSG_UNDERAGE: &str = "Data de nascimento: o contato deve ter ao menos 18 anos na data do cadastro";

/// Lowercase connectors that may stand between the given name and the surname.
const PARTICLES: [&str; 12] = ["da", "das", "de", "del", "della", "di", "do", "dos", "du", "e", "van", "von"];

impl Draft {
    /// A company's CNPJ and company name, or a person's CPF, full name and age; then every name's
    /// size, whichever the entity.
    pub(super) fn check_person_or_company(&self, registered: NaiveDate, errors: &mut Vec<Problem>) {
        if self.legal_entity {
            if self.required("cnpj", errors) && Cnpj::parse(self.text("cnpj").unwrap_or_default()).is_none() {
                errors.push(Problem::invalid("cnpj", "CNPJ não é válido"));
            }
            self.required("company_name", errors);
        } else {
            if self.required("cpf", errors) && Cpf::parse(self.text("cpf").unwrap_or_default()).is_none() {
                errors.push(Problem::invalid("cpf", "CPF não é válido"));
            }
            if self.required("full_name", errors) && !is_full_name(self.text("full_name").unwrap_or_default()) {
                errors.push(Problem::invalid("full_name", MSG_FULL_NAME_PATTERN));
            }
            if let Some(birth) = self.birth_date {
                if age_on(birth, registered) < 18 {
                    errors.push(Problem::out_of_range("birth_date", MSG_UNDERAGE));
                }
            }
        }
        for key in ["full_name", "company_name", "trademark"] {
            self.size(key, 0, 255, errors);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::tests::{apply, date, errors, individual};
    use super::*;
    use serde_json::json;

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
}
