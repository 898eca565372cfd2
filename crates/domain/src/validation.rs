//! Parse, don't validate: request bodies and query strings are read field by field into
//! typed values, and every broken rule is collected (CONTRACT §5) rather than stopping at
//! the first. Each message reads `'<location>/<path>' <message>`.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

/// Where a value came from, the first segment of a validation message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// The JSON request body.
    Body,
    /// The query string.
    Query,
    /// A path parameter.
    Path,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Location::Body => "body",
            Location::Query => "query",
            Location::Path => "path",
        })
    }
}

/// Every broken rule of one request, in the order found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Problems(Vec<String>);

impl Problems {
    /// An empty collection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that the value at `path` (a JSON pointer without its leading slash) breaks
    /// a rule. An empty path names the whole location (`'body' must be an object`).
    pub fn add(&mut self, location: Location, path: &str, message: impl fmt::Display) {
        if path.is_empty() {
            self.0.push(format!("'{location}' {message}"));
        } else {
            self.0.push(format!("'{location}/{path}' {message}"));
        }
    }

    /// Whether nothing was broken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The messages.
    pub fn into_messages(self) -> Vec<String> {
        self.0
    }

    /// `Ok(value)` when nothing was broken, the problems otherwise.
    pub fn finish<T>(self, value: impl FnOnce() -> Option<T>) -> Result<T, Problems> {
        if self.is_empty() {
            // Every reader returns `Some` when it recorded no problem, so `None` here
            // would be a bug in a request parser; report it rather than panic.
            value().ok_or_else(|| {
                let mut p = Problems::new();
                p.add(Location::Body, "", "is invalid");
                p
            })
        } else {
            Err(self)
        }
    }
}

/// A raw value to check: a JSON value from a body, or a string from a query or path.
#[derive(Clone, Copy, Debug)]
pub enum Raw<'a> {
    /// A value from a JSON body.
    Json(&'a Value),
    /// A value from a query string or path.
    Text(&'a str),
}

/// One rule: turns a raw value into a typed one, or says what is wrong with it.
pub trait Rule {
    /// The typed value the rule yields.
    type Output;
    /// Checks `raw`, answering the typed value or the message.
    fn check(&self, raw: Raw<'_>) -> Result<Self::Output, String>;
}

fn as_str<'a>(raw: Raw<'a>) -> Result<&'a str, String> {
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
}

/// The pattern of a dialable number: digits, `*`, `#` and a leading-or-not `+`.
pub const DIAL_PATTERN: &str = "^[0-9*#+]+$";

/// A dialable string (an extension or paging group number) of `min..=max` characters.
pub const fn dial(min: usize, max: usize) -> Chars {
    Chars {
        min,
        max,
        pattern: DIAL_PATTERN,
        allowed: |c| c.is_ascii_digit() || matches!(c, '*' | '#' | '+'),
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
}

/// The pattern published for e-mail addresses; [`Email`] implements it.
pub const EMAIL_PATTERN: &str = "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$";

/// An e-mail address: `local@domain.tld`, at most 254 characters, kept as written but
/// compared case-insensitively by the store.
#[derive(Clone, Copy, Debug)]
pub struct Email;

impl Rule for Email {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        check_length(s, 3, 254)?;
        let valid = match s.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.contains('@')
                    && !s.chars().any(|c| c.is_whitespace() || c.is_control())
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
}

/// An IANA time zone name such as `America/New_York`.
#[derive(Clone, Copy, Debug)]
pub struct TimeZone;

impl Rule for TimeZone {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        s.parse::<chrono_tz::Tz>()
            .map(|tz| tz.name().to_owned())
            .map_err(|_| "must be an IANA time zone name".into())
    }
}

/// A field was broken; what is wrong with it is already in the [`Problems`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broken;

/// A JSON object read field by field; every problem goes into the shared [`Problems`].
pub struct ObjectReader<'a> {
    location: Location,
    prefix: String,
    object: &'a Map<String, Value>,
    problems: &'a mut Problems,
}

impl<'a> ObjectReader<'a> {
    /// Reads the top-level body; a body that is not an object is one problem.
    pub fn body(value: &'a Value, problems: &'a mut Problems) -> Option<Self> {
        match value {
            Value::Object(object) => Some(Self {
                location: Location::Body,
                prefix: String::new(),
                object,
                problems,
            }),
            _ => {
                problems.add(Location::Body, "", "must be an object");
                None
            }
        }
    }

    fn path(&self, key: &str) -> String {
        format!(
            "{}{}",
            self.prefix,
            key.replace('~', "~0").replace('/', "~1")
        )
    }

    fn apply<R: Rule>(&mut self, key: &str, value: &Value, rule: &R) -> Option<R::Output> {
        match rule.check(Raw::Json(value)) {
            Ok(v) => Some(v),
            Err(message) => {
                let path = self.path(key);
                self.problems.add(self.location, &path, message);
                None
            }
        }
    }

    /// A field that must be present and not null.
    pub fn required<R: Rule>(&mut self, key: &str, rule: &R) -> Option<R::Output> {
        match self.object.get(key) {
            None | Some(Value::Null) => {
                let path = self.path(key);
                self.problems.add(self.location, &path, "is required");
                None
            }
            Some(v) => self.apply(key, v, rule),
        }
    }

    /// A field that may be absent but, when present, must not be null.
    /// Answers `Ok(None)` when absent, `Err(Broken)` when present and broken.
    pub fn optional<R: Rule>(&mut self, key: &str, rule: &R) -> Result<Option<R::Output>, Broken> {
        match self.object.get(key) {
            None => Ok(None),
            Some(Value::Null) => {
                let path = self.path(key);
                self.problems.add(self.location, &path, "must not be null");
                Err(Broken)
            }
            Some(v) => self.apply(key, v, rule).map(Some).ok_or(Broken),
        }
    }

    /// A field required on create and optional on patch: one reader for both bodies.
    pub fn required_if<R: Rule>(
        &mut self,
        required: bool,
        key: &str,
        rule: &R,
    ) -> Result<Option<R::Output>, Broken> {
        if required {
            self.required(key, rule).map(Some).ok_or(Broken)
        } else {
            self.optional(key, rule)
        }
    }

    /// A nullable field: absent is `None`, `null` is `Some(None)`.
    pub fn nullable<R: Rule>(
        &mut self,
        key: &str,
        rule: &R,
    ) -> Result<Option<Option<R::Output>>, Broken> {
        match self.object.get(key) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(v) => self
                .apply(key, v, rule)
                .map(|v| Some(Some(v)))
                .ok_or(Broken),
        }
    }

    /// An optional array of objects, each read by `item`. Absent is `Ok(None)`.
    pub fn objects<T>(
        &mut self,
        key: &str,
        mut item: impl FnMut(&mut ObjectReader<'_>) -> Option<T>,
    ) -> Result<Option<Vec<T>>, Broken> {
        let path = self.path(key);
        let items = match self.object.get(key) {
            None => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.problems.add(self.location, &path, "must be an array");
                return Err(Broken);
            }
        };
        let mut out = Vec::with_capacity(items.len());
        let mut broken = false;
        for (i, value) in items.iter().enumerate() {
            let item_path = format!("{path}/{i}");
            let Value::Object(object) = value else {
                self.problems
                    .add(self.location, &item_path, "must be an object");
                broken = true;
                continue;
            };
            let mut reader = ObjectReader {
                location: self.location,
                prefix: format!("{item_path}/"),
                object,
                problems: self.problems,
            };
            match item(&mut reader) {
                Some(v) => out.push(v),
                None => broken = true,
            }
        }
        if broken { Err(Broken) } else { Ok(Some(out)) }
    }

    /// An optional array of strings, each checked by `rule`.
    pub fn strings<R: Rule>(
        &mut self,
        key: &str,
        rule: &R,
    ) -> Result<Option<Vec<R::Output>>, Broken> {
        let path = self.path(key);
        let items = match self.object.get(key) {
            None => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.problems.add(self.location, &path, "must be an array");
                return Err(Broken);
            }
        };
        let mut out = Vec::with_capacity(items.len());
        let mut broken = false;
        for (i, value) in items.iter().enumerate() {
            match rule.check(Raw::Json(value)) {
                Ok(v) => out.push(v),
                Err(message) => {
                    self.problems
                        .add(self.location, &format!("{path}/{i}"), message);
                    broken = true;
                }
            }
        }
        if broken { Err(Broken) } else { Ok(Some(out)) }
    }

    /// Records a problem found by a rule that spans fields (say, `to` after `from`).
    pub fn problem(&mut self, key: &str, message: impl fmt::Display) {
        let path = self.path(key);
        self.problems.add(self.location, &path, message);
    }

    /// Records a problem at `path`, a JSON pointer below this object (`hours/1/0/from`)
    /// whose segments are already escaped.
    pub fn problem_at(&mut self, path: &str, message: impl fmt::Display) {
        let path = format!("{}{}", self.prefix, path);
        self.problems.add(self.location, &path, message);
    }

    /// Whether `key` is present (null or not).
    pub fn has(&self, key: &str) -> bool {
        self.object.contains_key(key)
    }

    /// Whether `key` is present and `null`.
    pub fn is_null(&self, key: &str) -> bool {
        matches!(self.object.get(key), Some(Value::Null))
    }
}

/// A query string read parameter by parameter; unknown parameters are ignored.
pub struct QueryReader<'a> {
    params: &'a HashMap<String, String>,
    problems: &'a mut Problems,
}

impl<'a> QueryReader<'a> {
    /// Reads `params`, recording problems into `problems`.
    pub fn new(params: &'a HashMap<String, String>, problems: &'a mut Problems) -> Self {
        Self { params, problems }
    }

    /// An optional parameter checked by `rule`; absent or broken is `None`.
    pub fn optional<R: Rule>(&mut self, key: &str, rule: &R) -> Option<R::Output> {
        let value = self.params.get(key)?;
        match rule.check(Raw::Text(value)) {
            Ok(v) => Some(v),
            Err(message) => {
                self.problems.add(Location::Query, key, message);
                None
            }
        }
    }

    /// Whether the parameter was sent at all.
    pub fn has(&self, key: &str) -> bool {
        self.params.contains_key(key)
    }

    /// Records a problem found by a rule that spans parameters.
    pub fn problem(&mut self, key: &str, message: impl fmt::Display) {
        self.problems.add(Location::Query, key, message);
    }
}

/// Something built from a JSON request body.
pub trait FromBody: Sized {
    /// Reads the body, answering the value or every problem found.
    fn from_body(body: &Value) -> Result<Self, Problems>;
}

/// Something built from the query string.
pub trait FromQuery: Sized {
    /// Reads the parameters, answering the value or every problem found.
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_every_problem_with_its_path() {
        let body = json!({"number": "1", "name": 5, "items": [{"id": 0}, 3]});
        let mut problems = Problems::new();
        let mut r = ObjectReader::body(&body, &mut problems).expect("an object");
        assert!(r.required("number", &dial(2, 32)).is_none());
        assert!(r.required("name", &text(1, 10)).is_none());
        assert!(r.required("missing", &text(1, 10)).is_none());
        let _ = r.objects("items", |item| item.required("id", &ID));
        assert_eq!(
            problems.into_messages(),
            vec![
                "'body/number' must be at least 2 characters",
                "'body/name' must be a string",
                "'body/missing' is required",
                "'body/items/0/id' must be at least 1",
                "'body/items/1' must be an object",
            ]
        );
    }

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
        for ok in ["a@b.co", "first.last+tag@example.com"] {
            assert!(Email.check(Raw::Text(ok)).is_ok(), "{ok}");
        }
        for bad in ["a@b", "@b.co", "a b@c.de", "a@@b.co", "a@.", "a@b."] {
            assert!(Email.check(Raw::Text(bad)).is_err(), "{bad}");
        }
    }
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
}
