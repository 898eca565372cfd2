//! Numbers and switches: integers, 0/1 flags and bits, record ids, booleans, and the
//! yes/no switch of query strings.

use serde_json::{Value, json};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use super::*;
use crate::validation::{Raw, Rule};

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
