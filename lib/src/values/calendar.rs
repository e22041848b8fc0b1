//! The calendar of the service. "Today" is the date in America/Sao_Paulo, which has kept UTC−3
//! all year since 2019; timestamps are ISO 8601 with that offset and milliseconds; dates are
//! exactly `YYYY-MM-DD`; due dates falling on a weekend move to Monday (§2.1).

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, SecondsFormat, SubsecRound, Utc, Weekday};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Days from the due date to `today`; negative while not yet due.
pub fn days_overdue(due_date: NaiveDate, today: NaiveDate) -> i64 {
    (today - due_date).num_days()
}

pub fn sao_paulo() -> FixedOffset {
    FixedOffset::west_opt(3 * 3600).expect("valid offset")
}

/// A point in time, shown as `2026-11-22T05:52:51.123-03:00`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp(pub DateTime<FixedOffset>);

impl Timestamp {
    /// Now, to the millisecond: the precision timestamps are shown and stored with, so a record
    /// built in memory equals the same record read back.
    pub fn now() -> Self {
        Timestamp(Utc::now().trunc_subsecs(3).with_timezone(&sao_paulo()))
    }

    pub fn parse(text: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(text).ok().map(|t| Timestamp(t.with_timezone(&sao_paulo())))
    }

    pub fn date(&self) -> NaiveDate {
        self.0.date_naive()
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, false))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse(&text).ok_or_else(|| serde::de::Error::custom("not an ISO 8601 timestamp"))
    }
}

pub fn today() -> NaiveDate {
    Timestamp::now().date()
}

/// Saturday and Sunday move to the following Monday; other days stay.
pub fn next_business_day(date: NaiveDate) -> NaiveDate {
    match date.weekday() {
        Weekday::Sat => date + Duration::days(2),
        Weekday::Sun => date + Duration::days(1),
        _ => date,
    }
}

/// Parses `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    // Exactly `YYYY-MM-DD`: chrono alone would also take `2030-3-4` or a signed five-digit year.
    let shape = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    if !shape {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// The first due date a bank billet can carry: the base of the barcode's due-date factor.
fn first_due_date() -> NaiveDate {
    NaiveDate::from_ymd_opt(1997, 10, 7).expect("a valid date")
}

/// A billing's `due_date` as sent: `YYYY-MM-DD`, moved off a weekend, and not before the first
/// date a billet can carry; the Portuguese message otherwise.
pub fn parse_due_date(text: &str) -> Result<NaiveDate, &'static str> {
    let date = parse_date(text).ok_or("Vencimento (due_date) não é uma data válida (AAAA-MM-DD)")?;
    if date < first_due_date() {
        return Err("Vencimento (due_date) deve ser a partir de 1997-10-07");
    }
    let moved = next_business_day(date);
    // A Saturday 9999-12-31 would move into a five-digit year.
    if moved.year() > 9999 {
        return Err("Vencimento (due_date) não é uma data válida (AAAA-MM-DD)");
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_show_the_sao_paulo_offset() {
        let t = Timestamp::parse("2026-11-22T08:52:51.123Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-22T05:52:51.123-03:00");
        assert_eq!(Timestamp::parse(&t.to_string()), Some(t));
    }

    #[test]
    fn now_round_trips_through_its_text() {
        let now = Timestamp::now();
        assert_eq!(Timestamp::parse(&now.to_string()), Some(now));
    }

    #[test]
    fn the_date_is_the_sao_paulo_date() {
        let t = Timestamp::parse("2026-11-23T02:00:00Z").unwrap();
        assert_eq!(t.date(), NaiveDate::from_ymd_opt(2026, 11, 22).unwrap());
    }

    #[test]
    fn weekends_move_to_monday() {
        let d = |s: &str| parse_date(s).unwrap();
        assert_eq!(next_business_day(d("2026-11-21")), d("2026-11-23")); // Saturday
        assert_eq!(next_business_day(d("2026-11-22")), d("2026-11-23")); // Sunday
        assert_eq!(next_business_day(d("2026-11-23")), d("2026-11-23")); // Monday
        assert_eq!(next_business_day(d("2026-11-27")), d("2026-11-27")); // Friday
        assert_eq!(next_business_day(d("2026-12-31")), d("2026-12-31")); // Thursday
        assert_eq!(parse_date("22/11/2026"), None);
    }

    #[test]
    fn dates_are_exactly_year_month_day() {
        assert_eq!(parse_date(" 2030-03-04 "), NaiveDate::from_ymd_opt(2030, 3, 4));
        for text in ["2030-3-4", "2030-03-4", "+2030-03-04", "20300-03-04", "2030-02-30", "2030/03/04", ""] {
            assert_eq!(parse_date(text), None, "{text}");
        }
        assert_eq!(parse_due_date("2026-11-21"), Ok(NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()));
        assert!(parse_due_date("1997-10-06").is_err());
        assert!(parse_due_date("1997-10-07").is_ok());
        assert!(parse_due_date("9999-12-30").is_ok());
        assert!(parse_due_date("2030-02-30").is_err());
    }
}
