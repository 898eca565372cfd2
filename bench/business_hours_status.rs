//! Times one business-hours `status` evaluation on the worst schedule the API accepts:
//! 48 intervals on each of the 7 days and 366 holidays, in a time zone with daylight
//! saving, at instants spread over a year (each answer also finds the next change, up to
//! the 400-day horizon). Run: `cargo run --release --example business_hours_status`;
//! `-- --short` makes 50 evaluations instead of 2,000 (CI's check that it runs).

#![allow(clippy::unwrap_used)]

use std::time::Instant;

use chrono::{Days, Duration, NaiveDate, TimeZone, Utc};
use switchboard_domain::records::business_hour::{MAX_HOLIDAYS, MAX_INTERVALS_PER_DAY};
use switchboard_domain::schedule::{self, Closure, Interval, WeeklyHours};

fn main() {
    // Intervals of 20 minutes every half hour: as many bounds as a day may hold.
    let day: Vec<Interval> = (0..MAX_INTERVALS_PER_DAY)
        .map(|i| {
            let from = u16::try_from(i * 30).unwrap();
            Interval {
                from,
                to: from + 20,
            }
        })
        .collect();
    let hours = WeeklyHours {
        days: std::array::from_fn(|_| day.clone()),
    };
    // Short closures on every other day: each one a change the walk must step over.
    let closures: Vec<Closure> = (0..MAX_HOLIDAYS)
        .map(|i| {
            let date = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + Days::new(2 * i as u64);
            Closure {
                name: format!("closed {i}"),
                start: date.and_hms_opt(10, 0, 0).unwrap(),
                end: date.and_hms_opt(11, 0, 0).unwrap(),
            }
        })
        .collect();
    let tz: chrono_tz::Tz = "America/New_York".parse().unwrap();
    let start = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let short = std::env::args().any(|arg| arg == "--short");
    let samples = if short { 50 } else { 2000 };
    let mut times = Vec::with_capacity(samples);
    for n in 0..samples {
        // Spread over a year, at odd minutes so every kind of instant is met.
        let at = start + Duration::minutes(263 * n as i64 + 7);
        let began = Instant::now();
        let status = schedule::status(&hours, &closures, tz, at);
        times.push(began.elapsed());
        std::hint::black_box(status);
    }
    // The case with the longest walk: no change for the whole horizon except the holidays'
    // absence, i.e. a schedule that never opens while closures remain.
    let never = WeeklyHours {
        days: std::array::from_fn(|_| Vec::new()),
    };
    let began = Instant::now();
    std::hint::black_box(schedule::status(&never, &closures, tz, start));
    let closed_walk = began.elapsed();
    times.sort();
    let pick = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "worst allowed schedule ({} intervals/day, {} holidays), {samples} evaluations:",
        MAX_INTERVALS_PER_DAY, MAX_HOLIDAYS
    );
    println!(
        "  p50 {:?}  p95 {:?}  p99 {:?}  max {:?}",
        pick(0.5),
        pick(0.95),
        pick(0.99),
        times[times.len() - 1]
    );
    println!("  never open, 366 holidays (walk to the 400-day horizon): {closed_walk:?}");
}
