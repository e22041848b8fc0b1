//! A billing's terms (§2.1): its discounts, penalty and interest, each one typed value, and what
//! the computed fields and the slip's instructions read of a billing.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{BillingStatus, InterestPeriod, ValueKind};

/// An early-payment discount: a percentage or a fixed value while at least `antecedence_days`
/// remain before the due date.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Discount {
    pub kind: ValueKind,
    pub value: Decimal,
    pub antecedence_days: i64,
}

/// The penalty (multa) charged once when late: a percentage of the amount or a fixed value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penalty {
    pub kind: ValueKind,
    pub value: Decimal,
}

/// Interest (juros de mora) on lateness: a rate or a fixed value per month or per day.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interest {
    pub kind: ValueKind,
    pub period: InterestPeriod,
    pub value: Decimal,
}

/// What the computation needs of a billing.
#[derive(Clone, Debug, PartialEq)]
pub struct Terms {
    pub status: BillingStatus,
    pub amount: Decimal,
    pub due_date: NaiveDate,
    pub discount: Option<Discount>,
    pub discount2: Option<Discount>,
    pub penalty: Option<Penalty>,
    pub interest: Option<Interest>,
    pub cancel_penalty: bool,
}
