//! The "Instruções" of the slip, written from the billing's terms as the payer and the bank teller
//! read them: early discounts, penalty and interest after the due date, protest or devolution.
//! The terms are read as the computed fields read them (`Billing::terms`).

use chrono::{Days, NaiveDate};
use rust_decimal::Decimal;

use super::text::{amount, date};
use crate::values::terms::{Discount, Interest, Terms};
use crate::values::{InstructionType, InterestPeriod, Money, ValueKind};

/// What the bank does after the due date (§2.1 `instruction_type`, `instruction_days`).
#[derive(Clone, Copy, Debug)]
pub struct AfterDue {
    pub kind: Option<InstructionType>,
    pub days: i64,
}

/// `2,00%` or `R$ 2,00`.
fn value(kind: ValueKind, value: Decimal) -> String {
    match kind {
        ValueKind::Percentage => format!("{}%", amount(Money::new(value))),
        ValueKind::FixedAmount => format!("R$ {}", amount(Money::new(value))),
    }
}

fn discount_line(discount: &Discount, due_date: NaiveDate) -> Option<String> {
    if discount.value <= Decimal::ZERO {
        return None;
    }
    let until = u64::try_from(discount.antecedence_days).ok().and_then(|d| due_date.checked_sub_days(Days::new(d)))?;
    Some(format!("Até {}, conceder desconto de {}.", date(until), value(discount.kind, discount.value)))
}

fn interest_text(interest: &Interest) -> String {
    let period = match interest.period {
        InterestPeriod::Monthly => "ao mês",
        InterestPeriod::Daily => "ao dia",
    };
    format!("juros de {} {period}", value(interest.kind, interest.value))
}

fn lateness_line(terms: &Terms) -> Option<String> {
    let penalty =
        terms.penalty.filter(|p| p.value > Decimal::ZERO).map(|p| format!("multa de {}", value(p.kind, p.value)));
    let interest = terms.interest.filter(|i| i.value > Decimal::ZERO).map(|i| interest_text(&i));
    if terms.cancel_penalty {
        return (penalty.is_some() || interest.is_some())
            .then(|| "Não cobrar multa nem juros após o vencimento.".to_owned());
    }
    match (penalty, interest) {
        (None, None) => None,
        (Some(one), None) | (None, Some(one)) => Some(format!("Após o vencimento, cobrar {one}.")),
        (Some(penalty), Some(interest)) => Some(format!("Após o vencimento, cobrar {penalty} e {interest}.")),
    }
}

fn after_due_line(after: AfterDue) -> Option<String> {
    let days = match after.days {
        0 => "no dia seguinte ao vencimento".to_owned(),
        1 => "1 dia após o vencimento".to_owned(),
        n => format!("{n} dias após o vencimento"),
    };
    match after.kind? {
        InstructionType::Protest => Some(format!("Protestar {days}.")),
        InstructionType::Devolution => Some(format!("Não receber a partir de {days}.")),
    }
}

/// The instruction lines, in the order a teller applies them.
pub fn lines(terms: &Terms, after: AfterDue) -> Vec<String> {
    let discounts = [terms.discount, terms.discount2].into_iter().flatten();
    let discount_lines = discounts.filter_map(|d| discount_line(&d, terms.due_date));
    discount_lines.chain(lateness_line(terms)).chain(after_due_line(after)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::terms::Penalty;
    use crate::values::BillingStatus;

    fn terms() -> Terms {
        Terms {
            status: BillingStatus::Opened,
            amount: Decimal::new(13500, 2),
            due_date: "2030-03-04".parse().unwrap(),
            discount: None,
            discount2: None,
            penalty: None,
            interest: None,
            cancel_penalty: false,
        }
    }

    const NONE: AfterDue = AfterDue { kind: None, days: 0 };

    #[test]
    fn plain_terms_have_no_instructions() {
        assert!(lines(&terms(), NONE).is_empty());
    }

    #[test]
    fn every_term_in_portuguese() {
        let mut t = terms();
        t.discount =
            Some(Discount { kind: ValueKind::FixedAmount, value: Decimal::new(1000, 2), antecedence_days: 10 });
        t.discount2 = Some(Discount { kind: ValueKind::Percentage, value: Decimal::new(5, 0), antecedence_days: 0 });
        t.penalty = Some(Penalty { kind: ValueKind::Percentage, value: Decimal::new(2, 0) });
        t.interest =
            Some(Interest { kind: ValueKind::Percentage, period: InterestPeriod::Monthly, value: Decimal::new(1, 0) });
        let after = AfterDue { kind: Some(InstructionType::Protest), days: 5 };
        assert_eq!(
            lines(&t, after),
            [
                "Até 22/02/2030, conceder desconto de R$ 10,00.",
                "Até 04/03/2030, conceder desconto de 5,00%.",
                "Após o vencimento, cobrar multa de 2,00% e juros de 1,00% ao mês.",
                "Protestar 5 dias após o vencimento.",
            ]
        );
    }

    #[test]
    fn waived_lateness_and_devolution() {
        let mut t = terms();
        t.interest =
            Some(Interest { kind: ValueKind::FixedAmount, period: InterestPeriod::Daily, value: Decimal::new(33, 2) });
        assert_eq!(lines(&t, NONE), ["Após o vencimento, cobrar juros de R$ 0,33 ao dia."]);
        t.cancel_penalty = true;
        let after = AfterDue { kind: Some(InstructionType::Devolution), days: 1 };
        assert_eq!(
            lines(&t, after),
            ["Não cobrar multa nem juros após o vencimento.", "Não receber a partir de 1 dia após o vencimento."]
        );
    }
}
