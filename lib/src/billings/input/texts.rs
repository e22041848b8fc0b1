//! The free texts of a billing's body, each trimmed and within its bounds: `evincive` (what the
//! billet prints), `observation`, `your_code`, `reference` and `competence` (`MM/YYYY`).

use super::sent::text;
use crate::http::Fields;
use crate::refusal::{Code, Problem};

pub const REFERENCE_MAX_CHARS: usize = 255;
const EVINCIVE_FORBIDDEN: &[char] = &['@', '#', '$', '%', '^', '&', '*', '"', '{', '}', '|', '<', '>', '\\', '[', ']'];

/// The texts as sent, none when blank.
pub(super) struct Texts {
    pub(super) evincive: Option<String>,
    pub(super) observation: Option<String>,
    pub(super) your_code: Option<String>,
    pub(super) reference: Option<String>,
    pub(super) competence: Option<String>,
}

impl Texts {
    pub(super) fn parse(fields: Fields<'_>, errors: &mut Vec<Problem>) -> Texts {
        let evincive = evincive(fields, errors);
        let observation = text(fields, "observation", errors);
        if observation.as_ref().is_some_and(|o| o.chars().count() > 255) {
            errors.push(Problem::too_long("observation", "Observação é muito longa (máximo: 255 caracteres)"));
        }
        let your_code = text(fields, "your_code", errors);
        if your_code.as_ref().is_some_and(|c| c.chars().count() > 20) {
            errors.push(Problem::too_long("your_code", "your_code é muito longo (máximo: 20 caracteres)"));
        }
        let reference = text(fields, "reference", errors);
        if reference.as_ref().is_some_and(|r| r.chars().count() > REFERENCE_MAX_CHARS) {
            let message = format!("reference é muito longo (máximo: {REFERENCE_MAX_CHARS} caracteres)");
            errors.push(Problem::too_long("reference", message));
        }
        let competence = text(fields, "competence", errors);
        if competence.as_deref().is_some_and(|c| !is_competence(c)) {
            errors.push(Problem::invalid("competence", "Competência deve estar no formato MM/AAAA"));
        }
        Texts { evincive, observation, your_code, reference, competence }
    }
}

/// `evincive`: 10 to 80 characters, none of [`EVINCIVE_FORBIDDEN`].
fn evincive(fields: Fields<'_>, errors: &mut Vec<Problem>) -> Option<String> {
    let evincive = text(fields, "evincive", errors);
    if let Some(e) = &evincive {
        let n = e.chars().count();
        let code = if n < 10 { Code::TooShort } else { Code::TooLong };
        if !(10..=80).contains(&n) {
            errors.push(Problem::at("evincive", code, "evincive deve ter de 10 a 80 caracteres"));
        }
        if e.chars().any(|c| EVINCIVE_FORBIDDEN.contains(&c)) {
            let message = "evincive não pode conter os caracteres @ # $ % ^ & * \" { } | < > \\ [ ]";
            errors.push(Problem::invalid("evincive", message));
        }
    }
    evincive
}

/// `MM/YYYY` with a month from 01 to 12.
fn is_competence(text: &str) -> bool {
    let Some((month, year)) = text.split_once('/') else { return false };
    month.len() == 2
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit())
        && month.parse::<u32>().is_ok_and(|m| (1..=12).contains(&m))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{parse, valid};
    use serde_json::json;

    #[test]
    fn evincive_rules() {
        for (value, ok) in [
            ("Contrato 2026", true),
            ("curto", false),
            ("x".repeat(81).as_str(), false),
            ("Contrato #2026", false),
            ("Contrato [2026]", false),
        ] {
            let mut body = valid();
            body["evincive"] = json!(value);
            assert_eq!(parse(body).is_ok(), ok, "{value}");
        }
    }
}
