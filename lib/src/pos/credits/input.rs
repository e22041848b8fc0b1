//! What a `POST /v1/store_credits` may say (`reference`, `contact_id`, `amount`, `description`),
//! read and checked into a [`CreditDraft`]; and the check of a `reference`, which settlements share.

use super::model::{contact_not_found, DESCRIPTION_MAX_CHARS, REFERENCE_MAX_CHARS};
use crate::pos::sales::check_amount;
use crate::refusal::{Problem, Refusal};
use crate::values::{ContactId, Money};

/// What a `POST /v1/store_credits` sends.
#[derive(Clone, Debug, PartialEq)]
pub struct CreditDraft {
    pub reference: String,
    pub contact_id: ContactId,
    pub amount: Money,
    pub description: Option<String>,
}

/// Checks a reference: 1 to 100 characters, trimmed.
pub fn check_reference(reference: Option<&str>, errors: &mut Vec<Problem>) -> String {
    let reference = reference.map(str::trim).unwrap_or_default();
    if let Some(reason) = crate::values::text::unreadable(reference) {
        errors.push(Problem::invalid("reference", format!("reference {reason}")));
    } else if reference.is_empty() {
        errors.push(Problem::blank("reference", "reference é obrigatório"));
    } else if reference.chars().count() > REFERENCE_MAX_CHARS {
        let message = format!("reference é muito longo (máximo: {REFERENCE_MAX_CHARS} caracteres)");
        errors.push(Problem::too_long("reference", message));
    }
    reference.to_owned()
}

impl CreditDraft {
    /// The draft of a body's `store_credit` object: `reference`, `contact_id`, `amount` and an
    /// optional `description`.
    pub fn parse(fields: crate::http::Fields<'_>) -> Result<CreditDraft, Refusal> {
        use crate::http::fields::Sent;
        let mut errors = Vec::new();
        let reference = match fields.raw("reference") {
            Some(serde_json::Value::String(text)) => check_reference(Some(text), &mut errors),
            Some(serde_json::Value::Number(n)) => check_reference(Some(&n.to_string()), &mut errors),
            _ => check_reference(None, &mut errors),
        };
        let amount = match fields.decimal("amount") {
            Sent::Given(value) => {
                let amount = Money::new(value);
                check_amount("amount", "Valor do crédito (amount)", amount, &mut errors);
                amount
            }
            Sent::Invalid => {
                errors.push(Problem::invalid("amount", "Valor do crédito (amount) inválido"));
                Money::ZERO
            }
            Sent::Omitted | Sent::Empty => {
                errors.push(Problem::blank("amount", "Valor do crédito (amount) é obrigatório"));
                Money::ZERO
            }
        };
        let description = fields.text("description", "Descrição (description)", &mut errors).flatten();
        if description.as_ref().is_some_and(|d| d.chars().count() > DESCRIPTION_MAX_CHARS) {
            let message = format!("Descrição (description) é muito longa (máximo: {DESCRIPTION_MAX_CHARS} caracteres)");
            errors.push(Problem::too_long("description", message));
        }
        let contact_id = match fields.id::<ContactId>("contact_id") {
            Sent::Given(id) => Some(id),
            Sent::Omitted | Sent::Empty => {
                errors.push(Problem::blank("contact_id", "contact_id é obrigatório"));
                None
            }
            // An id of no contact is the coded 422 below, like a missing one.
            Sent::Invalid => None,
        };
        if !errors.is_empty() {
            return Err(Refusal::Invalid(errors));
        }
        let contact_id = contact_id.ok_or_else(contact_not_found)?;
        Ok(CreditDraft { reference, contact_id, amount, description })
    }
}
