//! §2.3 normalization of a contact draft, field by field, before it is validated.

use super::draft::Draft;
use crate::values::cpf_cnpj::{normalize_cnpj, normalize_cpf};
use crate::values::text::collapse_whitespace;

impl Draft {
    /// §2.3 normalization, plus: blank text is null, phones keep only their digits, an 8-digit
    /// postal code gets its hyphen, and the other entity's document is dropped.
    pub(super) fn normalize(&mut self) {
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
