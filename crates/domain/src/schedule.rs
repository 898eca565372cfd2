//! Business hours: whether weekly local hours and holiday closures make a business open at an
//! instant, and exactly when that answer next changes, across daylight-saving changes and midnight.
//!
//! Everything is pure computation on already-validated values; the API layer parses the JSON.

use chrono::{
    DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeDelta, TimeZone, Timelike,
    Utc,
};
use chrono_tz::Tz;

/// Minutes since local midnight, 0..=1440 (1440 only as an interval end).
pub type Minute = u16;

/// The minute that ends a day ("24:00"), valid only as an interval's `to`.
pub const END_OF_DAY: Minute = 1440;

/// How far ahead `next_change_at` looks before answering "never".
pub const HORIZON_DAYS: i64 = 400;

/// Offsets are sampled this often while scanning for transitions. The time zone crate does not
/// expose its transition table, so a transition is found by seeing the offset differ between two
/// samples and bisecting; a step well below any real gap between two transitions keeps that exact.
const PROBE_SECONDS: i64 = 3 * 3600;

/// One opening interval of a day, [from, to) in local minutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// First open minute.
    pub from: Minute,
    /// First closed minute after the opening (may be 1440).
    pub to: Minute,
}

/// Opening intervals per weekday, index 0 = Sunday .. 6 = Saturday, each sorted and non-overlapping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WeeklyHours {
    /// The intervals of each weekday, Sunday first.
    pub days: [Vec<Interval>; 7],
}

/// A closure period in local wall-clock time, [start, end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closure {
    /// The holiday's name, reported back as the reason.
    pub name: String,
    /// First closed local time.
    pub start: NaiveDateTime,
    /// First local time no longer closed by this holiday.
    pub end: NaiveDateTime,
}

/// Why the business is open or closed at an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Inside the weekly hours.
    InsideHours,
    /// Outside them.
    OutsideHours,
    /// Closed by this holiday (by name and index into the closures given).
    Holiday {
        /// The holiday's name.
        name: String,
        /// Its index in the closures passed to [`status`].
        index: usize,
    },
}

/// The answer for one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Whether the business is open.
    pub open: bool,
    /// Why it is open or closed.
    pub reason: Reason,
    /// The first instant after `at` at which `open` differs (on a holiday: when the line
    /// reopens, not when the holiday ends); None if it never changes within the horizon.
    pub next_change_at: Option<DateTime<Utc>>,
}

/// A range end given as a date or a local date-time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalBound {
    /// A whole local day: the start of it as a range start, the end of it as a range end.
    Date(NaiveDate),
    /// A local wall-clock instant (exclusive as a range end).
    DateTime(NaiveDateTime),
}

/// Parses "HH:MM" (00:00..=23:59, and "24:00" only when `allow_end_of_day`) into minutes; None if malformed.
pub fn parse_minute(text: &str, allow_end_of_day: bool) -> Option<Minute> {
    let bytes = text.as_bytes();
    if bytes.len() != 5 || bytes[2] != b':' {
        return None;
    }
    let hour = two_digits(&bytes[0..2])?;
    let minute = two_digits(&bytes[3..5])?;
    match (hour, minute) {
        (24, 0) if allow_end_of_day => Some(END_OF_DAY),
        (0..=23, 0..=59) => Some(hour * 60 + minute),
        _ => None,
    }
}

/// Formats minutes as "HH:MM".
pub fn format_minute(minute: Minute) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// Checks one day's intervals: each from < to, and no overlaps once sorted by `from`; answers
/// human messages keyed by interval index (ascending), e.g.
/// `(1, "must start at or after the end of the previous interval (09:00-12:00)")`, which the
/// caller turns into `'body/hours/<day>/<index>' <message>` validation errors.
pub fn check_day(intervals: &[Interval]) -> Vec<(usize, String)> {
    let mut problems = Vec::new();
    for (index, interval) in intervals.iter().enumerate() {
        if interval.to > END_OF_DAY {
            problems.push((index, "'to' must be at most 24:00".to_owned()));
        } else if interval.from >= interval.to {
            problems.push((index, "'to' must be after 'from'".to_owned()));
        }
    }
    // Broken intervals already have a message; comparing them with others would only add noise.
    let mut order: Vec<usize> = (0..intervals.len())
        .filter(|&index| problems.iter().all(|(broken, _)| *broken != index))
        .collect();
    order.sort_by_key(|&index| (intervals[index].from, index));
    // Compare with the interval reaching furthest so far, not just the sorted predecessor, so a
    // short interval nested inside a long one cannot hide a later overlap with the long one.
    let mut furthest: Option<Interval> = None;
    for index in order {
        let interval = intervals[index];
        match furthest {
            Some(previous) if interval.from < previous.to => {
                problems.push((
                    index,
                    format!(
                        "must start at or after the end of the previous interval ({}-{})",
                        format_minute(previous.from),
                        format_minute(previous.to)
                    ),
                ));
                if interval.to > previous.to {
                    furthest = Some(interval);
                }
            }
            _ => furthest = Some(interval),
        }
    }
    problems.sort_by_key(|(index, _)| *index);
    problems
}

/// The status at `at` (UTC) of a business in `tz` with `hours` and `closures`.
/// Horizon for next_change_at: 400 days.
pub fn status(hours: &WeeklyHours, closures: &[Closure], tz: Tz, at: DateTime<Utc>) -> Status {
    let (open, reason) = evaluate(hours, closures, at.with_timezone(&tz).naive_local());
    let next_change_at = next_change(hours, closures, tz, at, open);
    Status {
        open,
        reason,
        next_change_at,
    }
}

/// A closure for a whole local day.
pub fn closure_for_date(name: &str, date: NaiveDate) -> Closure {
    Closure {
        name: name.to_owned(),
        start: start_of(date),
        end: end_of(date),
    }
}

/// A closure for a range given as dates (inclusive) or local date-times (end exclusive); None if end <= start.
pub fn closure_for_range(name: &str, from: LocalBound, to: LocalBound) -> Option<Closure> {
    let start = match from {
        LocalBound::Date(date) => start_of(date),
        LocalBound::DateTime(time) => time,
    };
    let end = match to {
        LocalBound::Date(date) => end_of(date),
        LocalBound::DateTime(time) => time,
    };
    (start < end).then(|| Closure {
        name: name.to_owned(),
        start,
        end,
    })
}

/// Parses "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" (also accept ":SS").
pub fn parse_local_bound(text: &str) -> Option<LocalBound> {
    // Checked by hand because chrono's `%Y` also takes signs and more digits than the API allows.
    let bytes = text.as_bytes();
    if bytes.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let year = i32::from(two_digits(&bytes[0..2])?) * 100 + i32::from(two_digits(&bytes[2..4])?);
    let date = NaiveDate::from_ymd_opt(
        year,
        u32::from(two_digits(&bytes[5..7])?),
        u32::from(two_digits(&bytes[8..10])?),
    )?;
    let time = &bytes[10..];
    if time.is_empty() {
        return Some(LocalBound::Date(date));
    }
    if !(time.len() == 6 || time.len() == 9) || time[0] != b'T' || time[3] != b':' {
        return None;
    }
    let second = if time.len() == 9 {
        if time[6] != b':' {
            return None;
        }
        two_digits(&time[7..9])?
    } else {
        0
    };
    let clock = NaiveTime::from_hms_opt(
        u32::from(two_digits(&time[1..3])?),
        u32::from(two_digits(&time[4..6])?),
        u32::from(second),
    )?;
    // `from_hms_opt` accepts second 60 only through its milli/nano variants, so this is strict.
    Some(LocalBound::DateTime(date.and_time(clock)))
}

/// Reads exactly two ASCII digits.
fn two_digits(bytes: &[u8]) -> Option<u16> {
    match bytes {
        [tens @ b'0'..=b'9', ones @ b'0'..=b'9'] => {
            Some(u16::from(tens - b'0') * 10 + u16::from(ones - b'0'))
        }
        _ => None,
    }
}

/// Local midnight starting `date`.
fn start_of(date: NaiveDate) -> NaiveDateTime {
    date.and_time(NaiveTime::MIN)
}

/// Local midnight ending `date`; the calendar's last day ends at the latest representable time.
fn end_of(date: NaiveDate) -> NaiveDateTime {
    date.succ_opt().map_or(NaiveDateTime::MAX, start_of)
}

/// Open or closed, and why, at one local wall-clock time.
fn evaluate(hours: &WeeklyHours, closures: &[Closure], local: NaiveDateTime) -> (bool, Reason) {
    if let Some((index, closure)) = closures
        .iter()
        .enumerate()
        .find(|(_, closure)| closure.start <= local && local < closure.end)
    {
        let reason = Reason::Holiday {
            name: closure.name.clone(),
            index,
        };
        return (false, reason);
    }
    let weekday = local.weekday().num_days_from_sunday() as usize;
    // Whole minutes suffice: a time is in [from, to) exactly when its minute is, seconds and all.
    let minute = (local.hour() * 60 + local.minute()) as Minute;
    let open = hours.days[weekday]
        .iter()
        .any(|interval| interval.from <= minute && minute < interval.to);
    let reason = if open {
        Reason::InsideHours
    } else {
        Reason::OutsideHours
    };
    (open, reason)
}

/// The zone's offset from UTC at `at`, in seconds.
fn offset_seconds(tz: Tz, at: DateTime<Utc>) -> i64 {
    i64::from(
        tz.offset_from_utc_datetime(&at.naive_utc())
            .fix()
            .local_minus_utc(),
    )
}

/// The first whole second in (`low`, `high`] whose offset differs from `low_offset`, given that
/// the offset at `high` differs; transitions always fall on whole seconds.
fn first_transition(
    tz: Tz,
    low: DateTime<Utc>,
    high: DateTime<Utc>,
    low_offset: i64,
) -> DateTime<Utc> {
    let mut low_second = low.timestamp();
    let mut high_second = high.timestamp();
    while high_second - low_second > 1 {
        let middle = low_second + (high_second - low_second) / 2;
        let changed = DateTime::from_timestamp(middle, 0)
            .is_some_and(|instant| offset_seconds(tz, instant) != low_offset);
        if changed {
            high_second = middle;
        } else {
            low_second = middle;
        }
    }
    DateTime::from_timestamp(high_second, 0)
        .filter(|found| *found > low)
        .unwrap_or(high)
}

/// The first instant after `at`, within the horizon, whose (open, reason) differs from the given.
///
/// Time is walked in segments of constant UTC offset: inside one, local time is UTC shifted by a
/// constant, so the answer can only change where local time crosses a midnight, an interval bound
/// or a closure bound, each mapped back to UTC by that one offset. Local times in a DST gap are
/// therefore never produced, repeated ones are produced once per segment (i.e. twice), and the
/// segment ends (the transitions themselves, where local time jumps) are candidates too.
fn next_change(
    hours: &WeeklyHours,
    closures: &[Closure],
    tz: Tz,
    at: DateTime<Utc>,
    open: bool,
) -> Option<DateTime<Utc>> {
    let horizon = at
        .checked_add_signed(TimeDelta::days(HORIZON_DAYS))
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    let mut closure_bounds: Vec<NaiveDateTime> = closures
        .iter()
        .flat_map(|closure| [closure.start, closure.end])
        .collect();
    closure_bounds.sort_unstable();
    closure_bounds.dedup();

    let mut start = at;
    let mut offset = offset_seconds(tz, start);
    let mut local_candidates = Vec::new();
    let mut candidates = Vec::new();
    while start < horizon {
        let probe = start
            .checked_add_signed(TimeDelta::seconds(PROBE_SECONDS))
            .map_or(horizon, |probe| probe.min(horizon));
        let probe_offset = offset_seconds(tz, probe);
        let (end, end_offset) = if probe_offset == offset {
            (probe, probe_offset)
        } else {
            let end = first_transition(tz, start, probe, offset);
            (end, offset_seconds(tz, end))
        };

        let shift = TimeDelta::seconds(offset);
        let local_start = start.naive_utc().checked_add_signed(shift)?;
        let local_end = end.naive_utc().checked_add_signed(shift)?;
        local_candidates.clear();
        local_boundaries(
            hours,
            &closure_bounds,
            local_start,
            local_end,
            &mut local_candidates,
        );
        candidates.clear();
        candidates.extend(
            local_candidates
                .iter()
                .filter_map(|local| local.checked_sub_signed(shift))
                .map(|utc| (utc.and_utc(), offset)),
        );
        candidates.push((end, end_offset));
        candidates.sort_unstable_by_key(|(instant, _)| *instant);
        candidates.dedup_by_key(|(instant, _)| *instant);

        for &(instant, instant_offset) in &candidates {
            let local = instant
                .naive_utc()
                .checked_add_signed(TimeDelta::seconds(instant_offset))?;
            let (candidate_open, _) = evaluate(hours, closures, local);
            // The open/closed state, not the reason: a holiday's end that leaves the line
            // closed (outside hours) is no change a caller can act on.
            if candidate_open != open {
                return Some(instant);
            }
        }
        start = end;
        offset = end_offset;
    }
    None
}

/// Pushes every local time strictly between `local_start` and `local_end` at which the answer
/// may change: each midnight, each interval bound of the day it belongs to, each closure bound.
fn local_boundaries(
    hours: &WeeklyHours,
    closure_bounds: &[NaiveDateTime],
    local_start: NaiveDateTime,
    local_end: NaiveDateTime,
    out: &mut Vec<NaiveDateTime>,
) {
    let inside = |time: &NaiveDateTime| local_start < *time && *time < local_end;
    let mut date = Some(local_start.date());
    while let Some(day) = date.filter(|day| *day <= local_end.date()) {
        let midnight = start_of(day);
        out.push(midnight);
        let weekday = day.weekday().num_days_from_sunday() as usize;
        for interval in &hours.days[weekday] {
            for minute in [interval.from, interval.to] {
                if let Some(time) =
                    midnight.checked_add_signed(TimeDelta::minutes(i64::from(minute)))
                {
                    out.push(time);
                }
            }
        }
        date = day.succ_opt();
    }
    out.retain(inside);
    let first = closure_bounds.partition_point(|time| *time <= local_start);
    let last = closure_bounds.partition_point(|time| *time < local_end);
    if first < last {
        out.extend_from_slice(&closure_bounds[first..last]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use chrono_tz::America::New_York;
    use chrono_tz::Asia::Kolkata;
    use chrono_tz::Australia::Lord_Howe;
    use chrono_tz::Europe::London;
    use chrono_tz::Pacific::Chatham;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    fn local(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M").unwrap()
    }

    fn date(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn iv(from: &str, to: &str) -> Interval {
        Interval {
            from: parse_minute(from, false).unwrap(),
            to: parse_minute(to, true).unwrap(),
        }
    }

    /// The same intervals on each of `days` (0 = Sunday).
    fn hours_on(days: &[usize], intervals: &[Interval]) -> WeeklyHours {
        let mut hours = WeeklyHours::default();
        for &day in days {
            hours.days[day] = intervals.to_vec();
        }
        hours
    }

    const WEEKDAYS: [usize; 5] = [1, 2, 3, 4, 5];
    const ALL_DAYS: [usize; 7] = [0, 1, 2, 3, 4, 5, 6];

    /// Asserts (open, reason, next) for a schedule without closures.
    fn check(hours: &WeeklyHours, tz: Tz, at: &str, open: bool, next: Option<&str>) {
        let got = status(hours, &[], tz, utc(at));
        let reason = if open {
            Reason::InsideHours
        } else {
            Reason::OutsideHours
        };
        let expected = Status {
            open,
            reason,
            next_change_at: next.map(utc),
        };
        assert_eq!(got, expected, "at {at} in {tz}");
    }

    #[test]
    fn parse_minute_accepts_only_strict_hh_mm() {
        assert_eq!(parse_minute("00:00", false), Some(0));
        assert_eq!(parse_minute("23:59", false), Some(1439));
        assert_eq!(parse_minute("09:05", true), Some(545));
        assert_eq!(parse_minute("24:00", true), Some(1440));
        assert_eq!(parse_minute("24:00", false), None);
        for bad in [
            "24:01",
            "25:00",
            "09:60",
            "9:00",
            "09:0",
            "0900",
            "09-00",
            "",
            "09:00 ",
            " 09:00",
            "+9:00",
            "ab:cd",
            "０９:00",
            "09:5a",
        ] {
            assert_eq!(parse_minute(bad, true), None, "{bad:?}");
        }
    }

    #[test]
    fn format_minute_pads_and_round_trips() {
        assert_eq!(format_minute(0), "00:00");
        assert_eq!(format_minute(545), "09:05");
        assert_eq!(format_minute(1439), "23:59");
        assert_eq!(format_minute(1440), "24:00");
        for minute in 0..=1440 {
            assert_eq!(parse_minute(&format_minute(minute), true), Some(minute));
        }
    }

    #[test]
    fn check_day_accepts_touching_and_unsorted_intervals() {
        assert!(check_day(&[]).is_empty());
        assert!(check_day(&[iv("13:00", "24:00"), iv("09:00", "13:00")]).is_empty());
        assert!(check_day(&[iv("00:00", "24:00")]).is_empty());
    }

    #[test]
    fn check_day_reports_backwards_and_overlapping_intervals() {
        let problems = check_day(&[
            iv("09:00", "12:00"),
            iv("11:00", "13:00"),
            iv("17:00", "17:00"),
            iv("18:00", "17:30"),
        ]);
        assert_eq!(
            problems,
            vec![
                (
                    1,
                    "must start at or after the end of the previous interval (09:00-12:00)"
                        .to_owned()
                ),
                (2, "'to' must be after 'from'".to_owned()),
                (3, "'to' must be after 'from'".to_owned()),
            ]
        );
        // A nested interval does not hide the long one from a later overlap; same starts clash.
        let problems = check_day(&[
            iv("14:00", "15:00"),
            iv("09:00", "17:00"),
            iv("10:00", "11:00"),
            iv("09:00", "10:00"),
        ]);
        let message = "must start at or after the end of the previous interval (09:00-17:00)";
        assert_eq!(
            problems,
            vec![
                (0, message.to_owned()),
                (2, message.to_owned()),
                (3, message.to_owned())
            ]
        );
        let too_late = Interval {
            from: 600,
            to: 1441,
        };
        assert_eq!(
            check_day(&[too_late]),
            vec![(0, "'to' must be at most 24:00".to_owned())]
        );
    }

    #[test]
    fn parse_local_bound_reads_dates_and_date_times() {
        assert_eq!(
            parse_local_bound("2026-12-24"),
            Some(LocalBound::Date(date("2026-12-24")))
        );
        assert_eq!(
            parse_local_bound("2026-12-24T13:30"),
            Some(LocalBound::DateTime(local("2026-12-24T13:30")))
        );
        assert_eq!(
            parse_local_bound("2026-12-24T13:30:15"),
            Some(LocalBound::DateTime(
                date("2026-12-24").and_hms_opt(13, 30, 15).unwrap()
            ))
        );
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-1-05",
            "26-01-05",
            "+2026-01-05",
            "2026-01-05 10:00",
            "2026-01-05T24:00",
            "2026-01-05T10:60",
            "2026-01-05T10:00:60",
            "2026-01-05T10",
            "2026-01-05T10:00Z",
            "2026-01-05T10:00:00.5",
            "",
        ] {
            assert_eq!(parse_local_bound(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn closure_constructors_make_inclusive_days_and_exclusive_times() {
        let day = closure_for_date("Christmas", date("2026-12-25"));
        assert_eq!(day.start, local("2026-12-25T00:00"));
        assert_eq!(day.end, local("2026-12-26T00:00"));

        let dates = LocalBound::Date;
        let range = closure_for_range(
            "Break",
            dates(date("2026-12-24")),
            dates(date("2026-12-26")),
        )
        .unwrap();
        assert_eq!(
            (range.start, range.end),
            (local("2026-12-24T00:00"), local("2026-12-27T00:00"))
        );
        // A single date as both ends is that whole day.
        let one =
            closure_for_range("One", dates(date("2026-12-24")), dates(date("2026-12-24"))).unwrap();
        assert_eq!(one.end, local("2026-12-25T00:00"));

        let times = LocalBound::DateTime;
        let mixed = closure_for_range(
            "Mixed",
            times(local("2026-12-24T12:00")),
            dates(date("2026-12-24")),
        )
        .unwrap();
        assert_eq!(
            (mixed.start, mixed.end),
            (local("2026-12-24T12:00"), local("2026-12-25T00:00"))
        );
        let at = local("2026-12-24T12:00");
        assert_eq!(closure_for_range("Empty", times(at), times(at)), None);
        assert_eq!(
            closure_for_range(
                "Backwards",
                dates(date("2026-12-25")),
                times(local("2026-12-24T23:00"))
            ),
            None
        );
        assert_eq!(
            closure_for_range(
                "Backwards",
                dates(date("2026-12-25")),
                dates(date("2026-12-24"))
            ),
            None
        );
    }

    #[test]
    fn empty_schedule_is_closed_forever_and_full_schedule_open_forever() {
        check(
            &WeeklyHours::default(),
            New_York,
            "2026-03-08T06:30:00Z",
            false,
            None,
        );
        let always = hours_on(&ALL_DAYS, &[iv("00:00", "24:00")]);
        // Scans 400 days straight through both DST changes without seeing a change.
        check(&always, New_York, "2026-03-08T06:30:00Z", true, None);
        check(&always, Lord_Howe, "2026-04-04T14:59:59Z", true, None);
    }

    #[test]
    fn new_york_spring_forward_interval_spanning_the_gap_is_one_real_hour() {
        // 2026-03-08 (Sunday): 02:00 EST (-5) jumps to 03:00 EDT (-4) at 07:00Z.
        let hours = hours_on(&[0], &[iv("01:00", "03:00")]);
        // Opens at 01:00 EST = 01:00 + 5h = 06:00Z.
        check(
            &hours,
            New_York,
            "2026-03-08T05:59:00Z",
            false,
            Some("2026-03-08T06:00:00Z"),
        );
        // Closes at 03:00 EDT = 03:00 + 4h = 07:00Z: one real hour.
        check(
            &hours,
            New_York,
            "2026-03-08T06:00:00Z",
            true,
            Some("2026-03-08T07:00:00Z"),
        );
        // Next open: Sunday 2026-03-15 01:00 EDT = 01:00 + 4h = 05:00Z.
        check(
            &hours,
            New_York,
            "2026-03-08T07:00:00Z",
            false,
            Some("2026-03-15T05:00:00Z"),
        );
    }

    #[test]
    fn new_york_spring_forward_interval_ending_inside_the_gap_closes_at_the_jump() {
        let hours = hours_on(&[0], &[iv("01:30", "02:30")]);
        // Opens at 01:30 EST = 01:30 + 5h = 06:30Z.
        check(
            &hours,
            New_York,
            "2026-03-08T06:00:00Z",
            false,
            Some("2026-03-08T06:30:00Z"),
        );
        // 02:30 never exists; the clock jumps from 02:00 EST to 03:00 EDT at 07:00Z.
        check(
            &hours,
            New_York,
            "2026-03-08T06:45:00Z",
            true,
            Some("2026-03-08T07:00:00Z"),
        );
    }

    #[test]
    fn new_york_spring_forward_interval_inside_the_gap_never_happens() {
        let hours = hours_on(&[0], &[iv("02:15", "02:45")]);
        // Skipped on 2026-03-08; next Sunday 2026-03-15 02:15 EDT = 02:15 + 4h = 06:15Z.
        check(
            &hours,
            New_York,
            "2026-03-08T06:59:00Z",
            false,
            Some("2026-03-15T06:15:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-03-08T07:00:00Z",
            false,
            Some("2026-03-15T06:15:00Z"),
        );
    }

    #[test]
    fn new_york_fall_back_interval_spanning_the_overlap_is_three_real_hours() {
        // 2026-11-01 (Sunday): 02:00 EDT (-4) falls back to 01:00 EST (-5) at 06:00Z.
        let hours = hours_on(&[0], &[iv("00:00", "02:00")]);
        // Opens at 00:00 EDT = 00:00 + 4h = 04:00Z; Saturday is closed.
        check(
            &hours,
            New_York,
            "2026-11-01T03:59:00Z",
            false,
            Some("2026-11-01T04:00:00Z"),
        );
        // Stays open through the repeated hour; closes at 02:00 EST = 02:00 + 5h = 07:00Z.
        check(
            &hours,
            New_York,
            "2026-11-01T04:30:00Z",
            true,
            Some("2026-11-01T07:00:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-11-01T06:00:00Z",
            true,
            Some("2026-11-01T07:00:00Z"),
        );
    }

    #[test]
    fn new_york_fall_back_interval_inside_the_repeated_hour_opens_twice() {
        let hours = hours_on(&[0], &[iv("01:15", "01:45")]);
        // 01:15 EDT = 05:15Z .. 01:45 EDT = 05:45Z, then 01:15 EST = 06:15Z .. 01:45 EST = 06:45Z.
        check(
            &hours,
            New_York,
            "2026-11-01T05:00:00Z",
            false,
            Some("2026-11-01T05:15:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-11-01T05:20:00Z",
            true,
            Some("2026-11-01T05:45:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-11-01T05:50:00Z",
            false,
            Some("2026-11-01T06:15:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-11-01T06:20:00Z",
            true,
            Some("2026-11-01T06:45:00Z"),
        );
        // Next Sunday 2026-11-08 01:15 EST = 06:15Z.
        check(
            &hours,
            New_York,
            "2026-11-01T06:45:00Z",
            false,
            Some("2026-11-08T06:15:00Z"),
        );
    }

    #[test]
    fn new_york_fall_back_reopens_at_the_transition_itself() {
        // 00:00-01:30: open 04:00Z-05:30Z (EDT); at 06:00Z local falls back to 01:00 EST,
        // inside the interval again, until 01:30 EST = 06:30Z. No interval bound maps to 06:00Z.
        let hours = hours_on(&[0], &[iv("00:00", "01:30")]);
        check(
            &hours,
            New_York,
            "2026-11-01T05:00:00Z",
            true,
            Some("2026-11-01T05:30:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-11-01T05:30:00Z",
            false,
            Some("2026-11-01T06:00:00Z"),
        );
        check(
            &hours,
            New_York,
            "2026-11-01T06:00:00Z",
            true,
            Some("2026-11-01T06:30:00Z"),
        );
    }

    #[test]
    fn london_spring_forward() {
        // 2026-03-29 (Sunday): 01:00 GMT (+0) jumps to 02:00 BST (+1) at 01:00Z.
        let hours = hours_on(&[0], &[iv("00:30", "01:30")]);
        // Opens 00:30 GMT = 00:30Z; 01:30 never exists, so it closes at the jump, 01:00Z.
        check(
            &hours,
            London,
            "2026-03-29T00:00:00Z",
            false,
            Some("2026-03-29T00:30:00Z"),
        );
        check(
            &hours,
            London,
            "2026-03-29T00:45:00Z",
            true,
            Some("2026-03-29T01:00:00Z"),
        );
        let hours = hours_on(&[0], &[iv("00:00", "03:00")]);
        // 00:00 GMT = 00:00Z .. 03:00 BST = 03:00 - 1h = 02:00Z: two real hours.
        check(
            &hours,
            London,
            "2026-03-29T00:10:00Z",
            true,
            Some("2026-03-29T02:00:00Z"),
        );
    }

    #[test]
    fn london_fall_back() {
        // 2026-10-25 (Sunday): 02:00 BST (+1) falls back to 01:00 GMT (+0) at 01:00Z.
        let hours = hours_on(&[0], &[iv("01:00", "02:00")]);
        // 01:00 BST = 01:00 - 1h = 00:00Z .. 02:00 GMT = 02:00Z: two real hours.
        check(
            &hours,
            London,
            "2026-10-24T23:59:00Z",
            false,
            Some("2026-10-25T00:00:00Z"),
        );
        check(
            &hours,
            London,
            "2026-10-25T00:30:00Z",
            true,
            Some("2026-10-25T02:00:00Z"),
        );
        let hours = hours_on(&[0], &[iv("01:30", "03:00")]);
        // 01:30 BST = 00:30Z opens; at 01:00Z local is 01:00 GMT (closed) until 01:30 GMT =
        // 01:30Z; closes at 03:00 GMT = 03:00Z.
        check(
            &hours,
            London,
            "2026-10-25T00:45:00Z",
            true,
            Some("2026-10-25T01:00:00Z"),
        );
        check(
            &hours,
            London,
            "2026-10-25T01:00:00Z",
            false,
            Some("2026-10-25T01:30:00Z"),
        );
        check(
            &hours,
            London,
            "2026-10-25T01:30:00Z",
            true,
            Some("2026-10-25T03:00:00Z"),
        );
    }

    #[test]
    fn midnight_between_days_is_continuous() {
        // Monday 22:00-24:00 then Tuesday 00:00-02:00, New York in winter (EST, -5).
        let mut hours = WeeklyHours::default();
        hours.days[1] = vec![iv("22:00", "24:00")];
        hours.days[2] = vec![iv("00:00", "02:00")];
        // Monday 2026-01-05 23:00 EST = 2026-01-06 04:00Z; closes Tuesday 02:00 EST = 07:00Z.
        check(
            &hours,
            New_York,
            "2026-01-06T04:00:00Z",
            true,
            Some("2026-01-06T07:00:00Z"),
        );
        // Monday 21:00 EST = 2026-01-06 02:00Z; opens 22:00 EST = 03:00Z.
        check(
            &hours,
            New_York,
            "2026-01-06T02:00:00Z",
            false,
            Some("2026-01-06T03:00:00Z"),
        );
        // Without Tuesday's interval it closes at midnight: Tuesday 00:00 EST = 05:00Z.
        hours.days[2].clear();
        check(
            &hours,
            New_York,
            "2026-01-06T04:00:00Z",
            true,
            Some("2026-01-06T05:00:00Z"),
        );
    }

    #[test]
    fn midnight_across_the_week_boundary_is_continuous() {
        // Saturday 22:00-24:00 then Sunday 00:00-06:00 (index 6 wraps to 0).
        let mut hours = WeeklyHours::default();
        hours.days[6] = vec![iv("22:00", "24:00")];
        hours.days[0] = vec![iv("00:00", "06:00")];
        // Saturday 2026-01-10 23:00 EST = 2026-01-11 04:00Z; closes Sunday 06:00 EST = 11:00Z.
        check(
            &hours,
            New_York,
            "2026-01-11T04:00:00Z",
            true,
            Some("2026-01-11T11:00:00Z"),
        );
        // Sunday 06:00 EST: next opening Saturday 2026-01-17 22:00 EST = 2026-01-18 03:00Z.
        check(
            &hours,
            New_York,
            "2026-01-11T11:00:00Z",
            false,
            Some("2026-01-18T03:00:00Z"),
        );
    }

    #[test]
    fn date_time_holiday_inside_a_day_overrides_open_hours() {
        let hours = hours_on(&WEEKDAYS, &[iv("09:00", "17:00")]);
        let closures = [closure_for_range(
            "Staff meeting",
            LocalBound::DateTime(local("2026-01-05T12:00")),
            LocalBound::DateTime(local("2026-01-05T14:00")),
        )
        .unwrap()];
        // Monday 2026-01-05 11:00 EST = 16:00Z: open until the meeting, 12:00 EST = 17:00Z.
        let before = status(&hours, &closures, New_York, utc("2026-01-05T16:00:00Z"));
        assert_eq!(
            before,
            Status {
                open: true,
                reason: Reason::InsideHours,
                next_change_at: Some(utc("2026-01-05T17:00:00Z")),
            }
        );
        // 12:30 EST = 17:30Z: closed by it until 14:00 EST = 19:00Z, when hours are open again.
        let during = status(&hours, &closures, New_York, utc("2026-01-05T17:30:00Z"));
        assert_eq!(
            during,
            Status {
                open: false,
                reason: Reason::Holiday {
                    name: "Staff meeting".to_owned(),
                    index: 0
                },
                next_change_at: Some(utc("2026-01-05T19:00:00Z")),
            }
        );
        // The end is exclusive: at 14:00 EST it is open until 17:00 EST = 22:00Z.
        let after = status(&hours, &closures, New_York, utc("2026-01-05T19:00:00Z"));
        assert_eq!(
            (after.open, after.next_change_at),
            (true, Some(utc("2026-01-05T22:00:00Z")))
        );
    }

    #[test]
    fn whole_day_holiday_on_an_always_open_schedule() {
        let hours = hours_on(&ALL_DAYS, &[iv("00:00", "24:00")]);
        let closures = [closure_for_date("Christmas", date("2026-12-25"))];
        // Starts 2026-12-25 00:00 EST = 05:00Z.
        let before = status(&hours, &closures, New_York, utc("2026-12-25T04:00:00Z"));
        assert_eq!(
            (before.open, before.next_change_at),
            (true, Some(utc("2026-12-25T05:00:00Z")))
        );
        // Ends 2026-12-26 00:00 EST = 05:00Z; then open with nothing left to change it.
        let during = status(&hours, &closures, New_York, utc("2026-12-25T10:00:00Z"));
        assert!(!during.open);
        assert_eq!(during.next_change_at, Some(utc("2026-12-26T05:00:00Z")));
        let after = status(&hours, &closures, New_York, utc("2026-12-26T05:00:00Z"));
        assert_eq!((after.open, after.next_change_at), (true, None));
    }

    #[test]
    fn date_range_holiday_includes_its_last_date() {
        let hours = hours_on(&WEEKDAYS, &[iv("09:00", "17:00")]);
        let closures = [closure_for_range(
            "Winter break",
            LocalBound::Date(date("2026-12-24")),
            LocalBound::Date(date("2026-12-28")),
        )
        .unwrap()];
        // Thursday 2026-12-24 10:00 EST = 15:00Z: closed through Monday 2026-12-28 inclusive,
        // which ends at Tuesday 00:00 EST = 2026-12-29 05:00Z; the line reopens Tuesday 09:00
        // EST = 14:00Z, which is the next change (the reason's change at midnight is not).
        let during = status(&hours, &closures, New_York, utc("2026-12-24T15:00:00Z"));
        assert_eq!(
            during.reason,
            Reason::Holiday {
                name: "Winter break".to_owned(),
                index: 0
            }
        );
        assert_eq!(during.next_change_at, Some(utc("2026-12-29T14:00:00Z")));
        // Monday 2026-12-28 12:00 EST = 17:00Z is inside the last date.
        let last_day = status(&hours, &closures, New_York, utc("2026-12-28T17:00:00Z"));
        assert!(!last_day.open);
        // Then Tuesday opens at 09:00 EST = 14:00Z.
        let after = status(&hours, &closures, New_York, utc("2026-12-29T05:00:00Z"));
        assert_eq!(
            (after.open, after.reason, after.next_change_at),
            (
                false,
                Reason::OutsideHours,
                Some(utc("2026-12-29T14:00:00Z"))
            )
        );
    }

    #[test]
    fn overlapping_holidays_report_the_first_and_adjacent_ones_change_reason() {
        let hours = hours_on(&ALL_DAYS, &[iv("00:00", "24:00")]);
        let closures = [
            closure_for_date("A", date("2026-07-04")),
            closure_for_range(
                "B",
                LocalBound::Date(date("2026-07-03")),
                LocalBound::Date(date("2026-07-05")),
            )
            .unwrap(),
        ];
        // 2026-07-03 12:00 EDT (-4) = 16:00Z: only B; A starts 07-04 00:00 EDT = 04:00Z.
        let first = status(&hours, &closures, New_York, utc("2026-07-03T16:00:00Z"));
        assert_eq!(
            first.reason,
            Reason::Holiday {
                name: "B".to_owned(),
                index: 1
            }
        );
        // Closed throughout both: the line reopens when B ends, 07-06 00:00 EDT = 04:00Z.
        assert_eq!(first.next_change_at, Some(utc("2026-07-06T04:00:00Z")));
        // Inside both: A wins; at A's end (07-05 00:00 EDT = 04:00Z) B remains.
        let both = status(&hours, &closures, New_York, utc("2026-07-04T16:00:00Z"));
        assert_eq!(
            both.reason,
            Reason::Holiday {
                name: "A".to_owned(),
                index: 0
            }
        );
        assert_eq!(both.next_change_at, Some(utc("2026-07-06T04:00:00Z")));
    }

    #[test]
    fn holiday_spanning_a_fall_back_night_is_closed_for_local_times() {
        // A whole-day closure on 2026-11-01 in New York lasts 25 real hours:
        // 00:00 EDT = 04:00Z .. 2026-11-02 00:00 EST = 05:00Z.
        let hours = hours_on(&ALL_DAYS, &[iv("00:00", "24:00")]);
        let closures = [closure_for_date("Fall back", date("2026-11-01"))];
        let during = status(&hours, &closures, New_York, utc("2026-11-01T05:30:00Z"));
        assert!(!during.open);
        assert_eq!(during.next_change_at, Some(utc("2026-11-02T05:00:00Z")));
    }

    #[test]
    fn kolkata_half_hour_offset() {
        // Asia/Kolkata is +05:30 all year.
        let hours = hours_on(&WEEKDAYS, &[iv("09:00", "18:00")]);
        // Monday 2026-01-05 09:00 IST = 09:00 - 5:30 = 03:30Z.
        check(
            &hours,
            Kolkata,
            "2026-01-05T03:00:00Z",
            false,
            Some("2026-01-05T03:30:00Z"),
        );
        // Closes 18:00 IST = 12:30Z.
        check(
            &hours,
            Kolkata,
            "2026-01-05T03:30:00Z",
            true,
            Some("2026-01-05T12:30:00Z"),
        );
        // Friday 2026-01-09 18:00 IST = 12:30Z; next Monday 2026-01-12 09:00 IST = 03:30Z.
        check(
            &hours,
            Kolkata,
            "2026-01-09T12:30:00Z",
            false,
            Some("2026-01-12T03:30:00Z"),
        );
    }

    #[test]
    fn lord_howe_half_hour_dst_end() {
        // 2026-04-05 (Sunday): 02:00 LHDT (+11) falls back to 01:30 LHST (+10:30) at
        // 02:00 - 11h = 2026-04-04 15:00Z; local 01:30-02:00 happens twice.
        let hours = hours_on(&[0], &[iv("01:00", "02:00")]);
        // 01:00 LHDT = 01:00 - 11h = 2026-04-04 14:00Z opens; closes 02:00 LHST = 02:00 - 10:30 =
        // 15:30Z, i.e. 90 real minutes.
        check(
            &hours,
            Lord_Howe,
            "2026-04-04T13:59:00Z",
            false,
            Some("2026-04-04T14:00:00Z"),
        );
        check(
            &hours,
            Lord_Howe,
            "2026-04-04T14:30:00Z",
            true,
            Some("2026-04-04T15:30:00Z"),
        );
        let hours = hours_on(&[0], &[iv("01:00", "01:45")]);
        // 01:45 LHDT = 14:45Z closes; reopens at the fall-back (local 01:30 LHST) 15:00Z;
        // closes 01:45 LHST = 01:45 - 10:30 = 15:15Z.
        check(
            &hours,
            Lord_Howe,
            "2026-04-04T14:45:00Z",
            false,
            Some("2026-04-04T15:00:00Z"),
        );
        check(
            &hours,
            Lord_Howe,
            "2026-04-04T15:00:00Z",
            true,
            Some("2026-04-04T15:15:00Z"),
        );
    }

    #[test]
    fn lord_howe_half_hour_dst_start() {
        // 2026-10-04 (Sunday): 02:00 LHST (+10:30) jumps to 02:30 LHDT (+11) at
        // 02:00 - 10:30 = 2026-10-03 15:30Z.
        let hours = hours_on(&[0], &[iv("01:00", "02:15")]);
        // 01:00 LHST = 14:30Z opens; 02:15 never exists, so it closes at the jump, 15:30Z.
        check(
            &hours,
            Lord_Howe,
            "2026-10-03T14:00:00Z",
            false,
            Some("2026-10-03T14:30:00Z"),
        );
        check(
            &hours,
            Lord_Howe,
            "2026-10-03T15:00:00Z",
            true,
            Some("2026-10-03T15:30:00Z"),
        );
    }

    #[test]
    fn chatham_quarter_hour_offset_on_a_different_utc_date() {
        // Pacific/Chatham in January is +13:45 (CHADT).
        let hours = hours_on(&WEEKDAYS, &[iv("09:00", "17:00")]);
        // Monday 2026-01-05 09:00 +13:45 = 2026-01-04 19:15Z (a Sunday in UTC).
        check(
            &hours,
            Chatham,
            "2026-01-04T19:00:00Z",
            false,
            Some("2026-01-04T19:15:00Z"),
        );
        // Closes 17:00 +13:45 = 03:15Z on 2026-01-05.
        check(
            &hours,
            Chatham,
            "2026-01-04T19:15:00Z",
            true,
            Some("2026-01-05T03:15:00Z"),
        );
    }

    #[test]
    fn sub_second_instants_and_exact_boundaries() {
        let hours = hours_on(&WEEKDAYS, &[iv("09:00", "17:00")]);
        // 08:59:59.5 EST is closed; 09:00 EST = 14:00Z is the change, strictly after `at`.
        let at = utc("2026-01-05T13:59:59.500Z");
        let got = status(&hours, &[], New_York, at);
        assert_eq!(
            (got.open, got.next_change_at),
            (false, Some(utc("2026-01-05T14:00:00Z")))
        );
        // At exactly the opening the answer is open and the next change is the closing.
        check(
            &hours,
            New_York,
            "2026-01-05T14:00:00Z",
            true,
            Some("2026-01-05T22:00:00Z"),
        );
    }

    #[test]
    fn horizon_is_400_days() {
        let hours = hours_on(&ALL_DAYS, &[iv("00:00", "24:00")]);
        let near = [closure_for_date("Near", date("2027-01-01"))];
        let far = [closure_for_date("Far", date("2028-01-01"))];
        let at = utc("2026-01-01T12:00:00Z");
        // 2027-01-01 00:00 EST = 05:00Z, 365 days ahead: found.
        assert_eq!(
            status(&hours, &near, New_York, at).next_change_at,
            Some(utc("2027-01-01T05:00:00Z"))
        );
        // 2028-01-01 is 730 days ahead: beyond the horizon.
        assert_eq!(status(&hours, &far, New_York, at).next_change_at, None);
    }

    #[test]
    fn next_change_agrees_with_a_minute_by_minute_scan_around_transitions() {
        // Every bound and offset here is a whole minute, so stepping minutes sees every change.
        let schedules = [
            hours_on(&ALL_DAYS, &[iv("00:00", "01:30"), iv("02:15", "03:00")]),
            hours_on(&ALL_DAYS, &[iv("01:15", "01:45"), iv("22:00", "24:00")]),
            hours_on(&[0, 6], &[iv("01:00", "02:30")]),
        ];
        let closures = [closure_for_range(
            "Night",
            LocalBound::DateTime(local("2026-11-01T01:40")),
            LocalBound::DateTime(local("2026-11-01T02:10")),
        )
        .unwrap()];
        let windows = [
            (New_York, "2026-03-07T00:00:00Z"),
            (New_York, "2026-10-31T00:00:00Z"),
            (London, "2026-03-28T00:00:00Z"),
            (London, "2026-10-24T00:00:00Z"),
            (Lord_Howe, "2026-04-03T00:00:00Z"),
            (Lord_Howe, "2026-10-02T00:00:00Z"),
        ];
        const MINUTES: i64 = 3 * 1440;
        for hours in &schedules {
            for (tz, first) in windows {
                let instants: Vec<DateTime<Utc>> = (0..MINUTES)
                    .map(|step| utc(first) + TimeDelta::minutes(step))
                    .collect();
                let truth: Vec<(bool, Reason)> = instants
                    .iter()
                    .map(|at| evaluate(hours, &closures, at.with_timezone(&tz).naive_local()))
                    .collect();
                // Every 7th minute as `at` keeps the debug-build run short; the truth stays per minute.
                for (index, at) in instants.iter().enumerate().step_by(7) {
                    let got = status(hours, &closures, tz, *at);
                    assert_eq!((got.open, got.reason.clone()), truth[index]);
                    let expected = (index + 1..instants.len())
                        .find(|later| truth[*later].0 != truth[index].0)
                        .map(|later| instants[later]);
                    if let Some(expected) = expected {
                        assert_eq!(got.next_change_at, Some(expected), "at {at} in {tz}");
                    } else {
                        assert!(got.next_change_at > instants.last().copied());
                    }
                }
            }
        }
    }

    #[test]
    fn weekly_schedule_answers_quickly() {
        let hours = hours_on(&WEEKDAYS, &[iv("09:00", "12:00"), iv("13:00", "17:00")]);
        let start = std::time::Instant::now();
        let mut at = utc("2026-03-06T22:30:00Z");
        for _ in 0..1000 {
            let got = status(&hours, &[], New_York, at);
            assert!(got.next_change_at.is_some());
            at += TimeDelta::minutes(17);
        }
        // Generous for unoptimised builds on a busy machine; release builds are far faster.
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
