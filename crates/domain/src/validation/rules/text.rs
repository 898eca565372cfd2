//! Texts: free text, dial strings and dial-plan numbers, e-mail addresses, URLs and
//! permission names.

use serde_json::{Value, json};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};

use super::*;
use crate::validation::{Raw, Rule};

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
/// characters, of `3..=2048` characters (the spec's minimum is 3), that a URL parser (the
/// WHATWG rules of the `url` crate, which the delivery client uses) reads, its host part
/// read alike by every reader.
#[derive(Clone, Copy, Debug)]
pub struct HttpUrl;

impl HttpUrl {
    /// Characters refused in the host part (up to the first `/`, `?` or `#`): a backslash
    /// ends it for the WHATWG parser but not for RFC 3986 readers (Python's `urlsplit`,
    /// an auditor), which would see another host; the WHATWG parser takes `"`, `` ` ``,
    /// `{` and `}` in a host name, which no HTTP request can carry.
    const UNREAD_IN_HOST: &'static str = "\\\"`{}";

    fn pattern() -> String {
        let sc = SPACE_OR_CONTROL;
        let unread = HttpUrl::UNREAD_IN_HOST.replace('\\', "\\\\");
        format!("^https?://[^@/?#{unread}{sc}]+([/?#][^{sc}]*)?$")
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
        // A URL no parser reads (`http://[`, a port of 99999, a host of forbidden
        // characters) could never be delivered to; it is refused here, not at the first event.
        let readable = !url.chars().any(space_or_control)
            && url::Url::parse(&url)
                .is_ok_and(|parsed| parsed.host().is_some() && parsed.port() != Some(0));
        let unread = host.contains(|c| HttpUrl::UNREAD_IN_HOST.contains(c));
        if host.is_empty() || !readable || unread {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn http_url_rule() {
        for ok in [
            "https://crm.example.com/hooks/switchboard",
            "http://[2001:db8::1]:8080/x",
            "https://bücher.example/a?b#c",
            "http://a.b:65535",
        ] {
            assert_eq!(HttpUrl.check(Raw::Text(ok)), Ok(ok.to_owned()), "{ok}");
        }
        for bad in [
            "ftp://example.com",
            "https://",
            "http://[",
            "http://[::1",
            "http://a]b",
            "http://[not-an-address]/",
            "http://a.b:99999/",
            "http://a b.c/",
            "http://a<b.c/",
            "http://a\u{ff0f}b.c/",
            "https://user:pass@example.com/",
            "http://a.b\\[",
            "http://a.b\\[x]",
            "http://evil.example\\.good.example/",
            "http://a{b}.example/",
            "http://a\"b.example/",
            "http://a.b:0/",
        ] {
            assert!(HttpUrl.check(Raw::Text(bad)).is_err(), "{bad}");
        }
    }
}
