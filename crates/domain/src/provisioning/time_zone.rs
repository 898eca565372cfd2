//! Time-zone maths for phones that take a POSIX rule or an offset and clock changes
//! rather than a zone name: the standard offset, daylight saving's start and end.

use chrono::{Datelike, Offset, TimeZone, Timelike, Utc};

/// The zone's standard offset from UTC in seconds and whether it observes daylight
/// saving time, judged from its offsets in January and July of `year`.
pub fn zone_offsets(timezone: &str, year: i32) -> (i32, bool) {
    let Ok(tz) = timezone.parse::<chrono_tz::Tz>() else {
        return (0, false);
    };
    let at = |month| {
        tz.with_ymd_and_hms(year, month, 1, 12, 0, 0)
            .single()
            .map_or(0, |t| t.offset().fix().local_minus_utc())
    };
    let (january, july) = (at(1), at(7));
    (january.min(july), january != july)
}

/// One change of a zone's clocks, as the rules of phones state it: in `month`, on the
/// `week`th (5: the last) `weekday` (0 Sunday to 6 Saturday), at `seconds` after local
/// midnight on the clock before the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockChange {
    /// 1 to 12.
    pub month: u32,
    /// 1 to 4, or 5 for the last such weekday of the month.
    pub week: u32,
    /// 0 Sunday to 6 Saturday.
    pub weekday: u32,
    /// Seconds after local midnight, on the clock before the change.
    pub seconds: u32,
}

/// A zone's clock in `year`: its standard offset from UTC in seconds and, when it
/// observes daylight saving time, when that starts and ends and how many seconds it adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneRule {
    /// Standard time's offset from UTC, in seconds.
    pub standard: i32,
    /// Start, end and the seconds added, for a zone with daylight saving time.
    pub dst: Option<(ClockChange, ClockChange, i32)>,
}

/// The rule of `timezone` in `year`, read from the zone database: the year's clock
/// changes are found hour by hour, then to the minute.
pub fn zone_rule(timezone: &str, year: i32) -> ZoneRule {
    let Ok(tz) = timezone.parse::<chrono_tz::Tz>() else {
        return ZoneRule {
            standard: 0,
            dst: None,
        };
    };
    let offset = |t: chrono::DateTime<Utc>| tz.offset_from_utc_datetime(&t.naive_utc()).fix();
    let Some(start) = Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).single() else {
        return ZoneRule {
            standard: 0,
            dst: None,
        };
    };
    // The first moment on a new clock after `from`, within `step` of it, to the minute.
    let narrow = |from: chrono::DateTime<Utc>, step: chrono::Duration| {
        let mut at = from;
        for unit in [chrono::Duration::hours(1), chrono::Duration::minutes(1)] {
            while at + unit <= from + step && offset(at + unit) == offset(from) {
                at += unit;
            }
        }
        at + chrono::Duration::minutes(1)
    };
    let mut changes = Vec::new();
    let day = chrono::Duration::days(1);
    let mut at = start;
    while at.year() == year {
        let next = at + day;
        if offset(next) != offset(at) {
            let minute = narrow(at, day);
            let before = offset(at).local_minus_utc();
            let after = offset(minute).local_minus_utc();
            let local = (minute + chrono::Duration::seconds(i64::from(before))).naive_utc();
            let days = days_in_month(local.year(), local.month());
            let change = ClockChange {
                month: local.month(),
                week: if local.day() + 7 > days {
                    5
                } else {
                    (local.day() - 1) / 7 + 1
                },
                weekday: local.weekday().num_days_from_sunday(),
                seconds: local.num_seconds_from_midnight(),
            };
            changes.push((change, before, after));
        }
        at = next;
    }
    let (january, july) = (offset(start), offset(start + chrono::Duration::days(182)));
    let standard = january.local_minus_utc().min(july.local_minus_utc());
    let begins = changes.iter().find(|(_, before, after)| after > before);
    let ends = changes.iter().find(|(_, before, after)| after < before);
    ZoneRule {
        standard,
        dst: begins
            .zip(ends)
            .map(|((on, before, after), (off, _, _))| (*on, *off, after - before)),
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    let (y, m) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    chrono::NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|d| d.pred_opt())
        .map_or(31, |d| d.day())
}

/// `[+-]H[:MM]` of an offset in seconds.
fn hours(seconds: i32, sign_always: bool) -> String {
    let sign = if seconds < 0 {
        "-"
    } else if sign_always {
        "+"
    } else {
        ""
    };
    let minutes = seconds.unsigned_abs() / 60;
    match minutes % 60 {
        0 => format!("{sign}{}", minutes / 60),
        m => format!("{sign}{}:{m:02}", minutes / 60),
    }
}

/// A POSIX `TZ` string of `rule` (`STD+5DST+4,M3.2.0/2:00:00,M11.1.0/2:00:00`), whose
/// offsets are hours west of UTC.
pub fn posix_tz(rule: &ZoneRule) -> String {
    let mut out = format!("STD{}", hours(-rule.standard, true));
    if let Some((on, off, save)) = rule.dst {
        let at = |c: ClockChange| {
            format!(
                "M{}.{}.{}/{}:{:02}:{:02}",
                c.month,
                c.week,
                c.weekday,
                c.seconds / 3600,
                c.seconds / 60 % 60,
                c.seconds % 60
            )
        };
        out.push_str(&format!(
            "DST{},{},{}",
            hours(-(rule.standard + save), true),
            at(on),
            at(off)
        ));
    }
    out
}
