//! The rules shared by every record: texts, dial strings, integers, ids, enumerations,
//! e-mail addresses, URLs, time zones, dates, flags, and arrays and nested objects of
//! them. Each checks a value, documents itself as a JSON Schema, and offers an example.

use serde_json::Value;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};

use super::Raw;

mod choice;
mod compound;
mod number;
mod text;
mod time;

pub use choice::*;
pub use compound::*;
pub use number::*;
pub use text::*;
pub use time::*;

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
