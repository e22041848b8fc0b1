//! A schedule's recurrence: its calendar ([`schedule_calendar`](super::schedule_calendar)), how
//! many days before each due date a cycle is issued, and where it stands (the next cycle to issue,
//! how many it issued, the last billing it made). Kept on the schedule's record; the issuing run
//! moves it one cycle at a time in the transaction that writes the cycle's billing.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::calendar::next_business_day;
use super::schedule_calendar::Calendar;
use super::BillingId;

/// The lead a schedule takes when its account set none: cycles are issued ten days before their
/// due date.
pub const DEFAULT_LEAD_DAYS: u32 = 10;

/// The longest lead: about two months.
pub const LONGEST_LEAD_DAYS: u32 = 60;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recurrence {
    pub calendar: Calendar,
    /// Days before a cycle's due date it is issued.
    pub lead_days: u32,
    /// The next cycle to issue: those before it were issued, or skipped when their due date passed
    /// before they could be.
    pub next_cycle: u32,
    /// Cycles issued so far.
    pub issued: u32,
    /// The billing of the last cycle issued.
    pub last_billing_id: Option<BillingId>,
}

/// A cycle to issue: its number, due date (moved off a weekend, as any billing's) and issue day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cycle {
    pub number: u32,
    pub due: NaiveDate,
    pub issue_day: NaiveDate,
}

/// What a run on some day does with a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Issue this cycle.
    Issue(Cycle),
    /// Nothing is due yet: the next cycle is issued on its issue day.
    Wait(Cycle),
    /// Cycles whose due date passed before they were issued are skipped: the schedule moves on to
    /// this one (issued at once when its issue day has come).
    Skip(Option<Cycle>),
    /// No cycle is left.
    Ended,
}

impl Recurrence {
    /// A new schedule's recurrence, made `today`: its first cycle is the first due on or after
    /// today.
    pub fn new(calendar: Calendar, lead_days: u32, today: NaiveDate) -> Recurrence {
        let first = calendar.next_on_or_after(today.max(calendar.start)).map_or(u32::MAX, |(cycle, _)| cycle);
        Recurrence { calendar, lead_days, next_cycle: first, issued: 0, last_billing_id: None }
    }

    /// Cycle `number`, when the calendar has it.
    pub fn cycle(&self, number: u32) -> Option<Cycle> {
        let due = self.calendar.due(number)?;
        let issue_day = self.calendar.issue_day(number, self.lead_days)?;
        Some(Cycle { number, due: next_business_day(due), issue_day })
    }

    /// The next cycle to issue, none when the schedule has ended.
    pub fn next(&self) -> Option<Cycle> {
        self.cycle(self.next_cycle)
    }

    /// What a run on `day` does: issue the next cycle when its issue day has come and its due date
    /// has not passed; skip to the first cycle due on or after `day` when it has.
    pub fn turn(&self, day: NaiveDate) -> Turn {
        let Some(next) = self.next() else { return Turn::Ended };
        if next.due < day {
            let later = self.calendar.next_on_or_after(day).and_then(|(number, _)| self.cycle(number));
            return Turn::Skip(later);
        }
        match next.issue_day <= day {
            true => Turn::Issue(next),
            false => Turn::Wait(next),
        }
    }

    /// The recurrence once `cycle` was issued as `billing`.
    pub fn issued(self, cycle: u32, billing: BillingId) -> Recurrence {
        Recurrence { next_cycle: cycle + 1, issued: self.issued + 1, last_billing_id: Some(billing), ..self }
    }

    /// The recurrence moved on to `cycle` (skipping those before it), or ended.
    pub fn skipped_to(self, cycle: Option<u32>) -> Recurrence {
        Recurrence { next_cycle: cycle.unwrap_or(u32::MAX), ..self }
    }

    /// The recurrence with a new calendar (an edit: it takes effect from the next cycle not yet
    /// issued, never before `today`).
    pub fn with_calendar(self, calendar: Calendar, lead_days: u32, today: NaiveDate) -> Recurrence {
        let edited = Recurrence { calendar, lead_days, ..self };
        match edited.next() {
            Some(next) if next.due < today => {
                edited.skipped_to(calendar.next_on_or_after(today).map(|(cycle, _)| cycle.max(self.next_cycle)))
            }
            _ => edited,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::schedule_calendar::{End, Period};
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn monthly(due_day: u32, start: &str, end: End) -> Calendar {
        Calendar { period: Period::Monthly(1), due_day, start: day(start), end }
    }

    #[test]
    fn a_cycle_is_issued_from_its_issue_day_until_its_due_date() {
        let recurrence = Recurrence::new(monthly(10, "2027-01-01", End::Never), 10, day("2026-12-01"));
        let first = recurrence.next().unwrap();
        assert_eq!((first.number, first.due, first.issue_day), (0, day("2027-01-11"), day("2027-01-01")));
        // The 10th of January 2027 is a Sunday: the billing falls due on Monday.
        assert_eq!(recurrence.turn(day("2026-12-31")), Turn::Wait(first));
        assert_eq!(recurrence.turn(day("2027-01-01")), Turn::Issue(first));
        assert_eq!(recurrence.turn(day("2027-01-11")), Turn::Issue(first));
        let next = recurrence.issued(0, BillingId::new(5));
        assert_eq!(next.next().unwrap().due, day("2027-02-10"));
        assert_eq!((next.issued, next.last_billing_id), (1, Some(BillingId::new(5))));
    }

    #[test]
    fn a_cycle_whose_due_date_passed_is_skipped() {
        let recurrence = Recurrence::new(monthly(10, "2027-01-01", End::Never), 10, day("2026-12-01"));
        match recurrence.turn(day("2027-02-05")) {
            Turn::Skip(Some(cycle)) => assert_eq!((cycle.number, cycle.due), (1, day("2027-02-10"))),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_schedule_made_after_its_start_begins_with_the_next_due_date() {
        let recurrence = Recurrence::new(monthly(5, "2026-01-01", End::After(24)), 10, day("2026-11-28"));
        assert_eq!(recurrence.next_cycle, 11);
        assert_eq!(recurrence.next().unwrap().due, day("2026-12-07"));
    }

    #[test]
    fn a_schedule_ends_after_its_last_cycle() {
        let recurrence = Recurrence::new(monthly(5, "2027-01-01", End::After(1)), 10, day("2026-12-01"));
        let done = recurrence.issued(0, BillingId::new(1));
        assert_eq!(done.turn(day("2027-02-01")), Turn::Ended);
        let never = Recurrence::new(monthly(5, "2020-01-01", End::On(day("2020-12-31"))), 10, day("2026-12-01"));
        assert_eq!(never.turn(day("2026-12-01")), Turn::Ended);
    }

    #[test]
    fn an_edit_takes_effect_from_the_next_cycle_not_issued() {
        let recurrence =
            Recurrence::new(monthly(10, "2027-01-01", End::Never), 10, day("2026-12-01")).issued(0, BillingId::new(1));
        let moved = recurrence.with_calendar(monthly(25, "2027-01-01", End::Never), 5, day("2027-01-20"));
        assert_eq!(moved.next_cycle, 1);
        assert_eq!(moved.next().unwrap().due, day("2027-02-25"));
        assert_eq!(moved.next().unwrap().issue_day, day("2027-02-20"));
    }
}
