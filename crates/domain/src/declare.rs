//! The runtime half of `switchboard-declare`'s derives: the traits a declared body or
//! filter implements, and the helpers its generated schema is assembled with. A field's
//! rule is written once, on the field; the reader and the document both come from it.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{Object, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{RefOr, Required};

use crate::ids::TenantId;
use crate::validation::{ObjectReader, Problems, QueryReader};

pub use crate::stored::{
    ColumnValue, Columns, ID_OR_NONE, OptionalRef, Stored, ToColumn, ToIntegerColumn, json_column,
};
pub use switchboard_declare::{Body, Filter, FromRow, Listed, SqlNewtype, Stored};

/// A JSON object declared field by field (`#[derive(Body)]`): read with every problem
/// recorded, and documented, from the same declaration.
pub trait Declared: Sized {
    /// Reads the object's fields; `None` when a problem was recorded.
    fn read_object(r: &mut ObjectReader<'_>) -> Option<Self>;
    /// The object's schema: properties, required fields and rules across fields.
    fn object_schema() -> Object;
    /// An object the schema and the reader both accept.
    fn example() -> Map<String, Value>;
    /// Named schemas the object's schema refers to.
    fn components(out: &mut Vec<(String, RefOr<Schema>)>);
}

/// List filters declared field by field (`#[derive(Filter)]`).
pub trait DeclaredFilter: Sized {
    /// Reads the filters from the query string; broken ones are recorded and left out.
    fn read_query(q: &mut QueryReader<'_>) -> Self;
    /// The filters as query parameters of the document.
    fn parameters(out: &mut Vec<Parameter>);
    /// The tenant the filters confine the list to, when they name one (a tenant outside
    /// the caller's scope is then a 403).
    fn tenant_id(&self) -> Option<TenantId>;
}

/// Reads a whole body as `T`.
pub fn read_body<T: Declared>(body: &Value) -> Result<T, Problems> {
    let mut problems = Problems::new();
    let value = ObjectReader::body(body, &mut problems).and_then(|mut r| T::read_object(&mut r));
    problems.finish(|| value)
}

/// Reads a whole body as `T`, answering the value whenever it could be built — a body
/// whose every value is readable but whose items break a rule across them (a
/// duplicate) has one — with every problem found, so that the rules needing the
/// database still run on it and their problems join these (interface §5).
pub fn read_body_partial<T: Declared>(body: &Value) -> (Option<T>, Problems) {
    let mut problems = Problems::new();
    let value = ObjectReader::body(body, &mut problems).and_then(|mut r| T::read_object(&mut r));
    (value, problems)
}

/// Reads a query string's filters as `T`.
pub fn read_filter<T: DeclaredFilter>(params: &HashMap<String, String>) -> Result<T, Problems> {
    let mut problems = Problems::new();
    let value = T::read_query(&mut QueryReader::new(params, &mut problems));
    problems.finish(|| Some(value))
}

/// An object schema with `description`.
pub fn object(description: Option<&str>) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(description)
        .build()
}

/// Makes `schema` also accept `null`.
fn nullable(schema: RefOr<Schema>) -> RefOr<Schema> {
    fn with_null(schema_type: &SchemaType) -> SchemaType {
        match schema_type {
            SchemaType::Type(t) => SchemaType::from_iter([t.clone(), Type::Null]),
            SchemaType::Array(types) => {
                SchemaType::from_iter(types.iter().cloned().chain([Type::Null]))
            }
            SchemaType::AnyValue => SchemaType::AnyValue,
        }
    }
    match schema {
        RefOr::T(Schema::Object(mut object)) => {
            object.schema_type = with_null(&object.schema_type);
            if let Some(values) = object.enum_values.as_mut() {
                values.push(Value::Null);
            }
            RefOr::T(Schema::Object(object))
        }
        RefOr::T(Schema::Array(mut array)) => {
            array.schema_type = with_null(&array.schema_type);
            RefOr::T(Schema::Array(array))
        }
        other => RefOr::T(Schema::OneOf(
            OneOfBuilder::new()
                .item(other)
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .build(),
        )),
    }
}

/// `schema`, or `0` (none, as answers write an absent reference).
pub fn or_zero(schema: RefOr<Schema>) -> RefOr<Schema> {
    match schema {
        RefOr::T(Schema::Object(mut object)) if object.minimum.is_some() => {
            object.minimum = Some(utoipa::Number::Int(0));
            RefOr::T(Schema::Object(object))
        }
        other => RefOr::T(Schema::OneOf(
            OneOfBuilder::new()
                .item(other)
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .enum_values(Some([0])),
                )
                .build(),
        )),
    }
}

/// Puts `description` and `example` (unless null) on a property's schema.
fn describe(schema: RefOr<Schema>, description: Option<&str>, example: Value) -> RefOr<Schema> {
    let description = description.map(str::to_owned);
    let examples = if example.is_null() {
        Vec::new()
    } else {
        vec![example]
    };
    match schema {
        RefOr::T(Schema::Object(mut object)) => {
            object.description = description;
            object.examples = examples;
            RefOr::T(Schema::Object(object))
        }
        RefOr::T(Schema::Array(mut array)) => {
            array.description = description;
            array.examples = examples;
            RefOr::T(Schema::Array(array))
        }
        RefOr::T(Schema::OneOf(mut one_of)) => {
            match one_of.items.first_mut() {
                Some(RefOr::Ref(reference)) => {
                    reference.description = description.unwrap_or_default()
                }
                _ => one_of.description = description,
            }
            RefOr::T(Schema::OneOf(one_of))
        }
        RefOr::Ref(mut reference) => {
            reference.description = description.unwrap_or_default();
            RefOr::Ref(reference)
        }
        other => other,
    }
}

/// Adds property `key` to `object`.
pub fn property(
    object: &mut Object,
    key: &str,
    schema: RefOr<Schema>,
    example: Value,
    description: Option<&str>,
    required: bool,
    is_nullable: bool,
) {
    let schema = if is_nullable {
        nullable(schema)
    } else {
        schema
    };
    object
        .properties
        .insert(key.to_owned(), describe(schema, description, example));
    if required {
        require(object, &[key]);
    }
}

/// Marks `keys` required (fields declared optional in a flattened part).
pub fn require(object: &mut Object, keys: &[&str]) {
    for key in keys {
        if !object.required.iter().any(|k| k == key) {
            object.required.push((*key).to_owned());
        }
    }
}

/// Adds a constraint across properties, kept in `allOf` so several compose.
fn constrain(object: &mut Object, constraint: Value) {
    let extensions = object.extensions.get_or_insert_with(Extensions::default);
    match extensions.get_mut("allOf") {
        Some(Value::Array(all)) => all.push(constraint),
        _ => {
            extensions.insert("allOf".into(), json!([constraint]));
        }
    }
}

/// Documents that `keys` may not all be sent together (one key: may not be sent).
pub fn forbid_together(object: &mut Object, keys: &[&str]) {
    constrain(object, json!({"not": {"required": keys}}));
}

/// Documents that `keys` may not all be given together, a `null` one counting as not
/// given (an answer shows the form it does not use as null).
pub fn exclusive(object: &mut Object, keys: &[&str]) {
    let given: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| ((*k).to_owned(), json!({"not": {"type": "null"}})))
        .collect();
    constrain(
        object,
        json!({"not": {"required": keys, "properties": given}}),
    );
}

/// Documents `key` as a field of the record the body cannot change: read-only, accepted
/// only with the record's current value (a `GET` answer sent back).
pub fn fixed(object: &mut Object, key: &str, message: &str) {
    let schema = ObjectBuilder::new()
        .read_only(true)
        .description(Some(format!(
            "Read-only: accepted when equal to the record's current value (a GET answer sent back); any other value {message}."
        )))
        .build();
    object
        .properties
        .insert(key.to_owned(), RefOr::T(Schema::Object(schema)));
}

/// Documents a rule across properties written as a JSON Schema fragment (an `if`/`then`).
pub fn rule(object: &mut Object, fragment: Value) {
    constrain(object, fragment);
}

/// Merges the properties, required list and constraints of `other` into `object`
/// (a flattened nested declaration).
pub fn merge(object: &mut Object, other: Object) {
    for (key, schema) in other.properties {
        object.properties.insert(key, schema);
    }
    for key in other.required {
        if !object.required.contains(&key) {
            object.required.push(key);
        }
    }
    if let Some(Value::Array(all)) = other.extensions.as_ref().and_then(|e| e.get("allOf")) {
        for constraint in all.clone() {
            constrain(object, constraint);
        }
    }
}

/// A query parameter of a list's filters.
pub fn query_parameter(name: &str, description: &str, schema: RefOr<Schema>) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description((!description.is_empty()).then_some(description))
        .schema(Some(schema))
        .build()
}
