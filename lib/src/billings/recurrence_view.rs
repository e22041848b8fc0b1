//! A schedule's `recurrence` block in its representations (beside the spec's fields; legacy
//! schedules have none): its calendar as `POST /v1/schedules` takes it, and where it stands.

use chrono::NaiveDate;
use serde::Serialize;

use crate::values::recurrence::Recurrence;
use crate::values::schedule_calendar::{End, Period};
use crate::values::BillingId;

#[derive(Debug, PartialEq, Serialize)]
pub struct RecurrenceView {
    pub period: &'static str,
    pub every: u32,
    pub due_day: u32,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub cycles: Option<u32>,
    pub lead_days: u32,
    /// The next cycle's due date and issue day; both null once the schedule has ended.
    pub next_due_date: Option<NaiveDate>,
    pub next_issue_date: Option<NaiveDate>,
    pub cycles_issued: u32,
    pub last_billing_id: Option<BillingId>,
}

impl From<&Recurrence> for RecurrenceView {
    fn from(recurrence: &Recurrence) -> Self {
        let calendar = &recurrence.calendar;
        let (period, every) = match calendar.period {
            Period::Monthly(n) => ("monthly", n),
            Period::Weekly(n) => ("weekly", n),
            Period::Yearly(n) => ("yearly", n),
        };
        let (end_date, cycles) = match calendar.end {
            End::Never => (None, None),
            End::On(day) => (Some(day), None),
            End::After(n) => (None, Some(n)),
        };
        let next = recurrence.next();
        RecurrenceView {
            period,
            every,
            due_day: calendar.due_day,
            start_date: calendar.start,
            end_date,
            cycles,
            lead_days: recurrence.lead_days,
            next_due_date: next.map(|c| c.due),
            next_issue_date: next.map(|c| c.issue_day),
            cycles_issued: recurrence.issued,
            last_billing_id: recurrence.last_billing_id,
        }
    }
}
