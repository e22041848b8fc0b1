//! Calendar rules: due dates falling on a weekend move to Monday (§2.1).

use chrono::{Datelike, Duration, NaiveDate, Weekday};

/// Saturday and Sunday move to the following Monday; other days stay.
pub fn next_business_day(date: NaiveDate) -> NaiveDate {
    match date.weekday() {
        Weekday::Sat => date + Duration::days(2),
        Weekday::Sun => date + Duration::days(1),
        _ => date,
    }
}

/// Parses `YYYY-MM-DD`.
pub fn parse(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weekends_move_to_monday() {
        let d = |s: &str| parse(s).unwrap();
        assert_eq!(next_business_day(d("2026-11-21")), d("2026-11-23")); // Saturday
        assert_eq!(next_business_day(d("2026-11-22")), d("2026-11-23")); // Sunday
        assert_eq!(next_business_day(d("2026-11-23")), d("2026-11-23")); // Monday
        assert_eq!(next_business_day(d("2026-11-27")), d("2026-11-27")); // Friday
        assert_eq!(next_business_day(d("2026-12-31")), d("2026-12-31")); // Thursday
        assert_eq!(parse("22/11/2026"), None);
    }
}
