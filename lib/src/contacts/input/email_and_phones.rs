//! How a contact is reached: its e-mail address and its business and cell phones (a 2-digit area
//! code and an 8- or 9-digit number), each checked when present.

use super::draft::{chars, Draft};
use super::label;
use crate::refusal::Problem;

impl Draft {
    pub(super) fn check_email_and_phones(&self, errors: &mut Vec<Problem>) {
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
    }
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
    use super::super::tests::{errors, individual};
    use super::*;
    use serde_json::json;

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
}
