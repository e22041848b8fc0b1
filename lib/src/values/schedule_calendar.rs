//! A schedule's calendar, as pure functions: when each cycle falls due and when it is issued.
//!
//! Cycles are numbered from 0. Monthly cycles (every `n` months) fall on the schedule's due day of
//! their month, or on the month's last day when it has fewer days (the 31st in February falls on
//! the 28th or 29th, and in March on the 31st again); the first is the first such day on or after
//! the start. Weekly cycles fall every `n` weeks from the start; yearly ones every `n` years on the
//! due day of the start's month. A schedule ends after a number of cycles, on a date (no cycle due
//! after it), or never. Each cycle is issued a set number of days before its due date (the account's
//! lead, never before the start: a cycle whose issue day has passed when the schedule is made is
//! issued at once).

use chrono::{Datelike, Days, Months, NaiveDate};
use serde::{Deserialize, Serialize};

/// How often a schedule's cycles fall due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "unit", content = "every")]
pub enum Period {
    /// Every `n` months, on the due day.
    Monthly(u32),
    /// Every `n` weeks, on the start's weekday.
    Weekly(u32),
    /// Every `n` years, on the due day of the start's month.
    Yearly(u32),
}

/// When a schedule stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum End {
    Never,
    /// After this many cycles.
    After(u32),
    /// No cycle falls due after this day.
    On(NaiveDate),
}

/// A schedule's calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calendar {
    pub period: Period,
    /// The day of the month cycles fall due (1 to 31; monthly and yearly).
    pub due_day: u32,
    pub start: NaiveDate,
    pub end: End,
}

/// The longest gap between cycles a schedule may have: 12 months, 52 weeks, 5 years.
const LONGEST: (u32, u32, u32) = (12, 52, 5);

impl Calendar {
    /// Why this calendar cannot be a schedule's, each with the field it names (`period`,
    /// `due_day`, `end`).
    pub fn refused(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        let (every, longest, unit) = match self.period {
            Period::Monthly(n) => (n, LONGEST.0, "meses"),
            Period::Weekly(n) => (n, LONGEST.1, "semanas"),
            Period::Yearly(n) => (n, LONGEST.2, "anos"),
        };
        if every == 0 || every > longest {
            problems.push(("period", format!("a cada {every} {unit}: deve ser de 1 a {longest}")));
        }
        if !(1..=31).contains(&self.due_day) {
            problems.push(("due_day", format!("dia {} do mês: deve ser de 1 a 31", self.due_day)));
        }
        match self.end {
            End::After(0) => problems.push(("end", "ao menos uma parcela".to_owned())),
            End::On(day) if day < self.start => {
                problems.push(("end", format!("termina em {day}, antes do início {}", self.start)))
            }
            _ => {}
        }
        problems
    }

    /// The due date of cycle `cycle`, when the schedule has one (not past its end).
    pub fn due(&self, cycle: u32) -> Option<NaiveDate> {
        if let End::After(count) = self.end {
            if cycle >= count {
                return None;
            }
        }
        let due = self.unbounded(cycle)?;
        match self.end {
            End::On(last) if due > last => None,
            _ => Some(due),
        }
    }

    /// The first cycle due on or after `day`, with its due date.
    pub fn next_on_or_after(&self, day: NaiveDate) -> Option<(u32, NaiveDate)> {
        // Cycles fall due in order, at least a week apart: a binary search over them would do, but
        // a schedule's next cycle is near its last, so a walk from an estimate is enough.
        let mut cycle = self.estimate(day);
        while cycle > 0 && self.unbounded(cycle - 1).is_some_and(|due| due >= day) {
            cycle -= 1;
        }
        loop {
            let due = self.due(cycle)?;
            if due >= day {
                return Some((cycle, due));
            }
            cycle += 1;
        }
    }

    /// The day cycle `cycle` is issued, `lead` days before its due date (never before the start).
    pub fn issue_day(&self, cycle: u32, lead: u32) -> Option<NaiveDate> {
        let due = self.due(cycle)?;
        Some(due.checked_sub_days(Days::new(lead.into())).unwrap_or(due).max(self.start))
    }

    /// The due date of cycle `cycle` ignoring the end.
    fn unbounded(&self, cycle: u32) -> Option<NaiveDate> {
        match self.period {
            Period::Weekly(n) => self.start.checked_add_days(Days::new(u64::from(cycle) * u64::from(n) * 7)),
            Period::Monthly(n) => self.in_month(self.first_month()?, cycle.checked_mul(n)?),
            Period::Yearly(n) => self.in_month(self.first_month()?, cycle.checked_mul(n)?.checked_mul(12)?),
        }
    }

    /// The first day of the month of cycle 0: the start's month, or the next when the due day of
    /// the start's month is before the start (yearly cycles: the start's month, a year on).
    fn first_month(&self) -> Option<NaiveDate> {
        let month = self.start.with_day(1)?;
        let step = match self.period {
            Period::Yearly(_) => 12,
            _ => 1,
        };
        match on_day(month, self.due_day) >= self.start {
            true => Some(month),
            false => month.checked_add_months(Months::new(step)),
        }
    }

    /// The due day in the month `months` after `first` (its first day).
    fn in_month(&self, first: NaiveDate, months: u32) -> Option<NaiveDate> {
        Some(on_day(first.checked_add_months(Months::new(months))?, self.due_day))
    }

    /// A cycle at or after the one due on `day`.
    fn estimate(&self, day: NaiveDate) -> u32 {
        let days = (day - self.start).num_days().max(0);
        let span = match self.period {
            Period::Weekly(n) => i64::from(n) * 7,
            Period::Monthly(n) => i64::from(n) * 28,
            Period::Yearly(n) => i64::from(n) * 365,
        };
        u32::try_from(days / span.max(1) + 1).unwrap_or(u32::MAX)
    }
}

/// Day `day` of the month whose first day is `month`, or its last day when it has fewer.
fn on_day(month: NaiveDate, day: u32) -> NaiveDate {
    (0..4).map(|back| day.saturating_sub(back)).find_map(|d| month.with_day(d)).unwrap_or(month)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn monthly(due_day: u32, start: &str, end: End) -> Calendar {
        Calendar { period: Period::Monthly(1), due_day, start: day(start), end }
    }

    #[test]
    fn a_day_past_the_months_end_falls_on_its_last_day_and_comes_back() {
        let calendar = monthly(31, "2027-01-01", End::Never);
        let dues: Vec<_> = (0..4).map(|c| calendar.due(c).unwrap().to_string()).collect();
        assert_eq!(dues, ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"]);
        let leap = monthly(30, "2028-02-01", End::Never);
        assert_eq!(leap.due(0), Some(day("2028-02-29")));
    }

    #[test]
    fn the_first_cycle_is_the_first_due_day_on_or_after_the_start() {
        assert_eq!(monthly(10, "2027-03-10", End::Never).due(0), Some(day("2027-03-10")));
        assert_eq!(monthly(10, "2027-03-11", End::Never).due(0), Some(day("2027-04-10")));
        let quarterly = Calendar { period: Period::Monthly(3), ..monthly(5, "2027-01-20", End::Never) };
        let dues: Vec<_> = (0..3).map(|c| quarterly.due(c).unwrap().to_string()).collect();
        assert_eq!(dues, ["2027-02-05", "2027-05-05", "2027-08-05"]);
        let weekly = Calendar { period: Period::Weekly(2), ..monthly(1, "2027-01-04", End::Never) };
        assert_eq!(weekly.due(3), Some(day("2027-02-15")));
        let yearly = Calendar { period: Period::Yearly(1), ..monthly(15, "2027-06-20", End::Never) };
        assert_eq!((yearly.due(0), yearly.due(1)), (Some(day("2028-06-15")), Some(day("2029-06-15"))));
    }

    #[test]
    fn a_schedule_ends_after_its_count_or_on_its_date() {
        let counted = monthly(5, "2027-01-01", End::After(3));
        assert_eq!((counted.due(2), counted.due(3)), (Some(day("2027-03-05")), None));
        let dated = monthly(5, "2027-01-01", End::On(day("2027-03-04")));
        assert_eq!((dated.due(1), dated.due(2)), (Some(day("2027-02-05")), None));
    }

    #[test]
    fn the_next_cycle_is_found_from_any_day() {
        let calendar = monthly(31, "2027-01-01", End::After(12));
        for (from, expected) in
            [("2026-12-01", (0, "2027-01-31")), ("2027-02-28", (1, "2027-02-28")), ("2027-03-01", (2, "2027-03-31"))]
        {
            assert_eq!(calendar.next_on_or_after(day(from)), Some((expected.0, day(expected.1))), "{from}");
        }
        assert_eq!(calendar.next_on_or_after(day("2028-01-01")), None, "past its twelve cycles");
        // Every day of two years finds the first cycle due on or after it.
        let mut from = day("2026-12-01");
        while from < day("2029-01-01") {
            let found = calendar.next_on_or_after(from);
            let walked = (0..12).map(|c| (c, calendar.due(c).unwrap())).find(|(_, due)| *due >= from);
            assert_eq!(found, walked, "{from}");
            from = from.succ_opt().unwrap();
        }
    }

    #[test]
    fn a_cycle_is_issued_its_lead_before_its_due_date_never_before_the_start() {
        let calendar = monthly(10, "2027-03-05", End::Never);
        assert_eq!(calendar.issue_day(0, 10), Some(day("2027-03-05")), "due in five days: at once");
        assert_eq!(calendar.issue_day(1, 10), Some(day("2027-03-31")));
    }

    #[test]
    fn calendars_a_schedule_cannot_have_are_named_by_their_field() {
        let fields = |c: Calendar| c.refused().into_iter().map(|(f, _)| f).collect::<Vec<_>>();
        assert!(fields(monthly(10, "2027-03-05", End::Never)).is_empty());
        assert_eq!(
            fields(Calendar { period: Period::Monthly(0), ..monthly(32, "2027-03-05", End::After(0)) }),
            ["period", "due_day", "end"]
        );
        assert_eq!(fields(monthly(10, "2027-03-05", End::On(day("2027-03-04")))), ["end"]);
        assert_eq!(fields(Calendar { period: Period::Weekly(53), ..monthly(1, "2027-03-05", End::Never) }), ["period"]);
    }
}
