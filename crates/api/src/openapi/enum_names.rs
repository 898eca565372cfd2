//! A name for every enum of the document. Client generators make a type of each enum and
//! name it after where it stands; an enum written inline under an operation id they cannot
//! tell apart (or under a property two schemas share) yields colliding or dropped types.
//! So each inline enum becomes a component, named after the schema and property it stands
//! in (`CreateQueue.strategy` → `QueueStrategy`), the title its definition gives
//! (`ExtensionSortBy`), or one of the shared names below; uses refer to it by `$ref`.
//! Every component enum of strings also lists `x-enum-varnames`, identifiers that stay
//! distinct where a generator's own spelling would merge values (`Etc/GMT+1` and
//! `Etc/GMT-1` both become `ETC_GMT1` there).

use std::collections::BTreeMap;

use serde_json::Value;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{AdditionalProperties, ArrayItems, Object, Schema};
use utoipa::openapi::{OpenApi, Ref, RefOr};

/// Value sets shared by many operations, named once whatever they stand under.
const SHARED: &[(&[&str], &str)] = &[
    (&["asc", "desc"], "SortDirection"),
    (&["0", "1", "true", "false"], "Flag"),
    (&["yes", "no"], "YesNo"),
];

/// Prefixes dropped from a schema's name when naming its enums, so the create and the
/// update body of a record share one (`CreateConduit.kind`, `UpdateConduit.kind` →
/// `ConduitKind`) — unless their values differ, and then each keeps its own.
const BODY_PREFIXES: &[&str] = &["Create", "Update"];

/// An enum's name, in order of preference: the first that is free, or already names the
/// same values, is taken.
struct Candidates(Vec<String>);

impl Candidates {
    /// Names for an enum standing at `context` (a schema's name followed by the property
    /// path, in PascalCase), with its body prefix dropped first.
    fn at(context: &str) -> Candidates {
        let mut names = Vec::new();
        for prefix in BODY_PREFIXES {
            if let Some(rest) = context.strip_prefix(prefix)
                && rest.starts_with(|c: char| c.is_ascii_uppercase())
            {
                names.push(rest.to_owned());
            }
        }
        names.push(context.to_owned());
        Candidates(names)
    }
}

/// The document's own components (with the values of those that are enums) and the
/// enums named so far.
struct Namer {
    existing: BTreeMap<String, Option<Vec<Value>>>,
    named: BTreeMap<String, RefOr<Schema>>,
}

impl Namer {
    /// Replaces `schema`, when it is an inline enum, by a reference to its component.
    fn name(&mut self, schema: &mut RefOr<Schema>, candidates: &dyn Fn() -> Candidates) {
        let RefOr::T(Schema::Object(object)) = schema else {
            return;
        };
        let Some(values) = object.enum_values.clone() else {
            return;
        };
        let shared = SHARED.iter().find(|(set, _)| {
            values.len() == set.len() && values.iter().zip(set.iter()).all(|(v, s)| v == s)
        });
        let title = object.title.take();
        let names = match shared {
            Some((_, name)) => vec![(*name).to_owned()],
            None => title.into_iter().chain(candidates().0).collect(),
        };
        for name in names {
            if let Some(existing) = self.existing.get(&name) {
                if existing.as_ref() != Some(&values) {
                    continue;
                }
            } else {
                match self.named.get(&name) {
                    Some(RefOr::T(Schema::Object(earlier)))
                        if earlier.enum_values.as_ref() == Some(&values)
                            && earlier.schema_type == object.schema_type => {}
                    Some(_) => continue,
                    None => {
                        self.named
                            .insert(name.clone(), RefOr::T(Schema::Object(component(object))));
                    }
                }
            }
            let mut reference = Ref::from_schema_name(name);
            if let Some(description) = object.description.take() {
                reference.description = description;
            }
            *schema = RefOr::Ref(reference);
            return;
        }
        // Every name is taken by other values: the enum stays inline, and the document's
        // test names it.
    }

    /// Names the enums inside `schema`, which stands at `context`.
    fn walk(&mut self, schema: &mut RefOr<Schema>, context: &str) {
        let RefOr::T(schema) = schema else { return };
        match schema {
            Schema::Object(object) => {
                for (property, child) in object.properties.iter_mut() {
                    let context = format!("{context}{}", pascal(property));
                    self.name(child, &|| Candidates::at(&context));
                    self.walk(child, &context);
                }
                if let Some(additional) = object.additional_properties.as_deref_mut()
                    && let AdditionalProperties::RefOr(child) = additional
                {
                    let context = format!("{context}Value");
                    self.name(child, &|| Candidates::at(&context));
                    self.walk(child, &context);
                }
            }
            Schema::Array(array) => {
                if let ArrayItems::RefOrSchema(items) = &mut array.items {
                    let context = singular(context);
                    self.name(items, &|| Candidates::at(&context));
                    self.walk(items, &context);
                }
            }
            Schema::OneOf(one_of) => {
                for child in &mut one_of.items {
                    self.name(child, &|| Candidates::at(context));
                    self.walk(child, context);
                }
            }
            Schema::AllOf(all_of) => {
                for child in &mut all_of.items {
                    self.name(child, &|| Candidates::at(context));
                    self.walk(child, context);
                }
            }
            Schema::AnyOf(any_of) => {
                for child in &mut any_of.items {
                    self.name(child, &|| Candidates::at(context));
                    self.walk(child, context);
                }
            }
            _ => {}
        }
    }

    /// Names the enums of an operation's parameters and inline bodies.
    fn operation(&mut self, operation: &mut Operation) {
        let context = operation_context(operation.operation_id.as_deref().unwrap_or("Operation"));
        for parameter in operation.parameters.iter_mut().flatten() {
            let RefOr::T(parameter) = parameter else {
                continue;
            };
            let Some(schema) = parameter.schema.as_mut() else {
                continue;
            };
            let parameter_context = format!("{context}{}", pascal(&parameter.name));
            self.name(schema, &|| Candidates::at(&parameter_context));
            self.walk(schema, &parameter_context);
        }
        if let Some(RefOr::T(body)) = operation.request_body.as_mut() {
            for content in body.content.values_mut() {
                let RefOr::T(content) = content else { continue };
                if let Some(schema) = content.schema.as_mut() {
                    let body_context = format!("{context}Body");
                    self.walk(schema, &body_context);
                }
            }
        }
    }
}

/// Gives every inline enum of `openapi` a component of its own (see the module's text).
pub fn name_enums(openapi: &mut OpenApi) {
    let components = openapi.components.get_or_insert_with(Default::default);
    let mut schemas = std::mem::take(&mut components.schemas);
    let existing = schemas
        .iter()
        .map(|(name, schema)| {
            let values = match schema {
                RefOr::T(Schema::Object(object)) => object.enum_values.clone(),
                _ => None,
            };
            (name.clone(), values)
        })
        .collect();
    let mut namer = Namer {
        existing,
        named: BTreeMap::new(),
    };
    for (name, schema) in schemas.iter_mut() {
        namer.walk(schema, name);
    }
    for item in openapi.paths.paths.values_mut() {
        for operation in [
            item.get.as_mut(),
            item.post.as_mut(),
            item.patch.as_mut(),
            item.put.as_mut(),
            item.delete.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            namer.operation(operation);
        }
    }
    schemas.extend(namer.named);
    for schema in schemas.values_mut() {
        if let RefOr::T(Schema::Object(object)) = schema {
            add_variable_names(object);
        }
    }
    openapi
        .components
        .get_or_insert_with(Default::default)
        .schemas = schemas;
}

/// The component an inline enum becomes: its type, values and examples (its description
/// stays with each use).
fn component(object: &Object) -> Object {
    let mut component = Object::new();
    component.schema_type = object.schema_type.clone();
    component.enum_values = object.enum_values.clone();
    component.examples = object.examples.clone();
    component
}

/// Adds `x-enum-varnames` to an enum of strings: one distinct identifier per value.
fn add_variable_names(object: &mut Object) {
    let Some(values) = object.enum_values.as_ref() else {
        return;
    };
    let names: Option<Vec<String>> = values
        .iter()
        .map(|v| match v {
            Value::String(s) => Some(variable_name(s)),
            Value::Null => Some("NONE".to_owned()),
            _ => None,
        })
        .collect();
    let Some(names) = names else { return };
    let mut seen = std::collections::HashSet::new();
    if !names.iter().all(|n| seen.insert(n.clone())) {
        // Two values spelled alike even here: leave the generators' own names (the
        // document's test fails on the collision).
        return;
    }
    object
        .extensions
        .get_or_insert_with(Default::default)
        .insert("x-enum-varnames".to_owned(), Value::from(names));
}

/// An identifier for an enum value, in UPPER_SNAKE_CASE: letters and digits kept, a sign
/// before a digit spelled out (`Etc/GMT-1` → `ETC_GMT_MINUS_1`), any other run of
/// characters one underscore, and a word break before an upper-case letter that follows a
/// lower-case one (`ringAll` → `RING_ALL`).
pub fn variable_name(value: &str) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    let chars: Vec<char> = value.chars().collect();
    let separate = |out: &mut String| {
        if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let next_is_digit = chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase()) {
                separate(&mut out);
            }
            out.push(c.to_ascii_uppercase());
        } else if (c == '+' || c == '-') && next_is_digit {
            separate(&mut out);
            out.push_str(if c == '+' { "PLUS" } else { "MINUS" });
            out.push('_');
        } else {
            separate(&mut out);
        }
        previous = Some(c);
    }
    let out = out.trim_end_matches('_').to_owned();
    match out.chars().next() {
        // Only signs: each spelled out (`*` → `STAR`, `#` → `HASH`).
        None if !value.is_empty() => value
            .chars()
            .map(|c| match c {
                '*' => "STAR".to_owned(),
                '#' => "HASH".to_owned(),
                '+' => "PLUS".to_owned(),
                '-' => "MINUS".to_owned(),
                other => format!("U{:04X}", u32::from(other)),
            })
            .collect::<Vec<_>>()
            .join("_"),
        None => "EMPTY".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("VALUE_{out}"),
        Some(_) => out,
    }
}

/// The part of an operation id that names what it acts on: `listExtensions` →
/// `Extensions`, `getDestinationGraphUnversioned` → `DestinationGraph` (so a release-note
/// path's enums share the `/v2` path's names).
fn operation_context(operation_id: &str) -> String {
    let id = operation_id
        .strip_suffix("Unversioned")
        .unwrap_or(operation_id);
    let verb_end = id
        .find(|c: char| c.is_ascii_uppercase())
        .unwrap_or(id.len());
    let rest = &id[verb_end..];
    if rest.is_empty() {
        pascal(id)
    } else {
        rest.to_owned()
    }
}

/// `sortBy` → `SortBy`, `dest_type` → `DestType`, `call-outcomes` → `CallOutcomes`.
fn pascal(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The name of one item of a list named `context` (`UserPermissions` → `UserPermission`).
fn singular(context: &str) -> String {
    if context.ends_with("ss") || context.ends_with("us") {
        return format!("{context}Item");
    }
    match context.strip_suffix('s') {
        Some(one) if !one.is_empty() => one.to_owned(),
        _ => format!("{context}Item"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_names_keep_signs_and_words_apart() {
        assert_eq!(variable_name("Etc/GMT+1"), "ETC_GMT_PLUS_1");
        assert_eq!(variable_name("Etc/GMT-1"), "ETC_GMT_MINUS_1");
        assert_eq!(variable_name("GMT0"), "GMT0");
        assert_eq!(variable_name("GMT-0"), "GMT_MINUS_0");
        assert_eq!(
            variable_name("America/Port-au-Prince"),
            "AMERICA_PORT_AU_PRINCE"
        );
        assert_eq!(variable_name("ringAll"), "RING_ALL");
        assert_eq!(variable_name("partners:read"), "PARTNERS_READ");
        assert_eq!(variable_name("NO ANSWER"), "NO_ANSWER");
        assert_eq!(variable_name("0"), "VALUE_0");
        assert_eq!(variable_name("HubSpotCRM"), "HUB_SPOT_CRM");
        assert_eq!(variable_name("*"), "STAR");
        assert_eq!(variable_name("#"), "HASH");
        assert_eq!(variable_name(""), "EMPTY");
    }

    #[test]
    fn operation_ids_name_what_they_act_on() {
        assert_eq!(operation_context("listExtensions"), "Extensions");
        assert_eq!(
            operation_context("getDestinationGraphUnversioned"),
            "DestinationGraph"
        );
        assert_eq!(operation_context("logIn"), "In");
        assert_eq!(pascal("sortBy"), "SortBy");
        assert_eq!(pascal("dest_type"), "DestType");
        assert_eq!(singular("UserPermissions"), "UserPermission");
        assert_eq!(singular("Hours"), "Hour");
        assert_eq!(singular("Status"), "StatusItem");
    }

    #[test]
    fn body_prefixes_are_dropped_first() {
        assert_eq!(
            Candidates::at("CreateConduitKind").0,
            vec!["ConduitKind".to_owned(), "CreateConduitKind".to_owned()]
        );
        assert_eq!(Candidates::at("Creates").0, vec!["Creates".to_owned()]);
    }
}
