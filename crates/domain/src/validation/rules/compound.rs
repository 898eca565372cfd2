//! Compound values: comma lists of a query string, arrays, and nested objects.

use std::marker::PhantomData;

use serde_json::Value;
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};

use super::*;
use crate::declare::Declared;
use crate::validation::{At, Field, Raw, Rule};

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
