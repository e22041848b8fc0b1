//! What a settlement request may say: its `reference` (checked as a credit's) and its `cutoff_at`
//! (a date no later than today), in a `POST` body or the preview's query.

use chrono::NaiveDate;
use serde_json::Value;

use crate::http::Fields;
use crate::pos::credits::check_reference;
use crate::refusal::{Code, Problem, Refusal};
use crate::values::calendar::parse_date;
use crate::values::today;

/// The cutoff of a request: a date no later than today. `absent` is the code of a missing one:
/// `blank` in a body, `required` in the preview's query.
pub fn parse_cutoff(text: Option<&str>, absent: Code) -> Result<NaiveDate, Refusal> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Err(Refusal::invalid(Problem::at(CUTOFF, absent, "cutoff_at é obrigatório (AAAA-MM-DD)")));
    };
    let cutoff = parse_date(text)
        .ok_or_else(|| Refusal::invalid(Problem::invalid(CUTOFF, "cutoff_at inválido (use AAAA-MM-DD)")))?;
    if cutoff > today() {
        return Err(Refusal::invalid(Problem::out_of_range(CUTOFF, "cutoff_at não pode ser uma data futura")));
    }
    Ok(cutoff)
}

const CUTOFF: &str = "cutoff_at";

/// What a `POST` sends: `reference` and `cutoff_at`.
pub fn parse_request(fields: Fields<'_>) -> Result<(String, NaiveDate), Refusal> {
    let mut errors = Vec::new();
    let reference = match fields.raw("reference") {
        Some(Value::String(text)) => check_reference(Some(text), &mut errors),
        Some(Value::Number(n)) => check_reference(Some(&n.to_string()), &mut errors),
        _ => check_reference(None, &mut errors),
    };
    let cutoff = match fields.raw("cutoff_at") {
        Some(Value::String(text)) => parse_cutoff(Some(text), Code::Blank),
        _ => parse_cutoff(None, Code::Blank),
    };
    let cutoff = match cutoff {
        Ok(cutoff) => Some(cutoff),
        Err(Refusal::Invalid(more)) => {
            errors.extend(more);
            None
        }
        Err(other) => return Err(other),
    };
    match cutoff {
        Some(cutoff) if errors.is_empty() => Ok((reference, cutoff)),
        _ => Err(Refusal::Invalid(errors)),
    }
}
