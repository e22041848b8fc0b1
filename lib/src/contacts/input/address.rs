//! A contact's address (§2.3 rule 3): complete, with a postal code of the form `00000-000` and a
//! Brazilian state.

use super::draft::Draft;
use crate::refusal::Problem;

const STATES: [&str; 27] = [
    "AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA", "PB", "PR", "PE", "PI", "RJ",
    "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO",
];

impl Draft {
    /// A complete address (§2.3 rule 3).
    pub(super) fn check_address(&self, errors: &mut Vec<Problem>) {
        if self.required("address_postal_code", errors)
            && !is_postal_code(self.text("address_postal_code").unwrap_or_default())
        {
            errors.push(Problem::invalid("address_postal_code", "CEP não é válido (formato 00000-000)"));
        }
        for (key, min) in [("address_street", 5), ("address_number", 1), ("address_district", 3), ("address_city", 2)] {
            if self.required(key, errors) {
                self.size(key, min, if key == "address_number" { 10 } else { 255 }, errors);
            }
        }
        self.size("address_complement", 0, 255, errors);
        if self.required("address_state", errors) && !STATES.contains(&self.text("address_state").unwrap_or_default()) {
            errors.push(Problem::invalid("address_state", "Estado (UF) não é válido"));
        }
    }
}

fn is_postal_code(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() == 9 && b[5] == b'-' && b.iter().enumerate().all(|(i, c)| i == 5 || c.is_ascii_digit())
}
