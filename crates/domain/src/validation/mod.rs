//! Parse, don't validate: request bodies and query strings are read field by field into
//! typed values, and every broken rule is collected (interface §5) rather than stopping at
//! the first. Each message reads `'<location>/<path>' <message>`.
//!
//! A rule is stated once, as a value implementing [`Rule`] (a scalar) or [`Field`] (any
//! JSON value, nested ones included): the same value checks the input, describes itself
//! as a JSON Schema for the API document, and offers an example it accepts. The derives
//! of `switchboard-declare` build readers and schemas of whole bodies from them.

mod reader;
mod rules;

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;
use utoipa::openapi::schema::Schema;

pub use reader::{At, Field, ObjectReader, QueryReader};
pub use rules::*;

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
    /// a rule. An empty path is the pointer of the whole location, written as every other
    /// (`'body/' must be an object`: interface §5's `'<location>/<path>'`, issue 29).
    pub fn add(&mut self, location: Location, path: &str, message: impl fmt::Display) {
        self.0.push(format!("'{location}/{path}' {message}"));
    }

    /// Whether a problem is recorded for the value at `path` (or inside it).
    pub fn names(&self, location: Location, path: &str) -> bool {
        let exact = format!("'{location}/{path}'");
        let inside = format!("'{location}/{path}/");
        self.0
            .iter()
            .any(|m| m.starts_with(&exact) || m.starts_with(&inside))
    }

    /// Whether nothing was broken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many problems were recorded.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The messages.
    pub fn into_messages(self) -> Vec<String> {
        self.0
    }

    /// Adds every problem of `other` after these.
    pub fn extend(&mut self, other: Problems) {
        self.0.extend(other.0);
    }

    /// Adds `messages` (problems already worded, as an error answers them) that are not
    /// recorded yet.
    pub fn extend_messages<'a>(&mut self, messages: impl IntoIterator<Item = &'a String>) {
        for message in messages {
            if !self.0.contains(message) {
                self.0.push(message.clone());
            }
        }
    }

    /// The top-level body fields a problem names (`members` of `'body/members/0/id'`),
    /// unescaped, each once; a problem of the whole body names the empty key.
    pub fn body_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for message in &self.0 {
            if let Some(key) = body_key(message)
                && !keys.contains(&key)
            {
                keys.push(key);
            }
        }
        keys
    }

    /// Drops every problem of a top-level body field in `keys`.
    pub fn drop_body_keys(&mut self, keys: &[String]) {
        self.0
            .retain(|message| body_key(message).is_none_or(|key| !keys.contains(&key)));
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

/// The top-level body field `message` names, if it is a body problem.
fn body_key(message: &str) -> Option<String> {
    let rest = message.strip_prefix("'body/")?;
    let end = rest.find(['/', '\''])?;
    Some(rest[..end].replace("~1", "/").replace("~0", "~"))
}

/// A raw value to check: a JSON value from a body, or a string from a query or path.
#[derive(Clone, Copy, Debug)]
pub enum Raw<'a> {
    /// A value from a JSON body.
    Json(&'a Value),
    /// A value from a query string or path.
    Text(&'a str),
}

/// One rule for a scalar: turns a raw value into a typed one or says what is wrong with
/// it, and documents what it accepts.
pub trait Rule {
    /// The typed value the rule yields.
    type Output;
    /// Checks `raw`, answering the typed value or the message.
    fn check(&self, raw: Raw<'_>) -> Result<Self::Output, String>;
    /// The JSON Schema of the JSON values the rule accepts in a body.
    fn schema(&self) -> Schema;
    /// The schema of the text the rule accepts in a query string; the body's by default.
    fn query_schema(&self) -> Schema {
        self.schema()
    }
    /// A JSON value the rule accepts.
    fn example(&self) -> Value;
}

/// A field was broken; what is wrong with it is already in the [`Problems`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broken;

/// Something built from a JSON request body.
pub trait FromBody: Sized {
    /// Which of the body's optional `tenantId` and `branchId` a caller must still send,
    /// depending on its scope (nothing by default).
    const PLACEMENT: Placement = Placement::NONE;
    /// The record's fields this body cannot change (`#[body(fixed(...))]`): accepted when
    /// equal to the record's current value, refused otherwise (none by default).
    const FIXED: &'static [FixedField] = &[];
    /// Reads the body, answering the value or every problem found.
    fn from_body(body: &Value) -> Result<Self, Problems>;
    /// Reads the body, answering the value when it could be built even though a rule
    /// across its items is broken (a duplicate), with every problem found.
    fn read_partial(body: &Value) -> (Option<Self>, Problems) {
        match Self::from_body(body) {
            Ok(value) => (Some(value), Problems::new()),
            Err(problems) => (None, problems),
        }
    }
    /// A valid value of each field, by key (the document's example), to stand in for a
    /// broken required field while the record's own rules run on the others.
    fn body_example() -> serde_json::Map<String, Value> {
        serde_json::Map::new()
    }
}

/// Where a created record lands, as far as the body must say it: a `tenantId` that
/// callers bound to one tenant may leave out (theirs is used) and callers spanning several
/// must send, and a `branchId` that a branch admin may leave out (its own is used) and
/// everyone else must send. Declared on a body (`#[body(placement(tenant, branch))]`) so
/// the reader reports a missing one together with every other broken rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The body has an optional `tenantId` that callers spanning tenants must send.
    pub tenant: bool,
    /// The body has an optional `branchId` that callers without a branch must send.
    pub branch: bool,
}

impl Placement {
    /// A body that says nothing of where its record lands.
    pub const NONE: Placement = Placement {
        tenant: false,
        branch: false,
    };
}

/// A field of a record that a change body cannot change (a record's tenant, a provisioned
/// number): a body read from `GET` carries it, so it is accepted when equal to the
/// record's current value and refused with `message` when it differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedField {
    /// Its JSON key.
    pub key: &'static str,
    /// What a different value is told (`cannot be changed`).
    pub message: &'static str,
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
    fn names_the_top_level_fields_of_body_problems() {
        let mut problems = Problems::new();
        problems.add(Location::Body, "members/0/id", "must name an extension");
        problems.add(Location::Body, "name", "must be at least 1 character");
        problems.add(Location::Body, "members/1/id", "must name an extension");
        problems.add(Location::Body, "a~1b", "is odd");
        problems.add(Location::Query, "page", "must be at least 1");
        assert_eq!(problems.body_keys(), ["members", "name", "a/b"]);
        problems.drop_body_keys(&["members".to_owned()]);
        problems.extend_messages(&["'body/name' must be at least 1 character".to_owned()]);
        assert_eq!(
            problems.into_messages(),
            [
                "'body/name' must be at least 1 character",
                "'body/a~1b' is odd",
                "'query/page' must be at least 1",
            ]
        );
        let mut whole = Problems::new();
        whole.add(Location::Body, "", "must be an object");
        assert_eq!(whole.body_keys(), [""]);
    }
}
