//! The OpenAPI document and the body readers cannot drift apart.
//!
//! Every JSON request body the served document describes is read here by the reader
//! declared with it (`#[derive(Body)]`): the document's example must be accepted, and each
//! value the schema refuses — one character past `maxLength`, one below `minimum`, a value
//! outside `enum`, a broken `pattern`, a missing `required` key, `null` where the schema
//! does not allow it, a key the schema forbids — must be refused by the reader at that
//! field's path. Values just inside each bound must be accepted, unless a rule no schema
//! can state (listed in `UNSTATABLE` and in docs/decisions.md) refuses them.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::{Map, Value, json};
use switchboard_domain::records::{
    announcement, branch, business_hour, button_layout, call, call_campaign, call_outcome, conduit,
    custom_voice, device, engine_job, extension, fax, ivr, media_file, music_on_hold, opt_out,
    paging_group, partner, pharmacy_agent, phone_number, queue, report, speech, tenant, traffic,
    user, voicemail, webhook,
};
use switchboard_domain::validation::{FromBody, Problems};

/// Reads a body with `T`'s reader, answering the problems it found.
type Reader = fn(&Value) -> Result<(), Vec<String>>;

fn read<T: FromBody>(body: &Value) -> Result<(), Vec<String>> {
    T::from_body(body)
        .map(|_| ())
        .map_err(Problems::into_messages)
}

/// The reader of every JSON body, by the name its schema has in the document.
fn readers() -> BTreeMap<String, Reader> {
    macro_rules! readers {
        ($($ty:ty),* $(,)?) => {
            BTreeMap::from([$(
                (<$ty as utoipa::ToSchema>::name().into_owned(), read::<$ty> as Reader),
            )*])
        };
    }
    use switchboard_api::routes::{authentication, me};
    readers![
        announcement::CreateAnnouncement,
        announcement::UpdateAnnouncement,
        branch::CreateBranch,
        branch::UpdateBranch,
        business_hour::CreateBusinessHour,
        business_hour::UpdateBusinessHour,
        business_hour::CreateHoliday,
        business_hour::UpdateHoliday,
        extension::CreateExtension,
        extension::UpdateExtension,
        ivr::CreateIvr,
        ivr::UpdateIvr,
        media_file::UpdateMediaFile,
        paging_group::CreatePagingGroup,
        paging_group::UpdatePagingGroup,
        partner::CreatePartner,
        partner::UpdatePartner,
        phone_number::CreatePhoneNumber,
        phone_number::UpdatePhoneNumber,
        tenant::CreateTenant,
        tenant::UpdateTenant,
        user::CreateUser,
        user::UpdateUser,
        voicemail::UpdateVoicemail,
        voicemail::IngestVoicemail,
        call::IngestCall,
        traffic::IngestSms,
        traffic::IngestFax,
        webhook::CreateWebhook,
        webhook::UpdateWebhook,
        device::CreateDevice,
        device::UpdateDevice,
        device::IngestRegistration,
        button_layout::CreateButtonLayout,
        button_layout::UpdateButtonLayout,
        custom_voice::CreateCustomVoice,
        custom_voice::UpdateCustomVoice,
        queue::CreateQueue,
        queue::UpdateQueue,
        report::IngestTranscript,
        conduit::CreateConduit,
        conduit::UpdateConduit,
        conduit::IngestConduitCheck,
        pharmacy_agent::CreatePharmacyAgent,
        pharmacy_agent::UpdatePharmacyAgent,
        pharmacy_agent::IngestRefillRequest,
        music_on_hold::CreateMusicOnHold,
        music_on_hold::UpdateMusicOnHold,
        call_campaign::CreateCallCampaign,
        call_campaign::UpdateCallCampaign,
        call_campaign::CallingWindowBody,
        call_campaign::CreateCampaignRecord,
        call_campaign::UpdateCampaignRecord,
        call_campaign::ImportRow,
        call_campaign::ImportRows,
        call_outcome::CreateCallOutcome,
        call_outcome::UpdateCallOutcome,
        opt_out::CreateOptOut,
        opt_out::UpdateOptOut,
        speech::SpeakRequest,
        authentication::LoginRequest,
        authentication::RefreshRequest,
        me::ChangePassword,
        me::ConfirmPassword,
        me::ConfirmCode,
        engine_job::ClaimJobs,
        engine_job::JobResult,
        traffic::SendText,
        fax::SetFaxRetryPolicy,
    ]
}

/// Values inside every bound the schema states that a reader still refuses, by a rule across
/// fields or records no JSON Schema can state: `(schema, field path, the rule)`.
const UNSTATABLE: &[(&str, &str, &str)] = &[
    ("CreateUser", "password", PASSWORD_STRENGTH),
    ("UpdateUser", "password", PASSWORD_STRENGTH),
    ("ChangePassword", "newPassword", PASSWORD_STRENGTH),
    (
        "SpeakRequest",
        "text",
        "exactly one of text and segments is sent, and text holds more than white space",
    ),
    ("IngestTranscript", "channels/0/channel", TRANSCRIPT_LEGEND),
    ("IngestTranscript", "segments/0/channel", TRANSCRIPT_LEGEND),
    (
        "IngestTranscript",
        "segments/0/startMs",
        "a segment does not end before it starts",
    ),
    (
        "IngestRefillRequest",
        "agentId",
        "the agent is named by agentId or by agentNumber",
    ),
    (
        "IngestRefillRequest",
        "uniqueId",
        "the request is keyed by requestId or, without one, by the call's uniqueId",
    ),
    (
        "IngestRefillRequest",
        "rxNumbers",
        "a request whose outcome is submitted carries at least one prescription number",
    ),
];

/// Why a channel number inside its bounds may still be refused.
const TRANSCRIPT_LEGEND: &str =
    "the legend numbers its channels 0, 1, … once each, and segments use its channels";

/// Why a password inside its length bounds may still be refused.
const PASSWORD_STRENGTH: &str = "a password must not be a common one or easy to guess";

/// The served document as JSON.
fn document() -> Value {
    serde_json::to_value(switchboard_api::openapi()).expect("the document serialises")
}

/// A schema with `$ref`s resolved against the document's components.
struct Schemas<'a> {
    components: &'a Map<String, Value>,
}

impl<'a> Schemas<'a> {
    fn resolve(&self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.trim_start_matches("#/components/schemas/");
                self.resolve(&self.components[name])
            }
            None => schema,
        }
    }

    /// Whether `value` is one the schema admits (the subset of JSON Schema the document uses).
    fn admits(&self, schema: &Value, value: &Value) -> bool {
        let schema = self.resolve(schema);
        let Some(schema) = schema.as_object() else {
            return true;
        };
        if let Some(all) = schema.get("allOf").and_then(Value::as_array)
            && !all.iter().all(|s| self.admits(s, value))
        {
            return false;
        }
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array)
            && !any.iter().any(|s| self.admits(s, value))
        {
            return false;
        }
        if let Some(one) = schema.get("oneOf").and_then(Value::as_array)
            && one.iter().filter(|s| self.admits(s, value)).count() != 1
        {
            return false;
        }
        if let Some(not) = schema.get("not")
            && self.admits(not, value)
        {
            return false;
        }
        if let (Some(condition), Some(then)) = (schema.get("if"), schema.get("then"))
            && self.admits(condition, value)
            && !self.admits(then, value)
        {
            return false;
        }
        if let Some(constant) = schema.get("const")
            && constant != value
        {
            return false;
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && !values.contains(value)
        {
            return false;
        }
        if let Some(kind) = schema.get("type")
            && !type_admits(kind, value)
        {
            return false;
        }
        match value {
            Value::String(text) => {
                let length = text.chars().count() as u64;
                let min = schema.get("minLength").and_then(Value::as_u64);
                let max = schema.get("maxLength").and_then(Value::as_u64);
                let pattern = schema.get("pattern").and_then(Value::as_str);
                min.is_none_or(|min| length >= min)
                    && max.is_none_or(|max| length <= max)
                    && pattern.is_none_or(|p| pattern_of(p).is_match(text))
                    && format_admits(schema.get("format").and_then(Value::as_str), text)
            }
            Value::Number(number) => {
                let n = number.as_f64().unwrap_or(f64::NAN);
                let min = schema.get("minimum").and_then(Value::as_f64);
                let max = schema.get("maximum").and_then(Value::as_f64);
                min.is_none_or(|min| n >= min) && max.is_none_or(|max| n <= max)
            }
            Value::Array(items) => {
                let count = items.len() as u64;
                let min = schema.get("minItems").and_then(Value::as_u64);
                let max = schema.get("maxItems").and_then(Value::as_u64);
                min.is_none_or(|min| count >= min)
                    && max.is_none_or(|max| count <= max)
                    && schema
                        .get("items")
                        .is_none_or(|item| items.iter().all(|v| self.admits(item, v)))
            }
            Value::Object(object) => {
                let required = schema.get("required").and_then(Value::as_array);
                let properties = schema.get("properties").and_then(Value::as_object);
                required.is_none_or(|keys| {
                    keys.iter()
                        .filter_map(Value::as_str)
                        .all(|k| object.contains_key(k))
                }) && properties.is_none_or(|properties| {
                    object.iter().all(|(key, v)| {
                        properties
                            .get(key)
                            .is_none_or(|property| self.admits(property, v))
                    })
                })
            }
            _ => true,
        }
    }
}

fn type_admits(kind: &Value, value: &Value) -> bool {
    let one = |kind: &str| match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    };
    match kind {
        Value::String(kind) => one(kind),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).any(one),
        _ => true,
    }
}

fn format_admits(format: Option<&str>, text: &str) -> bool {
    match format {
        Some("date") => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok(),
        Some("date-time") => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
        _ => true,
    }
}

fn pattern_of(pattern: &str) -> Regex {
    Regex::new(pattern)
        .unwrap_or_else(|e| panic!("the document's pattern {pattern} is broken: {e}"))
}

/// A field of an example body: its path below `body/` and its schema.
struct Site<'a> {
    path: Vec<String>,
    schema: &'a Value,
}

/// Every field present in `example` (nested objects and the first item of arrays included).
fn sites<'a>(
    schemas: &Schemas<'a>,
    schema: &'a Value,
    example: &Value,
    path: &[String],
    out: &mut Vec<Site<'a>>,
) {
    let schema = schemas.resolve(schema);
    match example {
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (key, value) in object {
                let Some(property) = properties.get(key) else {
                    continue;
                };
                let mut here = path.to_vec();
                here.push(key.clone());
                out.push(Site {
                    path: here.clone(),
                    schema: property,
                });
                sites(schemas, property, value, &here, out);
            }
        }
        Value::Array(items) => {
            if let (Some(item_schema), Some(first)) = (schema.get("items"), items.first()) {
                let mut here = path.to_vec();
                here.push("0".to_owned());
                sites(schemas, item_schema, first, &here, out);
            }
        }
        _ => {}
    }
}

/// Values at and just past each bound of a field's schema, and of the wrong kind.
fn probes(schemas: &Schemas<'_>, schema: &Value, current: &Value) -> Vec<Value> {
    let schema = schemas.resolve(schema);
    let mut out = vec![
        json!(null),
        json!(12345),
        json!("12345"),
        json!(true),
        json!({}),
        json!([]),
    ];
    let int = |key: &str| schema.get(key).and_then(Value::as_i64);
    let len = |key: &str| schema.get(key).and_then(Value::as_u64).map(|n| n as usize);
    if let Some(min) = int("minimum") {
        out.extend([json!(min - 1), json!(min)]);
    }
    if let Some(max) = int("maximum") {
        out.extend([json!(max), json!(max.saturating_add(1))]);
    }
    if let Some(text) = current.as_str() {
        let unit: String = text.chars().next().map_or("a".to_owned(), String::from);
        if let Some(max) = len("maxLength") {
            out.extend([json!(unit.repeat(max)), json!(unit.repeat(max + 1))]);
        }
        if let Some(min) = len("minLength") {
            out.push(json!(unit.repeat(min)));
            out.push(json!(
                text.chars().take(min.saturating_sub(1)).collect::<String>()
            ));
        }
        out.extend(["", " ", "\u{0}", "a\u{0}b", "x y", "!", "not-one-of-these"].map(|s| json!(s)));
    }
    if let Some(items) = current.as_array() {
        let first = items.first().cloned().unwrap_or(json!(1));
        if let Some(max) = len("maxItems") {
            out.push(Value::Array(vec![first.clone(); max + 1]));
        }
        if let Some(min) = len("minItems") {
            out.push(Value::Array(vec![first; min.saturating_sub(1)]));
        }
    }
    out
}

fn set(body: &mut Value, path: &[String], value: Option<Value>) {
    let (last, parents) = path.split_last().expect("a field path");
    let mut at = body;
    for step in parents {
        at = match at {
            Value::Array(items) => &mut items[step.parse::<usize>().expect("an index")],
            other => &mut other[step.as_str()],
        };
    }
    match (at, value) {
        (Value::Object(object), Some(v)) => {
            object.insert(last.clone(), v);
        }
        (Value::Object(object), None) => {
            object.remove(last);
        }
        (Value::Array(items), Some(v)) => items[last.parse::<usize>().expect("an index")] = v,
        _ => panic!("cannot set {path:?}"),
    }
}

/// Checks one body schema against its reader; answers every disagreement found.
fn disagreements(schemas: &Schemas<'_>, name: &str, reader: Reader) -> Vec<String> {
    let schema = &schemas.components[name];
    let mut found = Vec::new();
    let Some(example) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    else {
        return vec![format!("{name}: the document gives no example")];
    };
    if !schemas.admits(schema, example) {
        found.push(format!(
            "{name}: the document's example breaks its own schema: {example}"
        ));
    }
    if let Err(problems) = reader(example) {
        found.push(format!(
            "{name}: the reader refuses the document's example {example}: {problems:?}"
        ));
        return found;
    }
    let mut fields = Vec::new();
    sites(schemas, schema, example, &[], &mut fields);
    for site in &fields {
        let field = site.path.join("/");
        let prefix = format!("'body/{field}");
        let current = example
            .pointer(&format!("/{field}"))
            .cloned()
            .unwrap_or(Value::Null);
        let mut trials: Vec<Option<Value>> = probes(schemas, site.schema, &current)
            .into_iter()
            .map(Some)
            .collect();
        trials.push(None);
        for trial in trials {
            let mut body = example.clone();
            set(&mut body, &site.path, trial.clone());
            let admitted = schemas.admits(schema, &body);
            let shown = trial
                .as_ref()
                .map_or("(left out)".to_owned(), Value::to_string);
            match (admitted, reader(&body)) {
                (false, Ok(())) => found.push(format!(
                    "{name}: {field} = {shown} breaks the schema but the reader accepts it"
                )),
                (false, Err(problems)) => {
                    // Refused at the field itself (or, for the body as a whole, at `body`).
                    let whole = "'body/'".to_owned();
                    if !problems
                        .iter()
                        .any(|p| p.starts_with(&prefix) || p.starts_with(&whole))
                    {
                        found.push(format!(
                            "{name}: {field} = {shown} is refused elsewhere: {problems:?}"
                        ));
                    }
                }
                (true, Err(problems)) => {
                    let known = UNSTATABLE.iter().any(|(s, f, _)| *s == name && *f == field);
                    if !known {
                        found.push(format!(
                            "{name}: {field} = {shown} is inside the schema but refused: {problems:?}"
                        ));
                    }
                }
                (true, Ok(())) => {}
            }
        }
    }
    // Keys the schema forbids (`not: {required: [...]}`), sent with the example's values.
    for group in forbidden_groups(schema) {
        let mut body = example.clone();
        for key in &group {
            body[key.as_str()] = example_of(schemas, schema, key);
        }
        if reader(&body).is_ok() {
            found.push(format!(
                "{name}: {group:?} together break the schema but are accepted"
            ));
        }
    }
    found
}

/// The groups of keys a schema forbids together (one key: forbidden outright).
fn forbidden_groups(schema: &Value) -> Vec<Vec<String>> {
    schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.pointer("/not/required").and_then(Value::as_array))
        .map(|keys| {
            keys.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// A value for `key`: the property's own example, else a plausible one.
fn example_of(schemas: &Schemas<'_>, schema: &Value, key: &str) -> Value {
    schemas
        .resolve(schema)
        .pointer(&format!("/properties/{key}"))
        .and_then(|p| {
            schemas
                .resolve(p)
                .get("examples")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
                .cloned()
        })
        .unwrap_or(json!(1))
}

#[test]
fn every_json_body_is_read_as_the_document_says() {
    let document = document();
    let components = document["components"]["schemas"]
        .as_object()
        .expect("components");
    let schemas = Schemas { components };
    let readers = readers();
    let mut checked = std::collections::BTreeSet::new();
    let mut found = Vec::new();
    for (path, operations) in document["paths"].as_object().expect("paths") {
        for (method, operation) in operations.as_object().expect("operations") {
            let Some(reference) = operation
                .pointer("/requestBody/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
            else {
                continue;
            };
            let name = reference.trim_start_matches("#/components/schemas/");
            match readers.get(name) {
                Some(reader) if checked.insert(name.to_owned()) => {
                    found.extend(disagreements(&schemas, name, *reader));
                }
                Some(_) => {}
                None => found.push(format!("{method} {path}: no reader registered for {name}")),
            }
        }
    }
    assert!(checked.len() >= 30, "only {} bodies found", checked.len());
    assert!(
        found.is_empty(),
        "{} disagreements:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_checker_itself_tells_bounds() {
    let components = Map::new();
    let schemas = Schemas {
        components: &components,
    };
    let name = json!({"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-z]*$"});
    assert!(schemas.admits(&name, &json!("abc")));
    assert!(!schemas.admits(&name, &json!("abcd")));
    assert!(!schemas.admits(&name, &json!("")));
    assert!(!schemas.admits(&name, &json!("A")));
    let flag = json!({"type": "integer", "minimum": 0, "maximum": 1});
    assert!(schemas.admits(&flag, &json!(1)));
    assert!(!schemas.admits(&flag, &json!(2)));
    assert!(!schemas.admits(&flag, &json!("1")));
    let body = json!({"type": "object", "required": ["a"], "properties": {"a": flag},
                      "allOf": [{"not": {"required": ["b"]}}]});
    assert!(schemas.admits(&body, &json!({"a": 0})));
    assert!(!schemas.admits(&body, &json!({})));
    assert!(!schemas.admits(&body, &json!({"a": 0, "b": 1})));
    let either = json!({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]});
    assert!(schemas.admits(&either, &json!({"b": 1})));
    assert!(!schemas.admits(&either, &json!({"c": 1})));
}
