//! Time in the service's zone. "Today" is the date in America/Sao_Paulo, which has kept UTC−3
//! all year since 2019; timestamps are ISO 8601 with that offset and milliseconds.

use chrono::{DateTime, FixedOffset, NaiveDate, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
}
