//! A schedule's recurrence as a body sends it, beside the billing fields of its terms:
//! `period` (`monthly`, `weekly` or `yearly`; default `monthly`), `every` (1 to 12 months, 52
//! weeks or 5 years; default 1), `due_day` (1 to 31: required for monthly and yearly, and a day
//! past a month's end falls on its last day; weekly cycles fall on the start's weekday),
//! `start_date` (default today; never before today), an end — `end_date` (no cycle due after it)
//! or `cycles` (how many cycles from the start, 1 to 600), not both; none, never — and `lead_days`
//! (days before each due date a cycle is issued, 0 to 60; default 10). An edit sends what changes:
//! the others keep their value, `null` removes an end; `start_date` and the period cannot change.

use chrono::NaiveDate;

use crate::http::fields::{Fields, Sent};
use crate::refusal::Problem;
use crate::values::recurrence::{Recurrence, DEFAULT_LEAD_DAYS, LONGEST_LEAD_DAYS};
use crate::values::schedule_calendar::{Calendar, End, Period};

/// The most cycles a schedule's `cycles` may ask for (50 years of monthly cycles).
pub const MOST_CYCLES: i64 = 600;

/// The calendar and lead a create sends, made `today`.
pub fn new_recurrence(fields: Fields<'_>, today: NaiveDate) -> Result<Recurrence, Vec<Problem>> {
    let mut errors = Vec::new();
    let start = match fields.date("start_date") {
        Sent::Omitted | Sent::Empty => today,
        Sent::Given(day) if day >= today => day,
        Sent::Given(_) => {
            errors.push(Problem::out_of_range("start_date", "Início (start_date) não pode ser anterior a hoje"));
            today
        }
        Sent::Invalid => {
            errors.push(Problem::invalid("start_date", "Início (start_date) não é uma data AAAA-MM-DD"));
            today
        }
    };
    let blank = Calendar { period: Period::Monthly(1), due_day: 0, start, end: End::Never };
    let (calendar, lead) = calendar_of(fields, blank, DEFAULT_LEAD_DAYS, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let recurrence = Recurrence::new(calendar, lead, today);
    match recurrence.next() {
        Some(_) => Ok(recurrence),
        None => Err(vec![Problem::out_of_range("end_date", "O fim (end_date) vem antes do primeiro vencimento")]),
    }
}

/// The calendar and lead an edit sends over `current`.
pub fn edited(fields: Fields<'_>, current: &Recurrence) -> Result<(Calendar, u32), Vec<Problem>> {
    let mut errors = Vec::new();
    if fields.contains("start_date") {
        errors.push(Problem::invalid("start_date", "O início (start_date) de uma recorrência não muda"));
    }
    let (calendar, lead) = calendar_of(fields, current.calendar, current.lead_days, &mut errors);
    // Cycles are counted from the start in the schedule's period: another period would renumber
    // the cycles billed already.
    if errors.is_empty() && calendar.period != current.calendar.period {
        let message = "A periodicidade (period, every) de uma recorrência não muda: crie outra";
        errors.push(Problem::invalid(if fields.contains("period") { "period" } else { "every" }, message));
    }
    match errors.is_empty() {
        true => Ok((calendar, lead)),
        false => Err(errors),
    }
}

/// `base` with what the body sends over it; problems go to `errors`.
fn calendar_of(fields: Fields<'_>, base: Calendar, lead: u32, errors: &mut Vec<Problem>) -> (Calendar, u32) {
    let every = match number(fields, "every", "Intervalo (every)", 1, 60, errors) {
        Some(n) => n,
        None => period_every(base.period),
    };
    let period = match fields.text("period", "Periodicidade (period)", errors) {
        None => with_every(base.period, every),
        Some(None) => with_every(Period::Monthly(1), every),
        Some(Some(word)) => match word.as_str() {
            "monthly" => Period::Monthly(every),
            "weekly" => Period::Weekly(every),
            "yearly" => Period::Yearly(every),
            _ => {
                errors.push(Problem::invalid("period", "Periodicidade (period) deve ser monthly, weekly ou yearly"));
                base.period
            }
        },
    };
    let due_day = match (number(fields, "due_day", "Dia de vencimento (due_day)", 1, 31, errors), period) {
        (Some(day), _) => day,
        (None, Period::Weekly(_)) => base.start.format("%d").to_string().parse().unwrap_or(1),
        (None, _) if base.due_day == 0 && !fields.contains("due_day") => {
            errors.push(Problem::blank("due_day", "Dia de vencimento (due_day) não pode ficar em branco"));
            1
        }
        (None, _) => base.due_day.max(1),
    };
    let end = end_of(fields, base.end, errors);
    let lead = number(fields, "lead_days", "Antecedência (lead_days)", 0, LONGEST_LEAD_DAYS, errors).unwrap_or(lead);
    let calendar = Calendar { period, due_day, start: base.start, end };
    for (field, message) in calendar.refused() {
        let field = match field {
            "period" => "every",
            "end" if matches!(end, End::After(_)) => "cycles",
            "end" => "end_date",
            other => other,
        };
        errors.push(Problem::out_of_range(field, message));
    }
    (calendar, lead)
}

/// The end a body sends: `end_date` or `cycles` (not both), `null` for none.
fn end_of(fields: Fields<'_>, base: End, errors: &mut Vec<Problem>) -> End {
    let date = fields.date("end_date");
    let cycles = fields.integer("cycles");
    match (date, cycles) {
        (Sent::Given(_), Sent::Given(_)) => {
            errors.push(Problem::invalid("cycles", "Envie o fim (end_date) ou o número de ciclos (cycles), não ambos"));
            base
        }
        (Sent::Invalid, _) => {
            errors.push(Problem::invalid("end_date", "Fim (end_date) não é uma data AAAA-MM-DD"));
            base
        }
        (_, Sent::Invalid) => {
            errors.push(Problem::invalid("cycles", "Ciclos (cycles) deve ser um número inteiro"));
            base
        }
        (Sent::Given(day), _) => End::On(day),
        (_, Sent::Given(n)) if (1..=MOST_CYCLES).contains(&n) => End::After(n as u32),
        (_, Sent::Given(_)) => {
            errors.push(Problem::out_of_range("cycles", format!("Ciclos (cycles) deve ser de 1 a {MOST_CYCLES}")));
            base
        }
        (Sent::Empty, _) | (_, Sent::Empty) => End::Never,
        (Sent::Omitted, Sent::Omitted) => base,
    }
}

/// A whole number `key` from `low` to `high`, when sent; problems go to `errors`.
fn number(fields: Fields<'_>, key: &str, label: &str, low: u32, high: u32, errors: &mut Vec<Problem>) -> Option<u32> {
    match fields.integer(key) {
        Sent::Omitted => None,
        Sent::Given(n) if (i64::from(low)..=i64::from(high)).contains(&n) => Some(n as u32),
        Sent::Given(_) => {
            errors.push(Problem::out_of_range(key, format!("{label} deve ser de {low} a {high}")));
            None
        }
        Sent::Empty | Sent::Invalid => {
            errors.push(Problem::invalid(key, format!("{label} deve ser um número inteiro")));
            None
        }
    }
}

fn period_every(period: Period) -> u32 {
    match period {
        Period::Monthly(n) | Period::Weekly(n) | Period::Yearly(n) => n,
    }
}

fn with_every(period: Period, every: u32) -> Period {
    match period {
        Period::Monthly(_) => Period::Monthly(every),
        Period::Weekly(_) => Period::Weekly(every),
        Period::Yearly(_) => Period::Yearly(every),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn parse(body: Value) -> Result<Recurrence, Vec<Problem>> {
        new_recurrence(Fields::new(body.as_object().unwrap()), day("2026-12-01"))
    }

    fn fields_of(problems: Vec<Problem>) -> Vec<String> {
        problems.into_iter().filter_map(|p| p.field).collect()
    }

    #[test]
    fn a_monthly_schedule_with_its_defaults() {
        let recurrence = parse(json!({"due_day": 10})).unwrap();
        assert_eq!(recurrence.calendar.period, Period::Monthly(1));
        assert_eq!((recurrence.calendar.start, recurrence.calendar.end), (day("2026-12-01"), End::Never));
        assert_eq!(recurrence.lead_days, DEFAULT_LEAD_DAYS);
        assert_eq!(recurrence.next().unwrap().due, day("2026-12-10"));
    }

    #[test]
    fn each_problem_names_its_field() {
        let refused = parse(json!({"period": "daily", "every": 0, "start_date": "2026-11-01", "lead_days": 90,
                                   "end_date": "2027-01-01", "cycles": 3}))
        .unwrap_err();
        let fields = fields_of(refused);
        for field in ["period", "every", "start_date", "lead_days", "cycles", "due_day"] {
            assert!(fields.contains(&field.to_owned()), "{field} in {fields:?}");
        }
        assert_eq!(fields_of(parse(json!({"due_day": 32})).unwrap_err()), ["due_day"]);
        assert_eq!(fields_of(parse(json!({"due_day": 5, "cycles": 0})).unwrap_err()), ["cycles"]);
        assert_eq!(fields_of(parse(json!({"due_day": 5, "end_date": "2026-12-02"})).unwrap_err()), ["end_date"]);
    }

    #[test]
    fn an_edit_keeps_what_it_does_not_send() {
        let current = parse(json!({"due_day": 10, "cycles": 12, "lead_days": 5})).unwrap();
        let (calendar, lead) = edited(Fields::new(json!({"due_day": 20}).as_object().unwrap()), &current).unwrap();
        assert_eq!((calendar.due_day, calendar.end, lead), (20, End::After(12), 5));
        let (calendar, _) = edited(Fields::new(json!({"cycles": null}).as_object().unwrap()), &current).unwrap();
        assert_eq!(calendar.end, End::Never);
        let refused = edited(Fields::new(json!({"start_date": "2027-01-01"}).as_object().unwrap()), &current);
        assert_eq!(fields_of(refused.unwrap_err()), ["start_date"]);
        let refused = edited(Fields::new(json!({"period": "weekly"}).as_object().unwrap()), &current);
        assert_eq!(fields_of(refused.unwrap_err()), ["period"]);
        let refused = edited(Fields::new(json!({"every": 2}).as_object().unwrap()), &current);
        assert_eq!(fields_of(refused.unwrap_err()), ["every"]);
        assert!(edited(Fields::new(json!({"period": "monthly", "every": 1}).as_object().unwrap()), &current).is_ok());
    }
}
