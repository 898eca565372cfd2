//! The rules shared by every record: texts, dial strings, integers, ids, enumerations,
//! e-mail addresses, URLs, time zones, dates, flags, and arrays and nested objects of
//! them. Each checks a value, documents itself as a JSON Schema, and offers an example.

use std::marker::PhantomData;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde_json::{Value, json};
use utoipa::openapi::schema::{
    ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::{Ref, RefOr};

use super::{At, Field, Raw, Rule};
use crate::declare::Declared;

/// The pattern of a text that holds no NUL character (PostgreSQL text cannot).
pub const NO_NUL_PATTERN: &str = "^[^\\u0000]*$";

/// Space and control characters (C0, space, DEL, C1, and Unicode's spaces), as a class
/// body, written out rather than `\s` because regular-expression engines disagree on it.
const SPACE_OR_CONTROL: &str =
    "\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/// Whether `c` is in [`SPACE_OR_CONTROL`].
fn space_or_control(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// The text of a raw value, refusing non-strings and NUL.
pub(crate) fn as_str<'a>(raw: Raw<'a>) -> Result<&'a str, String> {
    let s = match raw {
        Raw::Json(Value::String(s)) => s.as_str(),
        Raw::Text(s) => s,
        Raw::Json(_) => return Err("must be a string".into()),
    };
    // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
    if s.contains('\0') {
        return Err("must not contain NUL characters".into());
    }
    Ok(s)
}

fn check_length(s: &str, min: usize, max: usize) -> Result<(), String> {
    let n = s.chars().count();
    if n < min {
        Err(format!(
            "must be at least {min} character{}",
            if min == 1 { "" } else { "s" }
        ))
    } else if n > max {
        Err(format!("must be at most {max} characters"))
    } else {
        Ok(())
    }
}

/// A string schema of `min..=max` characters matching `pattern`.
pub fn string_schema(min: usize, max: usize, pattern: &str) -> ObjectBuilder {
    let mut builder = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern));
    if min > 0 {
        builder = builder.min_length(Some(min));
    }
    if max < usize::MAX {
        builder = builder.max_length(Some(max));
    }
    builder
}

/// An integer schema of `min..=max`.
pub fn integer_schema(min: i64, max: i64) -> ObjectBuilder {
    let mut builder = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)));
    if min > i64::MIN {
        builder = builder.minimum(Some(min as f64));
    }
    if max < i64::MAX {
        builder = builder.maximum(Some(max as f64));
    }
    builder
}

/// A string of `fill` repeated to a length within `min..=max` (near `preferred`).
fn sample(fill: &str, min: usize, max: usize, preferred: usize) -> String {
    let n = preferred.clamp(min, max.max(min));
    fill.chars().cycle().take(n).collect()
}

/// A string of `min..=max` characters (Unicode scalar values, as JSON Schema counts).
#[derive(Clone, Copy, Debug)]
pub struct Text {
    /// Fewest characters.
    pub min: usize,
    /// Most characters.
    pub max: usize,
}

/// A string of `min..=max` characters.
pub const fn text(min: usize, max: usize) -> Text {
    Text { min, max }
}

impl Rule for Text {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        check_length(s, self.min, self.max)?;
        Ok(s.to_owned())
    }
    fn schema(&self) -> Schema {
        string_schema(self.min, self.max, NO_NUL_PATTERN).into()
    }
    fn example(&self) -> Value {
        json!(sample("Example ", self.min, self.max, 7))
    }
}

/// A string whose every character passes a test, described by a regular expression for
/// the API document and messages.
#[derive(Clone, Copy, Debug)]
pub struct Chars {
    /// Fewest characters.
    pub min: usize,
    /// Most characters.
    pub max: usize,
    /// The pattern the test implements, as published in the OpenAPI document.
    pub pattern: &'static str,
    /// The test for one character.
    pub allowed: fn(char) -> bool,
    /// Characters an example is made of.
    pub sample: &'static str,
}

impl Rule for Chars {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        check_length(s, self.min, self.max)?;
        if s.chars().all(self.allowed) {
            Ok(s.to_owned())
        } else {
            Err(format!("must match pattern {}", self.pattern))
        }
    }
    fn schema(&self) -> Schema {
        string_schema(self.min, self.max, self.pattern).into()
    }
    fn example(&self) -> Value {
        json!(sample(self.sample, self.min, self.max, 4))
    }
}

/// The pattern of a dialable number: digits, `*`, `#` and `+`.
pub const DIAL_PATTERN: &str = "^[0-9*#+]+$";

/// A dialable string (an extension or paging group number) of `min..=max` characters;
/// an empty string when `min` is 0.
pub const fn dial(min: usize, max: usize) -> Chars {
    Chars {
        min,
        max,
        pattern: if min == 0 {
            "^[0-9*#+]*$"
        } else {
            DIAL_PATTERN
        },
        allowed: |c| c.is_ascii_digit() || matches!(c, '*' | '#' | '+'),
        sample: "4207",
    }
}

/// The feature codes the platform's dial plan answers itself (documented in
/// `docs/decisions.md`); every number starting with `*` is kept for them and later ones.
pub const FEATURE_CODES: &[(&str, &str)] = &[
    ("*97", "own voicemail"),
    ("*98", "any mailbox"),
    ("*8", "call pickup"),
    ("*72", "call forwarding on"),
    ("*73", "call forwarding off"),
    ("*78", "do not disturb on"),
    ("*79", "do not disturb off"),
    ("*69", "last caller"),
];

/// A number of the tenant's dial plan (an extension, IVR, paging group, …): dial
/// characters, not starting with `*`, which is the platform's feature-code space.
#[derive(Clone, Copy, Debug)]
pub struct PlanNumber {
    /// The characters and lengths accepted.
    pub chars: Chars,
}

/// The pattern of a dial-plan number: dial characters, the first not `*`.
pub const PLAN_PATTERN: &str = "^[0-9#+][0-9*#+]*$";

/// A dial-plan number of `min..=max` characters (`min` at least 1).
pub const fn plan_number(min: usize, max: usize) -> PlanNumber {
    PlanNumber {
        chars: Chars {
            min,
            max,
            pattern: PLAN_PATTERN,
            allowed: |c| c.is_ascii_digit() || matches!(c, '*' | '#' | '+'),
            sample: "4207",
        },
    }
}

impl Rule for PlanNumber {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = self.chars.check(raw)?;
        if s.starts_with('*') {
            return Err(format!(
                "must not start with * (the platform's feature codes, such as *97 for voicemail); must match pattern {PLAN_PATTERN}"
            ));
        }
        Ok(s)
    }
    fn schema(&self) -> Schema {
        self.chars.schema()
    }
    fn example(&self) -> Value {
        self.chars.example()
    }
}

/// An integer in `min..=max`.
#[derive(Clone, Copy, Debug)]
pub struct Int {
    /// Smallest accepted value.
    pub min: i64,
    /// Largest accepted value.
    pub max: i64,
}

/// An integer in `min..=max`.
pub const fn int(min: i64, max: i64) -> Int {
    Int { min, max }
}

/// A 0/1 flag.
pub const FLAG: Int = int(0, 1);

impl Rule for Int {
    type Output = i64;
    fn check(&self, raw: Raw<'_>) -> Result<i64, String> {
        let n = match raw {
            Raw::Json(Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => i,
                // JSON Schema counts 2.0 as an integer; so do we, within range.
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => f as i64,
                (None, Some(f)) if f.fract() != 0.0 => return Err("must be an integer".into()),
                (None, Some(f)) if f < 0.0 => return Err(format!("must be at least {}", self.min)),
                _ => return Err(format!("must be at most {}", self.max)),
            },
            Raw::Json(_) => return Err("must be an integer".into()),
            Raw::Text(s) => parse_query_int(s).ok_or("must be an integer")?,
        };
        if n < self.min {
            Err(format!("must be at least {}", self.min))
        } else if n > self.max {
            Err(format!("must be at most {}", self.max))
        } else {
            Ok(n)
        }
    }
    fn schema(&self) -> Schema {
        integer_schema(self.min, self.max).into()
    }
    fn example(&self) -> Value {
        json!(1.clamp(self.min, self.max))
    }
}

/// A strict 1-or-0 switch: only the JSON integers `1` and `0` (in a query string the
/// texts `1` and `0`). Unlike [`FLAG`], `1.0`, `true` and `"1"` are refused: the release
/// notes fix `ivrBulk` as "1 or 0", and a client sending anything else has a bug worth
/// telling it about.
#[derive(Clone, Copy, Debug)]
pub struct Bit;

impl Rule for Bit {
    type Output = i64;
    fn check(&self, raw: Raw<'_>) -> Result<i64, String> {
        let n = match raw {
            // `as_i64` is `None` for numbers written with a fraction or exponent (`1.0`).
            Raw::Json(Value::Number(n)) => n.as_i64(),
            Raw::Text(s) => parse_query_int(s),
            Raw::Json(_) => None,
        };
        match n {
            Some(n @ (0 | 1)) => Ok(n),
            _ => Err("must be 1 or 0".into()),
        }
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .enum_values(Some([1, 0]))
            .into()
    }
    fn example(&self) -> Value {
        json!(1)
    }
}

/// Parses a query-string integer in canonical form: an optional `-`, then ASCII digits
/// without leading zeros (`^-?(0|[1-9][0-9]*)$`), nothing else.
fn parse_query_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    s.parse().ok().or_else(|| {
        // All digits but out of i64's range: saturate so the range check names the bound.
        Some(if s.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        })
    })
}

/// The pattern of a record id in a path or query string.
pub const ID_PATTERN: &str = "^[1-9][0-9]*$";

/// A record id: a positive integer in a body; in a query string, digits matching
/// [`ID_PATTERN`] (beyond the id range they name no record, so they saturate).
#[derive(Clone, Copy, Debug)]
pub struct Id;

/// The record id rule.
pub const ID: Id = Id;

impl Rule for Id {
    type Output = i64;
    fn check(&self, raw: Raw<'_>) -> Result<i64, String> {
        match raw {
            Raw::Json(_) => int(1, i64::MAX).check(raw),
            Raw::Text(s) => {
                let well_formed = s
                    .as_bytes()
                    .first()
                    .is_some_and(|b| (b'1'..=b'9').contains(b))
                    && s.bytes().all(|b| b.is_ascii_digit());
                if well_formed {
                    Ok(s.parse().unwrap_or(i64::MAX))
                } else {
                    Err(format!("must match pattern {ID_PATTERN}"))
                }
            }
        }
    }
    fn schema(&self) -> Schema {
        integer_schema(1, i64::MAX).into()
    }
    fn query_schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(ID_PATTERN))
            .into()
    }
    fn example(&self) -> Value {
        json!(1)
    }
}

/// One of a fixed set of strings.
#[derive(Clone, Copy, Debug)]
pub struct OneOf(pub &'static [&'static str]);

impl Rule for OneOf {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        if self.0.contains(&s) {
            Ok(s.to_owned())
        } else {
            Err(format!("must be one of: {}", self.0.join(", ")))
        }
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(self.0.iter().copied()))
            .into()
    }
    fn example(&self) -> Value {
        json!(self.0.first().copied().unwrap_or_default())
    }
}

/// An e-mail address: `local@domain.tld`, at most 254 characters, without spaces or
/// control characters; kept as written but compared case-insensitively by the store.
#[derive(Clone, Copy, Debug)]
pub struct Email;

impl Email {
    /// The pattern the rule implements.
    pub fn pattern() -> String {
        let sc = SPACE_OR_CONTROL;
        format!("^[^@{sc}]+@[^@{sc}]+\\.[^@.{sc}]+$")
    }
}

impl Rule for Email {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        check_length(s, 3, 254)?;
        let valid = match s.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.contains('@')
                    && !s.chars().any(space_or_control)
                    && domain
                        .rsplit_once('.')
                        .is_some_and(|(host, tld)| !host.is_empty() && !tld.is_empty())
            }
            None => false,
        };
        if valid {
            Ok(s.to_owned())
        } else {
            Err("must be a valid e-mail address".into())
        }
    }
    fn schema(&self) -> Schema {
        string_schema(3, 254, &Email::pattern())
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Email)))
            .into()
    }
    fn example(&self) -> Value {
        json!("pat@example.com")
    }
}

/// An e-mail address, or the empty string for none.
#[derive(Clone, Copy, Debug)]
pub struct OptionalEmail;

impl Rule for OptionalEmail {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        match raw {
            Raw::Json(Value::String(s)) if s.is_empty() => Ok(String::new()),
            Raw::Text("") => Ok(String::new()),
            _ => Email.check(raw),
        }
    }
    fn schema(&self) -> Schema {
        let email = Email::pattern();
        let pattern = format!("^$|{email}");
        string_schema(0, 254, &pattern).into()
    }
    fn example(&self) -> Value {
        json!("fax@example.com")
    }
}

/// An `http://` or `https://` URL with a host and without credentials, spaces or control
/// characters, of `3..=2048` characters (the spec's minimum is 3).
#[derive(Clone, Copy, Debug)]
pub struct HttpUrl;

impl HttpUrl {
    fn pattern() -> String {
        let sc = SPACE_OR_CONTROL;
        format!("^https?://[^@/?#{sc}]+([/?#][^{sc}]*)?$")
    }
}

impl Rule for HttpUrl {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let url = text(3, 2048).check(raw)?;
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .ok_or("must be an http:// or https:// URL")?;
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        if host.contains('@') {
            // Credentials in the URL would be answered in clear; they go in username/password.
            return Err("must not carry credentials: use username and password".into());
        }
        if host.is_empty() || url.chars().any(space_or_control) {
            return Err("must be an http:// or https:// URL with a host".into());
        }
        Ok(url)
    }
    fn schema(&self) -> Schema {
        // No `format: uri`: the reader takes international host names (IRIs), which that
        // format refuses; the pattern states what is checked.
        string_schema(3, 2048, &HttpUrl::pattern()).into()
    }
    fn example(&self) -> Value {
        json!("https://crm.example.com/hooks/switchboard")
    }
}

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

/// A JSON boolean.
#[derive(Clone, Copy, Debug)]
pub struct Bool;

impl Rule for Bool {
    type Output = bool;
    fn check(&self, raw: Raw<'_>) -> Result<bool, String> {
        match raw {
            Raw::Json(Value::Bool(b)) => Ok(*b),
            Raw::Text("true") => Ok(true),
            Raw::Text("false") => Ok(false),
            _ => Err("must be true or false".into()),
        }
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new().schema_type(Type::Boolean).into()
    }
    fn example(&self) -> Value {
        json!(true)
    }
}

/// A yes/no switch in a query string: `1` or `true` for yes, `0` or `false` for no, so a
/// filter takes the spelling of the body field it filters on (`read: true`) as well as the
/// spec's `0`/`1` flags.
#[derive(Clone, Copy, Debug)]
pub struct Switch;

/// What [`Switch`] accepts in a query string.
const SWITCH_VALUES: [&str; 4] = ["0", "1", "true", "false"];

impl Rule for Switch {
    type Output = bool;
    fn check(&self, raw: Raw<'_>) -> Result<bool, String> {
        match raw {
            Raw::Text("1" | "true") | Raw::Json(Value::Bool(true)) => Ok(true),
            Raw::Text("0" | "false") | Raw::Json(Value::Bool(false)) => Ok(false),
            Raw::Json(Value::Number(_)) => FLAG.check(raw).map(|flag| flag == 1),
            _ => Err(format!("must be one of: {}", SWITCH_VALUES.join(", "))),
        }
    }
    fn schema(&self) -> Schema {
        FLAG.schema()
    }
    fn query_schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(SWITCH_VALUES))
            .into()
    }
    fn example(&self) -> Value {
        FLAG.example()
    }
}

/// A permission name the service knows (`extensions:write`, …).
#[derive(Clone, Copy, Debug)]
pub struct KnownPermission;

impl Rule for KnownPermission {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        crate::access::Permission::from_name(s)
            .map(|p| p.name().to_owned())
            .ok_or_else(|| "must be a known permission".into())
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(
                crate::access::Permission::ALL.iter().map(|p| p.name()),
            ))
            .into()
    }
    fn example(&self) -> Value {
        json!(crate::access::Permission::ALL[0].name())
    }
}

/// A comma-separated list in a query string (`tenantIds=1,2,3`), each part checked by
/// the item rule (spaces around parts are ignored), at most `max` characters in all (so a
/// list stays within the database's parameter limits).
#[derive(Clone, Copy, Debug)]
pub struct CommaList<R> {
    /// The rule of each part.
    pub item: R,
    /// What the parts are, for messages ("ids").
    pub what: &'static str,
    /// Most characters of the whole list.
    pub max: usize,
}

impl<R: Rule> CommaList<R> {
    /// What a list with a broken part is told: the allowed values, or the items' pattern.
    fn broken_part(&self) -> String {
        let Schema::Object(object) = self.item.query_schema() else {
            return format!("must be a comma-separated list of {}", self.what);
        };
        match (object.enum_values, object.pattern) {
            (Some(values), _) => {
                let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
                format!("must list only: {}", names.join(", "))
            }
            (None, Some(pattern)) => {
                format!(
                    "must be a comma-separated list of {} matching {pattern}",
                    self.what
                )
            }
            (None, None) => format!("must be a comma-separated list of {}", self.what),
        }
    }

    /// The item rule's query schema as a regular expression fragment: its pattern, or an
    /// alternation of its enumeration.
    fn item_pattern(&self) -> String {
        match self.item.query_schema() {
            Schema::Object(object) => match (object.pattern, object.enum_values) {
                (Some(pattern), _) => {
                    format!(
                        "(?:{})",
                        pattern.trim_start_matches('^').trim_end_matches('$')
                    )
                }
                (None, Some(values)) => format!(
                    "(?:{})",
                    values
                        .iter()
                        .filter_map(Value::as_str)
                        .map(escape_regex)
                        .collect::<Vec<_>>()
                        .join("|")
                ),
                (None, None) => "[^,]+".to_owned(),
            },
            _ => "[^,]+".to_owned(),
        }
    }
}

/// Escapes the characters a regular expression gives meaning to.
fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl<R: Rule> Rule for CommaList<R> {
    type Output = Vec<R::Output>;
    fn check(&self, raw: Raw<'_>) -> Result<Vec<R::Output>, String> {
        let text = as_str(raw)?;
        if text.chars().count() > self.max {
            return Err(format!("must be at most {} characters", self.max));
        }
        text.split(',')
            .map(|part| {
                self.item
                    .check(Raw::Text(part.trim_matches(' ')))
                    .map_err(|_| self.broken_part())
            })
            .collect()
    }
    fn schema(&self) -> Schema {
        let item = self.item_pattern();
        string_schema(1, self.max, &format!("^ *{item} *(?:, *{item} *)*$")).into()
    }
    fn example(&self) -> Value {
        self.item.example()
    }
}

/// An array of values each read by a field, with `min..=max` items.
#[derive(Clone, Copy, Debug)]
pub struct ListOf<F> {
    /// What each item must be.
    pub item: F,
    /// Fewest items.
    pub min: usize,
    /// Most items.
    pub max: usize,
    /// A key of the items' objects that no two items may share (`keys/3/index is already
    /// used by keys/1`), checked on the items as sent, broken or not, so a duplicate is
    /// reported together with every other broken rule (interface §5).
    pub unique: Option<&'static str>,
}

/// An array of `min..=max` items, each read by `item`.
pub const fn list_of<F>(item: F, min: usize, max: usize) -> ListOf<F> {
    ListOf {
        item,
        min,
        max,
        unique: None,
    }
}

impl<F> ListOf<F> {
    /// The same list, no two of whose items share a value at `key`.
    pub const fn unique_by(mut self, key: &'static str) -> Self {
        self.unique = Some(key);
        self
    }

    /// Reports each item whose value at the unique key an earlier item has already.
    fn check_unique(&self, items: &[Value], at: &mut At<'_>) {
        let Some(key) = self.unique else {
            return;
        };
        let list = at.last_segment().to_owned();
        let mut first: Vec<(&Value, usize)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(value) = item.get(key).filter(|v| !v.is_null()) else {
                continue;
            };
            match first.iter().find(|(seen, _)| *seen == value) {
                Some((_, earlier)) => {
                    let mut item_at = at.child(&i.to_string());
                    item_at
                        .child(key)
                        .problem(format!("is already used by {list}/{earlier}"));
                }
                None => first.push((value, i)),
            }
        }
    }
}

impl<F: Field> Field for ListOf<F> {
    type Output = Vec<F::Output>;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<Vec<F::Output>> {
        let Value::Array(items) = value else {
            at.problem("must be an array");
            return None;
        };
        if items.len() < self.min {
            at.problem(format!(
                "must hold at least {} item{}",
                self.min,
                if self.min == 1 { "" } else { "s" }
            ));
            return None;
        }
        if items.len() > self.max {
            at.problem(format!("must hold at most {} items", self.max));
            return None;
        }
        let mut out = Vec::with_capacity(items.len());
        let mut broken = false;
        for (i, item) in items.iter().enumerate() {
            match self.item.read(item, &mut at.child(&i.to_string())) {
                Some(v) => out.push(v),
                None => broken = true,
            }
        }
        // A duplicate leaves every item readable: the list is still built, so the rules
        // that need the database run on it too and their problems join this one.
        self.check_unique(items, at);
        (!broken).then_some(out)
    }

    fn field_schema(&self) -> RefOr<Schema> {
        let mut array = ArrayBuilder::new().items(self.item.field_schema());
        if self.min > 0 {
            array = array.min_items(Some(self.min));
        }
        if self.max < usize::MAX {
            array = array.max_items(Some(self.max));
        }
        RefOr::T(array.into())
    }

    fn field_example(&self) -> Value {
        let n = 1.clamp(self.min, self.max.max(self.min));
        Value::Array((0..n).map(|_| self.item.field_example()).collect())
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        self.item.components(out);
    }
}

/// A nested object of a declared body type, documented once under its own name.
pub struct Nested<T>(PhantomData<fn() -> T>);

/// A nested object of type `T`.
pub const fn nested<T>() -> Nested<T> {
    Nested(PhantomData)
}

impl<T: Declared + utoipa::ToSchema> Field for Nested<T> {
    type Output = T;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<T> {
        let mut reader = at.object(value)?;
        T::read_object(&mut reader)
    }

    fn field_schema(&self) -> RefOr<Schema> {
        RefOr::Ref(Ref::from_schema_name(T::name()))
    }

    fn field_example(&self) -> Value {
        Value::Object(T::example())
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        let name = T::name().into_owned();
        if out.iter().all(|(n, _)| *n != name) {
            out.push((name, <T as utoipa::PartialSchema>::schema()));
            T::components(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_integers_are_strict() {
        assert_eq!(parse_query_int("12"), Some(12));
        assert_eq!(parse_query_int("-3"), Some(-3));
        assert_eq!(parse_query_int("+3"), None);
        assert_eq!(parse_query_int("01"), None);
        assert_eq!(parse_query_int("0"), Some(0));
        assert_eq!(parse_query_int("1.0"), None);
        assert_eq!(parse_query_int(""), None);
        assert_eq!(parse_query_int("99999999999999999999"), Some(i64::MAX));
    }

    #[test]
    fn email_rule() {
        for ok in ["a@b.co", "first.last+tag@example.com", "a@..b"] {
            assert!(Email.check(Raw::Text(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "a@b",
            "@b.co",
            "a b@c.de",
            "a@@b.co",
            "a@.",
            "a@b.",
            "a\u{1}@b.co",
        ] {
            assert!(Email.check(Raw::Text(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_exist() {
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2026-02-29").is_none());
        assert!(Date::parse("2026-13-01").is_none());
        assert!(Date::parse("+2026-01-01").is_none());
        assert!(Date::parse("2026-1-01").is_none());
    }

    #[test]
    fn switches_take_flags_and_booleans() {
        assert_eq!(Switch.check(Raw::Text("1")), Ok(true));
        assert_eq!(Switch.check(Raw::Text("true")), Ok(true));
        assert_eq!(Switch.check(Raw::Text("0")), Ok(false));
        assert_eq!(Switch.check(Raw::Text("false")), Ok(false));
        for refused in ["2", "yes", "TRUE", "", "01"] {
            assert_eq!(
                Switch.check(Raw::Text(refused)),
                Err("must be one of: 0, 1, true, false".to_owned()),
                "{refused}"
            );
        }
    }
}
