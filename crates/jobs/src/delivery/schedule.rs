//! When a failed delivery is tried again: the retry schedule (Standard Webhooks' shape,
//! 5 s to 10 h), jitter, and the receiver's `Retry-After`.

use std::time::Duration;

use rand::Rng;

/// The waits between attempts: after the n-th failure the delivery waits `steps[n-1]`;
/// after a failure with no step left it has failed for good.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    steps: Vec<Duration>,
}

/// The production schedule, as text (`SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE`).
pub const DEFAULT_SCHEDULE: &str = "5s,5m,30m,2h,5h,10h,10h";

/// The longest wait a receiver's `Retry-After` can ask for, so that it cannot park
/// deliveries for ever.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// How far jitter moves a wait either way, so that deliveries failing together (a
/// receiver's outage) do not all come back in the same instant.
const JITTER: f64 = 0.1;

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            steps: vec![
                Duration::from_secs(5),
                Duration::from_secs(5 * 60),
                Duration::from_secs(30 * 60),
                Duration::from_secs(2 * 3600),
                Duration::from_secs(5 * 3600),
                Duration::from_secs(10 * 3600),
                Duration::from_secs(10 * 3600),
            ],
        }
    }
}

impl Schedule {
    /// Reads `5s,5m,30m,2h` (units `ms`, `s`, `m`, `h`); at least one step.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        let steps = text
            .split(',')
            .map(|step| parse_duration(step.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        if steps.is_empty() {
            return Err("the retry schedule needs at least one step".into());
        }
        Ok(Schedule { steps })
    }

    /// The schedule's steps.
    pub fn steps(&self) -> &[Duration] {
        &self.steps
    }

    /// The wait after failed attempt number `attempts` (1 for the first), with jitter and
    /// at least `retry_after` (up to [`MAX_RETRY_AFTER`]); `None` when the schedule is
    /// exhausted.
    pub fn wait_after(&self, attempts: i64, retry_after: Option<Duration>) -> Option<Duration> {
        let index = usize::try_from(attempts).ok()?.checked_sub(1)?;
        let step = *self.steps.get(index)?;
        let factor = rand::rng().random_range(1.0 - JITTER..=1.0 + JITTER);
        let jittered = step.mul_f64(factor);
        Some(match retry_after {
            Some(asked) => jittered.max(asked.min(MAX_RETRY_AFTER)),
            None => jittered,
        })
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let invalid = || format!("`{text}` is not a duration like 100ms, 5s, 5m or 2h");
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(invalid)?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| invalid())?;
    let millis = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(invalid()),
    };
    Ok(Duration::from_millis(
        number.checked_mul(millis).ok_or_else(invalid)?,
    ))
}

/// A `Retry-After` value: delay seconds, or an HTTP date (RFC 9110 §10.2.3), as the wait
/// from `now`; `None` when it is neither.
pub fn retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    Some(
        (at.with_timezone(&chrono::Utc) - now)
            .to_std()
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_default_is_the_documented_schedule() {
        assert_eq!(Schedule::parse(DEFAULT_SCHEDULE), Ok(Schedule::default()));
        assert_eq!(
            Schedule::parse("100ms, 1s").map(|s| s.steps().to_vec()),
            Ok(vec![Duration::from_millis(100), Duration::from_secs(1)])
        );
        assert!(Schedule::parse("5x").is_err());
        assert!(Schedule::parse("").is_err());
        assert!(Schedule::parse("s").is_err());
    }

    #[test]
    fn waits_follow_the_steps_with_jitter_then_stop() {
        let schedule = Schedule::default();
        for _ in 0..100 {
            let first = schedule.wait_after(1, None).unwrap();
            assert!(first >= Duration::from_millis(4500) && first <= Duration::from_millis(5500));
        }
        let last = schedule.wait_after(7, None).unwrap();
        assert!(last >= Duration::from_secs(9 * 3600));
        assert_eq!(schedule.wait_after(8, None), None);
        assert_eq!(schedule.wait_after(0, None), None);
    }

    #[test]
    fn retry_after_lengthens_a_wait_up_to_a_day() {
        let schedule = Schedule::parse("100ms,200ms").unwrap();
        let wait = schedule.wait_after(1, Some(Duration::from_secs(2)));
        assert_eq!(wait, Some(Duration::from_secs(2)));
        let wait = schedule.wait_after(1, Some(Duration::from_secs(9 * 86_400)));
        assert_eq!(wait, Some(MAX_RETRY_AFTER));
        let wait = Schedule::default().wait_after(4, Some(Duration::from_secs(60)));
        assert!(
            wait.unwrap() > Duration::from_secs(3600),
            "never sooner than the schedule"
        );
    }

    #[test]
    fn retry_after_takes_seconds_and_http_dates() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-21T07:28:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
    }
}
