//! When a delivery's attempts are made: the waits of a round ([`Schedule`]), with jitter.

use std::time::Duration as StdDuration;

use rand::Rng as _;

/// The waits between attempts (`WEBHOOK_RETRY_SCHEDULE`, seconds separated by commas, replaces
/// the default: tests and the local stack retry in seconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule(pub Vec<StdDuration>);

impl Default for Schedule {
    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts over 75.6 hours.
    fn default() -> Self {
        let seconds = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];
        Schedule(seconds.into_iter().map(StdDuration::from_secs).collect())
    }
}

impl Schedule {
    pub fn parse(text: &str) -> Option<Self> {
        let waits: Option<Vec<StdDuration>> =
            text.split(',').map(|part| part.trim().parse::<u64>().ok().map(StdDuration::from_secs)).collect();
        waits.filter(|w| !w.is_empty() && w.len() < 100).map(Schedule)
    }

    pub fn from_env() -> Self {
        match std::env::var("WEBHOOK_RETRY_SCHEDULE") {
            Ok(text) => Schedule::parse(&text).unwrap_or_else(|| {
                tracing::warn!(%text, "WEBHOOK_RETRY_SCHEDULE is not a list of seconds; the default applies");
                Schedule::default()
            }),
            Err(_) => Schedule::default(),
        }
    }

    /// The wait after the `made`-th attempt of a round failed (with jitter), or `None` when that
    /// was the last one.
    pub(super) fn wait_after(&self, made: u32) -> Option<StdDuration> {
        let base = self.0.get(usize::try_from(made).ok()?.checked_sub(1)?)?;
        let jitter = rand::rng().random_range(0.9..=1.1);
        Some(base.mul_f64(jitter))
    }

    /// Attempts in one round.
    pub fn attempts(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX - 1) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_spans_about_three_days_with_jitter() {
        let schedule = Schedule::default();
        assert_eq!(schedule.attempts(), 10);
        let total: StdDuration = schedule.0.iter().sum();
        assert_eq!(total.as_secs(), 272_105);
        for made in 1..=9 {
            let wait = schedule.wait_after(made).unwrap().as_secs_f64();
            let base = schedule.0[made as usize - 1].as_secs_f64();
            assert!((base * 0.9..=base * 1.1).contains(&wait), "{made}: {wait}");
        }
        assert_eq!(schedule.wait_after(10), None);
        assert_eq!(schedule.wait_after(0), None);
        assert_eq!(
            Schedule::parse("1, 2,3"),
            Some(Schedule(vec![StdDuration::from_secs(1), StdDuration::from_secs(2), StdDuration::from_secs(3)]))
        );
        assert_eq!(Schedule::parse("1,x"), None);
        assert_eq!(Schedule::parse(""), None);
    }
}
