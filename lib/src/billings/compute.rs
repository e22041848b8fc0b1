//! Fields computed on read (§2.1), as pure functions of a billing's terms and "today" (São Paulo).
//!
//! Where the spec leaves the formula open we follow Brazilian banking practice (docs/decisions.md):
//! - lateness counts calendar days after `due_date` (the due date itself is never late);
//! - penalty (multa) is charged once, on the original `amount`: `penalty%` of it, or the fixed value;
//! - interest (juros de mora) is simple, pro rata die, on the original `amount`: a monthly rate is
//!   divided by 30 and multiplied by the days late; a daily rate is multiplied by the days late; a
//!   fixed monthly value is divided by 30 per day; a fixed daily value is charged per day;
//! - `cancel_penalty` waives both penalty and interest;
//! - early-payment discounts: the first discount applies while at least `discount_antecedence` days
//!   remain before the due date, otherwise the second while at least `discount_antecedence2` remain
//!   (antecedence 0 = up to and including the due date); a discount never exceeds the amount;
//! - each component is rounded to cents (half away from zero) before `amount_payable` is summed;
//! - discounts and charges apply only while the billing is collectable; otherwise they are zero.

use chrono::NaiveDate;
use rust_decimal::Decimal;

pub use crate::values::calendar::days_overdue;
use crate::values::money::cents;
pub use crate::values::terms::{Discount, Interest, Penalty, Terms};
use crate::values::{BillingStatus, InterestPeriod, ValueKind};

#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    pub virtual_status: &'static str,
    pub days_overdue: i64,
    pub overdue: bool,
    pub paid: bool,
    pub discount_amount: Decimal,
    pub extra_amount: Decimal,
    pub amount_payable: Decimal,
}

pub fn virtual_status(status: BillingStatus, due_date: NaiveDate, today: NaiveDate) -> &'static str {
    if status == BillingStatus::Opened && due_date < today {
        "expired"
    } else {
        status.as_str()
    }
}

fn value_of(kind: ValueKind, value: Decimal, amount: Decimal) -> Decimal {
    match kind {
        ValueKind::Percentage => amount * value / Decimal::ONE_HUNDRED,
        ValueKind::FixedAmount => value,
    }
}

pub fn discount_amount(terms: &Terms, today: NaiveDate) -> Decimal {
    let days_left = -days_overdue(terms.due_date, today);
    let applicable = [terms.discount, terms.discount2].into_iter().flatten().find(|d| days_left >= d.antecedence_days);
    applicable.map(|d| cents(value_of(d.kind, d.value, terms.amount)).min(terms.amount)).unwrap_or(Decimal::ZERO)
}

pub fn extra_amount(terms: &Terms, today: NaiveDate) -> Decimal {
    let days = days_overdue(terms.due_date, today);
    if days <= 0 || terms.cancel_penalty {
        return Decimal::ZERO;
    }
    let interest = terms.interest.map(|_| cents(interest_per_day(terms) * Decimal::from(days))).unwrap_or_default();
    penalty(terms) + interest
}

/// The penalty (multa) charged once when late, in reais (rounded to cents; zero without one).
pub fn penalty(terms: &Terms) -> Decimal {
    terms.penalty.map(|p| cents(value_of(p.kind, p.value, terms.amount))).unwrap_or_default()
}

/// The interest one day late costs, in reais, before rounding (zero without interest).
pub fn interest_per_day(terms: &Terms) -> Decimal {
    let Some(i) = terms.interest else { return Decimal::ZERO };
    let per_period = value_of(i.kind, i.value, terms.amount);
    match i.period {
        InterestPeriod::Monthly => per_period / Decimal::from(30),
        InterestPeriod::Daily => per_period,
    }
}

/// Every computed field as of `today`.
pub fn compute(terms: &Terms, today: NaiveDate) -> Computed {
    let virtual_status = virtual_status(terms.status, terms.due_date, today);
    let days_overdue = days_overdue(terms.due_date, today);
    let (discount_amount, extra_amount) = if terms.status.collectable() {
        (discount_amount(terms, today), extra_amount(terms, today))
    } else {
        (Decimal::ZERO, Decimal::ZERO)
    };
    Computed {
        virtual_status,
        days_overdue,
        overdue: days_overdue > 0 && matches!(virtual_status, "opened" | "expired"),
        paid: matches!(virtual_status, "paid" | "available" | "discharged"),
        discount_amount,
        extra_amount,
        amount_payable: terms.amount - discount_amount + extra_amount,
    }
}

/// §2.1 `return_date`: `due_date + instruction_days` for `devolution`, otherwise none.
pub fn return_date(due_date: NaiveDate, devolution: bool, instruction_days: i64) -> Option<NaiveDate> {
    devolution.then(|| due_date + chrono::Duration::days(instruction_days))
}

/// §2.1 `display_amount_payable`: when paid, what was received (`gross − discount + extra`); for a
/// billet registered at a gateway, the amount payable as of its registration date; otherwise as of
/// today.
pub fn display_amount_payable(
    terms: &Terms,
    today: NaiveDate,
    registered_on: Option<NaiveDate>,
    received: Option<(Decimal, Decimal, Decimal)>,
) -> Decimal {
    let computed = compute(terms, today);
    if computed.paid {
        if let Some((gross, discount, extra)) = received {
            return gross - discount + extra;
        }
    }
    match registered_on {
        Some(date) => compute(terms, date).amount_payable,
        None => computed.amount_payable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn m(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn terms(amount: &str, due: &str) -> Terms {
        Terms {
            status: BillingStatus::Opened,
            amount: m(amount),
            due_date: d(due),
            discount: None,
            discount2: None,
            penalty: None,
            interest: None,
            cancel_penalty: false,
        }
    }

    #[test]
    fn status_views() {
        let t = terms("100", "2026-11-10");
        let late = compute(&t, d("2026-11-22"));
        assert_eq!((late.virtual_status, late.days_overdue, late.overdue, late.paid), ("expired", 12, true, false));
        let on_time = compute(&t, d("2026-11-10"));
        assert_eq!((on_time.virtual_status, on_time.days_overdue, on_time.overdue), ("opened", 0, false));
        let early = compute(&t, d("2026-11-07"));
        assert_eq!(early.days_overdue, -3);
        for (status, paid) in [
            (BillingStatus::Paid, true),
            (BillingStatus::Available, true),
            (BillingStatus::Discharged, true),
            (BillingStatus::Canceled, false),
        ] {
            let c = compute(&Terms { status, ..t.clone() }, d("2026-11-22"));
            assert_eq!((c.paid, c.overdue, c.virtual_status), (paid, false, status.as_str()));
        }
        // Under review stays under review, yet is overdue only when opened or expired.
        let review = compute(&Terms { status: BillingStatus::UnderReview, ..t.clone() }, d("2026-11-22"));
        assert_eq!((review.virtual_status, review.overdue), ("under_review", false));
    }

    #[test]
    fn worked_example_percentage_penalty_and_monthly_interest() {
        // R$ 100,00 due 10/11, paid 22/11: 12 days late; multa 2% = 2,00; juros 1% a.m. pro rata:
        // 100 × 1% ÷ 30 × 12 = 0,40; total 102,40.
        let t = Terms {
            penalty: Some(Penalty { kind: ValueKind::Percentage, value: m("2") }),
            interest: Some(Interest { kind: ValueKind::Percentage, period: InterestPeriod::Monthly, value: m("1") }),
            ..terms("100.00", "2026-11-10")
        };
        let c = compute(&t, d("2026-11-22"));
        assert_eq!((c.extra_amount, c.amount_payable), (m("2.40"), m("102.40")));
        // On the due date nothing is added.
        assert_eq!(compute(&t, d("2026-11-10")).extra_amount, Decimal::ZERO);
    }

    #[test]
    fn worked_example_daily_and_fixed_charges() {
        // Juros 0,033% a.d. on R$ 1.500,00 for 12 days: 1500 × 0.00033 × 12 = 5,94.
        let daily = Terms {
            interest: Some(Interest { kind: ValueKind::Percentage, period: InterestPeriod::Daily, value: m("0.033") }),
            ..terms("1500.00", "2026-11-10")
        };
        assert_eq!(compute(&daily, d("2026-11-22")).extra_amount, m("5.94"));
        // Multa fixa R$ 5,00 and juros fixos R$ 3,00 ao mês: 3 ÷ 30 × 12 = 1,20; total 6,20.
        let fixed = Terms {
            penalty: Some(Penalty { kind: ValueKind::FixedAmount, value: m("5") }),
            interest: Some(Interest { kind: ValueKind::FixedAmount, period: InterestPeriod::Monthly, value: m("3") }),
            ..terms("80.00", "2026-11-10")
        };
        assert_eq!(compute(&fixed, d("2026-11-22")).amount_payable, m("86.20"));
        // Juros fixos R$ 0,50 ao dia for 12 days: 6,00.
        let per_day = Terms {
            interest: Some(Interest { kind: ValueKind::FixedAmount, period: InterestPeriod::Daily, value: m("0.5") }),
            ..terms("80.00", "2026-11-10")
        };
        assert_eq!(compute(&per_day, d("2026-11-22")).extra_amount, m("6.00"));
    }

    #[test]
    fn cancel_penalty_waives_charges() {
        let t = Terms {
            penalty: Some(Penalty { kind: ValueKind::Percentage, value: m("2") }),
            interest: Some(Interest { kind: ValueKind::Percentage, period: InterestPeriod::Monthly, value: m("1") }),
            cancel_penalty: true,
            ..terms("100.00", "2026-11-10")
        };
        let c = compute(&t, d("2026-11-22"));
        assert_eq!((c.extra_amount, c.amount_payable, c.overdue), (Decimal::ZERO, m("100.00"), true));
    }

    #[test]
    fn worked_example_two_discount_windows() {
        // R$ 200,00 due 10/12: 10% until 10 days before (30/11), then R$ 5,00 until 2 days before (08/12).
        let t = Terms {
            discount: Some(Discount { kind: ValueKind::Percentage, value: m("10"), antecedence_days: 10 }),
            discount2: Some(Discount { kind: ValueKind::FixedAmount, value: m("5"), antecedence_days: 2 }),
            ..terms("200.00", "2026-12-10")
        };
        let at = |day: &str| compute(&t, d(day)).discount_amount;
        assert_eq!(at("2026-11-22"), m("20.00"));
        assert_eq!(at("2026-11-30"), m("20.00"));
        assert_eq!(at("2026-12-01"), m("5.00"));
        assert_eq!(at("2026-12-08"), m("5.00"));
        assert_eq!(at("2026-12-09"), Decimal::ZERO);
        assert_eq!(compute(&t, d("2026-11-22")).amount_payable, m("180.00"));
        // Antecedence 0: up to and including the due date, not after.
        let last_day = Terms {
            discount: Some(Discount { kind: ValueKind::FixedAmount, value: m("7"), antecedence_days: 0 }),
            ..terms("50.00", "2026-12-10")
        };
        assert_eq!(compute(&last_day, d("2026-12-10")).discount_amount, m("7.00"));
        assert_eq!(compute(&last_day, d("2026-12-11")).discount_amount, Decimal::ZERO);
        // A discount never exceeds the amount.
        let huge = Terms {
            discount: Some(Discount { kind: ValueKind::FixedAmount, value: m("500"), antecedence_days: 0 }),
            ..terms("50.00", "2026-12-10")
        };
        assert_eq!(compute(&huge, d("2026-12-01")).amount_payable, Decimal::ZERO);
    }

    #[test]
    fn settled_billings_carry_no_discount_or_charge() {
        let t = Terms {
            status: BillingStatus::Canceled,
            penalty: Some(Penalty { kind: ValueKind::FixedAmount, value: m("9") }),
            ..terms("100", "2026-11-01")
        };
        let c = compute(&t, d("2026-11-22"));
        assert_eq!((c.discount_amount, c.extra_amount, c.amount_payable), (Decimal::ZERO, Decimal::ZERO, m("100")));
    }

    #[test]
    fn return_date_and_display_amount() {
        assert_eq!(return_date(d("2026-11-10"), true, 30), Some(d("2026-12-10")));
        assert_eq!(return_date(d("2026-11-10"), false, 30), None);
        let t = Terms {
            penalty: Some(Penalty { kind: ValueKind::Percentage, value: m("2") }),
            ..terms("100.00", "2026-11-10")
        };
        // Frozen at the registration date of a gateway billet (before the due date: no charge).
        assert_eq!(display_amount_payable(&t, d("2026-11-22"), Some(d("2026-11-01")), None), m("100.00"));
        assert_eq!(display_amount_payable(&t, d("2026-11-22"), None, None), m("102.00"));
        let paid = Terms { status: BillingStatus::Paid, ..t };
        assert_eq!(
            display_amount_payable(&paid, d("2026-11-22"), None, Some((m("103"), m("0"), m("2.5")))),
            m("105.5")
        );
    }
}
