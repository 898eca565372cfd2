//! Readers that walk a JSON body or a query string, applying rules and recording every
//! problem at its path.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::{Broken, Location, Problems, Raw, Rule};

/// Anything a body field may hold, scalars and nested arrays or objects alike: reads the
/// value at its place, recording every problem at its path, and documents itself.
pub trait Field {
    /// The typed value read.
    type Output;
    /// Reads `value`, found at `at`; `None` when a problem was recorded.
    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<Self::Output>;
    /// The JSON Schema of what the field accepts.
    fn field_schema(&self) -> RefOr<Schema>;
    /// A JSON value the field accepts.
    fn field_example(&self) -> Value;
    /// Named schemas the field's schema refers to, for the document's components.
    fn components(&self, _out: &mut Vec<(String, RefOr<Schema>)>) {}
}

impl<R: Rule> Field for R {
    type Output = R::Output;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<R::Output> {
        match self.check(Raw::Json(value)) {
            Ok(v) => Some(v),
            Err(message) => {
                at.problem(message);
                None
            }
        }
    }

    fn field_schema(&self) -> RefOr<Schema> {
        RefOr::T(self.schema())
    }

    fn field_example(&self) -> Value {
        self.example()
    }
}

/// Escapes a key as a JSON pointer segment.
fn segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The place of one value in a request (`body/hours/1/0`), where its problems go.
pub struct At<'a> {
    location: Location,
    path: String,
    problems: &'a mut Problems,
}

impl<'a> At<'a> {
    /// The place `path` (already escaped) in `location`.
    pub fn new(location: Location, path: String, problems: &'a mut Problems) -> Self {
        At {
            location,
            path,
            problems,
        }
    }

    /// Records that the value here breaks a rule.
    pub fn problem(&mut self, message: impl fmt::Display) {
        self.problems.add(self.location, &self.path, message);
    }

    /// The place of the member `key` (an object key or an array index) of this value.
    pub fn child(&mut self, key: &str) -> At<'_> {
        let path = if self.path.is_empty() {
            segment(key)
        } else {
            format!("{}/{}", self.path, segment(key))
        };
        At {
            location: self.location,
            path,
            problems: self.problems,
        }
    }

    /// Reads this value as an object, field by field; a value that is not one is a
    /// problem here.
    pub fn object<'v>(&'v mut self, value: &'v Value) -> Option<ObjectReader<'v>> {
        match value {
            Value::Object(object) => Some(ObjectReader {
                location: self.location,
                prefix: if self.path.is_empty() {
                    String::new()
                } else {
                    format!("{}/", self.path)
                },
                object,
                problems: self.problems,
            }),
            _ => {
                self.problem("must be an object");
                None
            }
        }
    }

    /// How many problems the request has so far (to tell whether a step added one).
    pub fn problem_count(&self) -> usize {
        self.problems.len()
    }

    /// The last segment of this place's path (`keys` of `body/keys`).
    pub fn last_segment(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or_default()
    }
}

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
        format!("{}{}", self.prefix, segment(key))
    }

    /// The place of `key` in this object.
    pub fn at(&mut self, key: &str) -> At<'_> {
        let path = self.path(key);
        At {
            location: self.location,
            path,
            problems: self.problems,
        }
    }

    fn apply<F: Field>(&mut self, key: &str, value: &Value, field: &F) -> Option<F::Output> {
        let mut at = self.at(key);
        field.read(value, &mut at)
    }

    /// A field that must be present and not null.
    pub fn required<F: Field>(&mut self, key: &str, field: &F) -> Option<F::Output> {
        match self.object.get(key) {
            None | Some(Value::Null) => {
                self.at(key).problem("is required");
                None
            }
            Some(v) => self.apply(key, v, field),
        }
    }

    /// A field that may be absent but, when present, must not be null.
    /// Answers `Ok(None)` when absent, `Err(Broken)` when present and broken.
    pub fn optional<F: Field>(
        &mut self,
        key: &str,
        field: &F,
    ) -> Result<Option<F::Output>, Broken> {
        match self.object.get(key) {
            None => Ok(None),
            Some(Value::Null) => {
                self.at(key).problem("must not be null");
                Err(Broken)
            }
            Some(v) => self.apply(key, v, field).map(Some).ok_or(Broken),
        }
    }

    /// A nullable field: absent is `None`, `null` is `Some(None)`.
    pub fn nullable<F: Field>(
        &mut self,
        key: &str,
        field: &F,
    ) -> Result<Option<Option<F::Output>>, Broken> {
        match self.object.get(key) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(v) => self
                .apply(key, v, field)
                .map(|v| Some(Some(v)))
                .ok_or(Broken),
        }
    }

    /// A nullable reference written as answers write it: absent is `None`, `null` or `0`
    /// is `Some(None)` (none).
    pub fn nullable_or_zero<F: Field>(
        &mut self,
        key: &str,
        field: &F,
    ) -> Result<Option<Option<F::Output>>, Broken> {
        if self.object.get(key).and_then(Value::as_i64) == Some(0) {
            return Ok(Some(None));
        }
        self.nullable(key, field)
    }

    /// An optional array of objects, each read by `item`. Absent is `Ok(None)`.
    pub fn objects<T>(
        &mut self,
        key: &str,
        mut item: impl FnMut(&mut ObjectReader<'_>) -> Option<T>,
    ) -> Result<Option<Vec<T>>, Broken> {
        let Some(value) = self.object.get(key) else {
            return Ok(None);
        };
        let mut at = self.at(key);
        let Value::Array(items) = value else {
            at.problem("must be an array");
            return Err(Broken);
        };
        let mut out = Vec::with_capacity(items.len());
        let mut broken = false;
        for (i, value) in items.iter().enumerate() {
            let mut item_at = at.child(&i.to_string());
            match item_at.object(value).and_then(|mut r| item(&mut r)) {
                Some(v) => out.push(v),
                None => broken = true,
            }
        }
        if broken { Err(Broken) } else { Ok(Some(out)) }
    }

    /// Records a problem found by a rule that spans fields (say, `to` after `from`);
    /// an empty key names this object itself.
    pub fn problem(&mut self, key: &str, message: impl fmt::Display) {
        let path = if key.is_empty() {
            self.prefix.trim_end_matches('/').to_owned()
        } else {
            self.path(key)
        };
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

    /// The raw value of `key`, if sent.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key)
    }

    /// How many problems the request has so far (to tell whether a step added one).
    pub fn problem_count(&self) -> usize {
        self.problems.len()
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
