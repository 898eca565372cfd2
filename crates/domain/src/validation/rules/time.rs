//! Time: IANA time zones, calendar dates and instants.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde_json::{Value, json};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::{Ref, RefOr};

use super::*;
use crate::validation::{At, Field, Raw, Rule};

/// An IANA time zone name such as `America/New_York`, documented once as the `TimeZone`
/// schema (an enumeration of every name the reader accepts).
#[derive(Clone, Copy, Debug)]
pub struct TimeZone;

impl Field for TimeZone {
    type Output = String;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<String> {
        let checked = as_str(Raw::Json(value)).and_then(|s| {
            s.parse::<chrono_tz::Tz>()
                .map(|tz| tz.name().to_owned())
                .map_err(|_| "must be an IANA time zone name".into())
        });
        checked.map_err(|message| at.problem(message)).ok()
    }

    fn field_schema(&self) -> RefOr<Schema> {
        RefOr::Ref(Ref::from_schema_name("TimeZone"))
    }

    fn field_example(&self) -> Value {
        json!("America/New_York")
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        if out.iter().all(|(name, _)| name != "TimeZone") {
            let names = ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some("An IANA time zone name."))
                .enum_values(Some(chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name())));
            out.push(("TimeZone".into(), RefOr::T(names.into())));
        }
    }
}

/// The pattern of a calendar date `YYYY-MM-DD` that exists (leap years included), so the
/// document refuses 2026-02-30 as the reader does.
pub const DATE_PATTERN: &str = concat!(
    "(?:[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)",
    "|(?:0[13578]|1[02])-31)|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])",
    "|(?:[02468][048]|[13579][26])00)-02-29)"
);

/// A calendar date, `YYYY-MM-DD`, kept as written.
#[derive(Clone, Copy, Debug)]
pub struct Date;

impl Date {
    /// Parses exactly `YYYY-MM-DD` (chrono's `%Y` also takes signs and longer years).
    pub fn parse(text: &str) -> Option<NaiveDate> {
        let b = text.as_bytes();
        let digits = |r: std::ops::Range<usize>| {
            b[r].iter().try_fold(0u32, |n, d| {
                d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
            })
        };
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        NaiveDate::from_ymd_opt(
            i32::try_from(digits(0..4)?).ok()?,
            digits(5..7)?,
            digits(8..10)?,
        )
    }
}

impl Rule for Date {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        Date::parse(s)
            .map(|_| s.to_owned())
            .ok_or_else(|| "must be a date (YYYY-MM-DD)".into())
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
            .pattern(Some(format!("^{DATE_PATTERN}$")))
            .into()
    }
    fn example(&self) -> Value {
        json!("2026-12-24")
    }
}

/// An instant: an RFC 3339 date-time with offset, answered as UTC.
#[derive(Clone, Copy, Debug)]
pub struct Instant;

impl Rule for Instant {
    type Output = DateTime<Utc>;
    fn check(&self, raw: Raw<'_>) -> Result<DateTime<Utc>, String> {
        let s = as_str(raw)?;
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| "must be an RFC 3339 date-time such as 2026-03-08T07:30:00Z".into())
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .into()
    }
    fn example(&self) -> Value {
        json!("2026-12-24T09:00:00Z")
    }
}

/// An instant as ISO 8601 UTC with seconds.
pub fn iso(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_exist() {
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2026-02-29").is_none());
        assert!(Date::parse("2026-13-01").is_none());
        assert!(Date::parse("+2026-01-01").is_none());
        assert!(Date::parse("2026-1-01").is_none());
    }
}
