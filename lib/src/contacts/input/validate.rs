//! A normalized contact draft validated as a whole, one group of fields after another in the order
//! their problems are reported: the contact type, the person or company, its own texts, the e-mail
//! and phones, the address, the tags.

use chrono::NaiveDate;

use super::draft::Draft;
use super::MAX_TAGS;
use crate::refusal::{Code, Problem};
use crate::values::ContactType;

/// The spec gives `observation` no bound; 10,000 characters (at most 40 KB) keep a contact far
/// under DynamoDB's 400 KB item limit.
const OBSERVATION_MAX_CHARS: usize = 10_000;

impl Draft {
    pub(super) fn validate(&self, registered: NaiveDate, errors: &mut Vec<Problem>) {
        if ContactType::parse(&self.contact_type).is_none() {
            let message = "Tipo de contato não está incluído na lista (customer, supplier)";
            let code = if self.contact_type.is_empty() { Code::Blank } else { Code::Invalid };
            errors.push(Problem::at("contact_type", code, message));
        }
        self.check_person_or_company(registered, errors);
        self.size("code", 0, 20, errors);
        self.size("observation", 0, OBSERVATION_MAX_CHARS, errors);
        self.check_email_and_phones(errors);
        self.check_address(errors);
        if self.tag_ids.len() > MAX_TAGS {
            errors.push(Problem::too_long("tag_ids", format!("Etiquetas: no máximo {MAX_TAGS} por contato")));
        }
    }
}
