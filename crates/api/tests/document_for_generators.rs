//! The document is one every client generator can read: each operation has an id of its
//! own (generators name methods and files after it), and every enum is a named component
//! with distinct identifiers for its values (generators name a type after each enum; two
//! enums under one name, or two values under one identifier, make them drop or refuse
//! the operation). `scripts/generated-clients.sh` runs the generators themselves.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

fn document() -> Value {
    serde_json::to_value(switchboard_api::openapi()).expect("the document serialises")
}

/// Every operation of the document: `(method, path, operation)`.
fn operations(document: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            if ["get", "post", "patch", "put", "delete"].contains(&method.as_str()) {
                out.push((method.to_uppercase(), path.clone(), operation));
            }
        }
    }
    out
}

#[test]
fn every_operation_has_an_id_of_its_own_in_lower_camel_case() {
    let document = document();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut problems = Vec::new();
    for (method, path, operation) in operations(&document) {
        let here = format!("{method} {path}");
        let Some(id) = operation["operationId"].as_str() else {
            problems.push(format!("{here} has no operationId"));
            continue;
        };
        let camel = id.starts_with(|c: char| c.is_ascii_lowercase())
            && id.chars().all(|c| c.is_ascii_alphanumeric())
            && id.chars().any(|c| c.is_ascii_uppercase());
        if !camel {
            problems.push(format!(
                "{here}: `{id}` is not a verb and a resource in lowerCamelCase"
            ));
        }
        if let Some(earlier) = seen.insert(id.to_owned(), here.clone()) {
            problems.push(format!("{here} and {earlier} share the id `{id}`"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(seen.len() > 200, "only {} operations", seen.len());
}

/// Where an inline enum stands, by JSON pointer, outside the places generators never make a
/// type of: a component's root (it is the named enum), a conditional's `if` (a generator
/// reads the branches, not the condition) and `propertyNames` (a map's keys).
fn inline_enums(node: &Value, pointer: &str, out: &mut Vec<String>) {
    match node {
        Value::Object(object) => {
            let is_component_root =
                pointer.starts_with("/components/schemas/") && pointer.matches('/').count() == 3;
            if object.contains_key("enum") && !is_component_root {
                out.push(pointer.to_owned());
            }
            for (key, child) in object {
                if key == "if" || key == "propertyNames" {
                    continue;
                }
                inline_enums(child, &format!("{pointer}/{}", key.replace('/', "~1")), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                inline_enums(child, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_enum_is_a_named_component() {
    let document = document();
    let mut found = Vec::new();
    inline_enums(&document, "", &mut found);
    assert!(
        found.is_empty(),
        "enums written inline, which generators name after the operation or property and \
         then find twice with other values (openapi::enum_names names them):\n{found:#?}"
    );
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("schemas");
    for name in [
        "ExtensionSortBy",
        "SortDirection",
        "QueueStrategy",
        "ConduitKind",
        "TimeZone",
    ] {
        assert!(
            schemas.get(name).is_some_and(|s| s.get("enum").is_some()),
            "no enum component {name}"
        );
    }
    // A list's sort fields name each field once.
    for (name, schema) in schemas {
        if let Some(values) = schema["enum"].as_array() {
            let distinct: BTreeSet<String> = values.iter().map(Value::to_string).collect();
            assert_eq!(distinct.len(), values.len(), "{name} lists a value twice");
        }
    }
}

#[test]
fn every_enum_of_strings_names_each_value_distinctly() {
    let document = document();
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("schemas");
    let mut checked = 0;
    for (name, schema) in schemas {
        let Some(values) = schema["enum"].as_array() else {
            continue;
        };
        if !values.iter().any(Value::is_string) {
            continue;
        }
        let names = schema["x-enum-varnames"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has no x-enum-varnames"));
        assert_eq!(names.len(), values.len(), "{name}");
        let distinct: BTreeSet<&str> = names.iter().filter_map(Value::as_str).collect();
        assert_eq!(distinct.len(), names.len(), "{name} names two values alike");
        // What a generator spells itself, case and punctuation folded, would have collided
        // for the time zones (`Etc/GMT+1`, `Etc/GMT-1`); the names must not.
        checked += 1;
    }
    assert!(checked > 20, "only {checked} enums of strings");
    let zones = &schemas["TimeZone"];
    let position = |zone: &str| {
        zones["enum"]
            .as_array()
            .and_then(|v| v.iter().position(|z| z == zone))
            .unwrap_or_else(|| panic!("{zone} is not a time zone of the document"))
    };
    assert_eq!(
        zones["x-enum-varnames"][position("Etc/GMT+1")],
        "ETC_GMT_PLUS_1"
    );
    assert_eq!(
        zones["x-enum-varnames"][position("Etc/GMT-1")],
        "ETC_GMT_MINUS_1"
    );
}
