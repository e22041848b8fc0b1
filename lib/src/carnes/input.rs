//! A carnê as a body sends it: a billing's fields for the terms (`contact_id`, `bank_rule_id`,
//! penalty, interest, instructions, category…; `due_date` is the first instalment's), and in place
//! of `billing_items`: `description` (what the booklet sells, up to 90 characters: each
//! instalment's item reads `<description> (k/N)`), `installments` (2 to 24) and the amount, either
//! `installment_amount` (each instalment's) or `total_amount` (the booklet's: split in whole cents,
//! the cents left over on the first instalment). Each instalment is at least 5.00, as a billing.

use chrono::Datelike as _;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};

use crate::billings::input::Draft;
use crate::billings::service::MOST_INSTALLMENTS;
use crate::http::fields::{Fields, Sent};
use crate::refusal::Problem;
use crate::values::Money;

/// The longest `description` (the instalment's item adds ` (24/24)` within its 100 characters).
pub const DESCRIPTION_MAX_CHARS: usize = 90;

/// A carnê as parsed: its terms, what it sells and each instalment's amount.
#[derive(Clone, Debug)]
pub struct Carne {
    pub draft: Draft,
    pub description: String,
    pub shares: Vec<Money>,
}

/// The smallest instalment (§2.1: a billing's minimum).
fn smallest() -> Money {
    Money::new(Decimal::new(500, 2))
}

/// Parses the body's `carne` object; every problem is told at once, each naming its field.
pub fn parse(object: &Map<String, Value>) -> Result<Carne, Vec<Problem>> {
    let fields = Fields::new(object);
    let mut errors = Vec::new();
    if object.contains_key("billing_items") {
        let message = "Um carnê não leva itens (billing_items): envie description e installment_amount ou total_amount";
        errors.push(Problem::invalid("billing_items", message));
    }
    let installments = match fields.integer("installments") {
        Sent::Given(n) if (2..=MOST_INSTALLMENTS as i64).contains(&n) => n as usize,
        Sent::Omitted | Sent::Empty => {
            errors.push(Problem::blank("installments", "Parcelas (installments) não pode ficar em branco"));
            2
        }
        _ => {
            let message = format!("Parcelas (installments) deve ser um número de 2 a {MOST_INSTALLMENTS}");
            errors.push(Problem::out_of_range("installments", message));
            2
        }
    };
    let description = match fields.text("description", "Descrição (description)", &mut errors) {
        Some(Some(text)) if text.trim().chars().count() > DESCRIPTION_MAX_CHARS => {
            let message = format!("Descrição (description) pode ter no máximo {DESCRIPTION_MAX_CHARS} caracteres");
            errors.push(Problem::too_long("description", message));
            None
        }
        Some(Some(text)) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        Some(_) | None if !errors.iter().any(|p| p.field.as_deref() == Some("description")) => {
            errors.push(Problem::blank("description", "Descrição (description) não pode ficar em branco"));
            None
        }
        _ => None,
    };
    let (key, amount) = amount_of(fields, &mut errors);
    let shares = amount.map(|a| shares_of(a, key == "total_amount", installments));
    if let Some(shares) = &shares {
        if shares.iter().any(|s| *s < smallest()) {
            errors.push(Problem::too_small(key, "Cada parcela deve ser de ao menos 5.00"));
        }
    }
    // The terms, as a billing of one item worth the whole booklet (its problems with that item
    // are the amount's and the description's).
    let total: Money = shares.as_ref().map_or(smallest(), |s| s.iter().copied().sum());
    let mut terms = object.clone();
    let item_description = description.clone().unwrap_or_else(|| "Carnê".to_owned());
    terms.insert("billing_items".into(), json!([{"description": item_description, "quantity": 1, "amount": total}]));
    let draft = Draft::parse(Fields::new(&terms)).map_err(|problems| {
        let renamed = problems.into_iter().map(|mut problem| {
            if problem.field.as_deref().is_some_and(|f| f.starts_with("billing_items") || f == "amount") {
                problem.field = Some(key.to_owned());
            }
            problem
        });
        renamed.collect::<Vec<_>>()
    });
    // The last instalment's due date must be a date, as the first's (a weekend moved to Monday).
    if let Ok(draft) = &draft {
        let last = draft.due_date.checked_add_months(chrono::Months::new(installments as u32 - 1));
        if last.is_none_or(|last| last.year() >= 9999) {
            errors.push(Problem::out_of_range("due_date", "A última parcela venceria depois do ano 9998"));
        }
    }
    match (draft, description, shares) {
        (Ok(draft), Some(description), Some(shares)) if errors.is_empty() => Ok(Carne { draft, description, shares }),
        (draft, _, _) => {
            errors.extend(draft.err().unwrap_or_default());
            Err(errors)
        }
    }
}

/// The amount sent and its key: `installment_amount` or `total_amount`, exactly one, positive,
/// in cents.
fn amount_of(fields: Fields<'_>, errors: &mut Vec<Problem>) -> (&'static str, Option<Money>) {
    let read = |key: &'static str, errors: &mut Vec<Problem>| match fields.decimal(key) {
        Sent::Omitted | Sent::Empty => None,
        Sent::Given(amount) if amount > Decimal::ZERO && amount.normalize().scale() <= 2 => {
            if amount > Decimal::new(9_999_999_999, 2) {
                errors.push(Problem::too_large(key, format!("Valor ({key}) pode ser no máximo 99999999.99")));
                return None;
            }
            Some(Money::new(amount))
        }
        _ => {
            errors
                .push(Problem::invalid(key, format!("Valor ({key}) deve ser positivo e ter no máximo dois decimais")));
            None
        }
    };
    let (each, total) = (read("installment_amount", errors), read("total_amount", errors));
    let both = fields.contains("installment_amount") && fields.contains("total_amount");
    match (each, total) {
        _ if both => {
            let message = "Envie o valor da parcela (installment_amount) ou o total (total_amount), não ambos";
            errors.push(Problem::invalid("total_amount", message));
            ("total_amount", None)
        }
        (Some(each), _) => ("installment_amount", Some(each)),
        (_, Some(total)) => ("total_amount", Some(total)),
        _ if fields.contains("installment_amount") => ("installment_amount", None),
        _ if fields.contains("total_amount") => ("total_amount", None),
        _ => {
            let message = "Envie o valor da parcela (installment_amount) ou o total (total_amount)";
            errors.push(Problem::blank("installment_amount", message));
            ("installment_amount", None)
        }
    }
}

/// Each instalment's amount: `amount` each, or `amount` split into `n` in whole cents with the
/// cents left over on the first.
fn shares_of(amount: Money, is_total: bool, n: usize) -> Vec<Money> {
    if !is_total {
        return vec![amount; n];
    }
    let cents = (amount.get() * Decimal::ONE_HUNDRED).trunc();
    let each = (cents / Decimal::from(n as i64)).trunc();
    let first = cents - each * Decimal::from(n as i64 - 1);
    let share = |c: Decimal| Money::new(c / Decimal::ONE_HUNDRED).cents();
    std::iter::once(share(first)).chain(std::iter::repeat_n(share(each), n - 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn money(text: &str) -> Money {
        Money::parse(text).unwrap()
    }

    fn body(extra: Value) -> Map<String, Value> {
        let mut body = json!({"contact_id": 1, "bank_rule_id": 1, "due_date": "2027-01-11", "description": "Sofá",
                              "installments": 3});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        body.as_object().unwrap().clone()
    }

    fn fields_of(problems: Vec<Problem>) -> Vec<String> {
        problems.into_iter().filter_map(|p| p.field).collect()
    }

    #[test]
    fn a_total_is_split_in_cents_with_the_rest_on_the_first() {
        assert_eq!(shares_of(money("100.00"), true, 3), [money("33.34"), money("33.33"), money("33.33")]);
        assert_eq!(shares_of(money("60"), false, 2), [money("60.00"), money("60.00")]);
        let carne = parse(&body(json!({"total_amount": "100.00"}))).unwrap();
        assert_eq!(carne.shares.iter().copied().sum::<Money>(), money("100.00"));
        assert_eq!(carne.draft.amount, money("100.00"));
        assert_eq!(carne.description, "Sofá");
    }

    #[test]
    fn each_problem_names_its_field() {
        let refused =
            parse(&body(json!({"installments": 25, "description": "", "installment_amount": "1.001"}))).unwrap_err();
        let fields = fields_of(refused);
        for field in ["installments", "description", "installment_amount"] {
            assert!(fields.contains(&field.to_owned()), "{field} in {fields:?}");
        }
        let both = parse(&body(json!({"installment_amount": "10", "total_amount": "30"}))).unwrap_err();
        assert_eq!(fields_of(both), ["total_amount"]);
        let huge = parse(&body(json!({"installment_amount": "1e30"}))).unwrap_err();
        assert_eq!(fields_of(huge), ["installment_amount"]);
        let beyond = parse(&body(json!({"installment_amount": "99999999.99"}))).unwrap_err();
        assert_eq!(fields_of(beyond), ["installment_amount"], "three of them pass a billet's largest");
        let late = parse(&body(json!({"installment_amount": "10", "due_date": "9998-12-01"}))).unwrap_err();
        assert_eq!(fields_of(late), ["due_date"]);
        let small = parse(&body(json!({"total_amount": "14.99"}))).unwrap_err();
        assert_eq!(fields_of(small), ["total_amount"]);
        let items = parse(&body(json!({"installment_amount": "10", "billing_items": []}))).unwrap_err();
        assert_eq!(fields_of(items), ["billing_items"]);
        let none = parse(&body(json!({}))).unwrap_err();
        assert_eq!(fields_of(none), ["installment_amount"]);
    }
}
