//! The due date and the terms of a billing's body: its penalty, its interest and the period it
//! runs by, and the bank's instruction (protest or devolution after some days).

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::sent::{number_code, text};
use crate::http::{Fields, Sent};
use crate::refusal::{Code, Problem};
use crate::values::terms::{Interest, Penalty};
use crate::values::{InstructionType, InterestPeriod, ValueKind};

const MAX_RATE: &str = "999999999";

/// A blank `due_date`.
pub fn due_date_blank() -> Problem {
    Problem::blank("due_date", "Vencimento (due_date) não pode ficar em branco")
}

/// A sent `due_date` (moved off a weekend), or why it is refused: not a date (`invalid`) or
/// before the first a billet can carry (`out_of_range`).
pub fn due_date(text: &str) -> Result<NaiveDate, Problem> {
    crate::values::calendar::parse_due_date(text).map_err(|message| {
        let code = match crate::values::calendar::parse_date(text) {
            Some(_) => Code::OutOfRange,
            None => Code::Invalid,
        };
        Problem::at("due_date", code, message)
    })
}

/// The due date and terms as sent; `due_date` is none only with a problem saying why.
pub(super) struct DueTerms {
    pub(super) due_date: Option<NaiveDate>,
    pub(super) penalty: Option<Penalty>,
    pub(super) interest: Option<Interest>,
    pub(super) instruction: Option<(InstructionType, i64)>,
}

impl DueTerms {
    /// The problems come in this order: the due date, the penalty's and the interest's values, their
    /// kinds, the interest period, the instruction's type and days.
    pub(super) fn parse(fields: Fields<'_>, errors: &mut Vec<Problem>) -> DueTerms {
        let due_date = sent_due_date(fields, errors);
        let penalty_value = rate(fields, "penalty", errors);
        let interest_value = rate(fields, "interest", errors);
        let penalty_kind = kind_of(fields, "penalty_type", errors);
        let interest_kind = kind_of(fields, "interest_type", errors);
        let period = interest_period(fields, errors);
        let instruction_type = instruction_type(fields, errors);
        let instruction_days = instruction_days(fields, errors);
        DueTerms {
            due_date,
            penalty: penalty_value.zip(penalty_kind).map(|(value, kind)| Penalty { kind, value }),
            interest: interest_value.zip(interest_kind).zip(period).map(|((value, kind), period)| Interest {
                kind,
                period,
                value,
            }),
            instruction: instruction_type.map(|t| (t, instruction_days)),
        }
    }
}

/// `due_date`, required.
fn sent_due_date(fields: Fields<'_>, errors: &mut Vec<Problem>) -> Option<NaiveDate> {
    let before = errors.len();
    match text(fields, "due_date", errors) {
        // Refused by the reader already (not text): one problem, not a second "blank".
        None if errors.len() > before => None,
        None => {
            errors.push(due_date_blank());
            None
        }
        Some(d) => match due_date(&d) {
            Ok(date) => Some(date),
            Err(problem) => {
                errors.push(problem);
                None
            }
        },
    }
}

/// A penalty's or interest's value: from 0 to [`MAX_RATE`], none when not sent.
fn rate(fields: Fields<'_>, key: &str, errors: &mut Vec<Problem>) -> Option<Decimal> {
    let max = MAX_RATE.parse::<Decimal>().expect("constant");
    match fields.decimal(key) {
        Sent::Omitted | Sent::Empty => None,
        Sent::Given(v) if v >= Decimal::ZERO && v <= max => Some(v),
        sent => {
            let message = format!("{key} deve ser um número de 0 a 999999999");
            errors.push(Problem::at(key, number_code(&sent, Code::OutOfRange), message));
            None
        }
    }
}

/// A penalty's or interest's kind: a percentage unless sent otherwise.
fn kind_of(fields: Fields<'_>, key: &str, errors: &mut Vec<Problem>) -> Option<ValueKind> {
    match text(fields, key, errors) {
        None => Some(ValueKind::Percentage),
        Some(k) => ValueKind::parse(&k).or_else(|| {
            let message = format!("{key} não está incluído na lista (percentage, fixed_amount)");
            errors.push(Problem::invalid(key, message));
            None
        }),
    }
}

/// `interest_period`: monthly unless sent otherwise.
fn interest_period(fields: Fields<'_>, errors: &mut Vec<Problem>) -> Option<InterestPeriod> {
    match text(fields, "interest_period", errors).as_deref().map(InterestPeriod::parse) {
        None => Some(InterestPeriod::Monthly),
        Some(Some(period)) => Some(period),
        Some(None) => {
            let message = "interest_period não está incluído na lista (monthly, daily)";
            errors.push(Problem::invalid("interest_period", message));
            None
        }
    }
}

/// `instruction_type`: none unless sent.
fn instruction_type(fields: Fields<'_>, errors: &mut Vec<Problem>) -> Option<InstructionType> {
    match text(fields, "instruction_type", errors).as_deref().map(InstructionType::parse) {
        None => None,
        Some(Some(kind)) => Some(kind),
        Some(None) => {
            let message = "instruction_type não está incluído na lista (protest, devolution)";
            errors.push(Problem::invalid("instruction_type", message));
            None
        }
    }
}

/// `instruction_days`: 0 to 99, 0 unless sent.
fn instruction_days(fields: Fields<'_>, errors: &mut Vec<Problem>) -> i64 {
    match fields.integer("instruction_days") {
        Sent::Omitted | Sent::Empty => 0,
        Sent::Given(d) if (0..=99).contains(&d) => d,
        sent => {
            let code = number_code(&sent, Code::OutOfRange);
            errors.push(Problem::at("instruction_days", code, "instruction_days deve ser um inteiro de 0 a 99"));
            0
        }
    }
}
