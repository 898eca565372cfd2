//! Every closed set of the platform is a Rust enum (`closed_set!`, issue 31) and an `enum`
//! of the document: the list below names each one, a scan of the domain's sources checks
//! that none is left out, and the document must hold each set's values, in order, as an
//! enum schema. Sets that are data rather than the platform's own (time zones, countries,
//! device models, a list's sort fields) are not closed sets; they are named at the end
//! with why.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use switchboard_domain::list::Direction;
use switchboard_domain::records::YesNo;
use switchboard_domain::records::audit::AuditEntity;
use switchboard_domain::records::call::{CallDirection, CallDisposition, CallPhase, TransferKind};
use switchboard_domain::records::call_campaign::{CampaignStatus, RecordStatus};
use switchboard_domain::records::conduit::{ConduitDirection, ConduitKind, ConduitStatus};
use switchboard_domain::records::destination::DestType;
use switchboard_domain::records::device_model::KeyType;
use switchboard_domain::records::engine_job::EngineJobKind;
use switchboard_domain::records::ivr::MenuKey;
use switchboard_domain::records::music_on_hold::PlayMode;
use switchboard_domain::records::opt_out::{OptOutLevel, OptOutSource};
use switchboard_domain::records::paging_group::{CheckInUse, TwoWayAudio};
use switchboard_domain::records::pharmacy_agent::RefillOutcome;
use switchboard_domain::records::queue::QueueStrategy;
use switchboard_domain::records::report::{ChannelRole, Grouping};
use switchboard_domain::records::traffic::TrafficDirection;
use switchboard_domain::records::voicemail::VoicemailFolder;
use switchboard_domain::records::webhook::EventType;
use switchboard_domain::records::webhook_delivery::DeliveryState;
use switchboard_domain::routing::GraphFormat;
use switchboard_domain::validation::ClosedSet;

/// A closed set's name and its values' texts, in order.
fn set<T: ClosedSet>() -> (&'static str, Vec<&'static str>) {
    (T::NAME, T::ALL.iter().map(|v| v.text()).collect())
}

/// Every closed set, each read somewhere as a whole.
fn closed_sets() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        set::<AuditEntity>(),
        set::<CallDirection>(),
        set::<CallDisposition>(),
        set::<CallPhase>(),
        set::<CampaignStatus>(),
        set::<ChannelRole>(),
        set::<CheckInUse>(),
        set::<ConduitDirection>(),
        set::<ConduitKind>(),
        set::<ConduitStatus>(),
        set::<DeliveryState>(),
        set::<DestType>(),
        set::<Direction>(),
        set::<EngineJobKind>(),
        set::<EventType>(),
        set::<GraphFormat>(),
        set::<Grouping>(),
        set::<KeyType>(),
        set::<MenuKey>(),
        set::<OptOutLevel>(),
        set::<OptOutSource>(),
        set::<PlayMode>(),
        set::<QueueStrategy>(),
        set::<RecordStatus>(),
        set::<RefillOutcome>(),
        set::<TrafficDirection>(),
        set::<TransferKind>(),
        set::<TwoWayAudio>(),
        set::<VoicemailFolder>(),
        set::<YesNo>(),
    ]
}

/// Closed sets the document states otherwise than as one enum of all their values, with
/// how; the test checks that instead.
const DOCUMENTED_OTHERWISE: &[(&str, &str)] = &[
    (
        "AuditEntity",
        "read as a comma-separated list (`entities`): a string whose pattern names each value",
    ),
    (
        "DestType",
        "each destination list takes its own part of it (`MEDIA_FILE` only in playlists): \
         the call targets are one enum, the playlists' `MEDIA_FILE` another",
    ),
];

/// Sets the readers take that are not closed sets: their values are data, not the
/// platform's own choices, so they stay checked against that data.
const OPEN_SETS: &[(&str, &str)] = &[
    (
        "TimeZone",
        "the IANA database's names, as chrono-tz ships them",
    ),
    ("country", "the countries the phone-number library knows"),
    (
        "deviceModel",
        "the ids of the device catalogue (data/device-models.json)",
    ),
    ("sortBy", "each list's declared sort fields"),
    (
        "permission",
        "access::Permission, already an enum with its own rule",
    ),
];

fn document() -> Value {
    serde_json::to_value(switchboard_api::openapi()).expect("the document serialises")
}

/// Every `enum` array of strings in `node`.
fn enums(node: &Value, out: &mut Vec<Vec<String>>) {
    match node {
        Value::Object(object) => {
            if let Some(Value::Array(values)) = object.get("enum") {
                let texts: Vec<String> = values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect();
                if texts.len() == values.len() {
                    out.push(texts);
                }
            }
            for child in object.values() {
                enums(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|child| enums(child, out)),
        _ => {}
    }
}

/// Every `pattern` in `node`.
fn patterns(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(object) => {
            if let Some(Value::String(pattern)) = object.get("pattern") {
                out.push(pattern.clone());
            }
            for child in object.values() {
                patterns(child, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|child| patterns(child, out)),
        _ => {}
    }
}

#[test]
fn every_closed_set_is_an_enum_of_the_document() {
    let document = document();
    let mut found = Vec::new();
    enums(&document, &mut found);
    let mut problems = Vec::new();
    for (name, values) in closed_sets() {
        if DOCUMENTED_OTHERWISE.iter().any(|(other, _)| *other == name) {
            continue;
        }
        if !found.iter().any(|e| e == &values) {
            problems.push(format!("{name} {values:?} is no enum of the document"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_sets_documented_otherwise_are_there() {
    let document = document();
    let mut found = Vec::new();
    enums(&document, &mut found);
    let targets: Vec<String> = DestType::CALL_TARGETS
        .iter()
        .map(|t| t.as_str().to_owned())
        .collect();
    assert!(found.contains(&targets), "the call targets {targets:?}");
    assert!(
        found.contains(&vec![DestType::MediaFile.as_str().to_owned()]),
        "the playlists' MEDIA_FILE"
    );
    let mut all = Vec::new();
    patterns(&document, &mut all);
    let entities = all
        .iter()
        .find(|p| p.contains("call-campaign-record"))
        .expect("the audit entities' pattern");
    for entity in AuditEntity::ALL {
        assert!(
            entity_in(entities, entity.as_str()),
            "{entity} in {entities}"
        );
    }
}

/// Whether the comma list's pattern names `entity` as one of its alternatives.
fn entity_in(pattern: &str, entity: &str) -> bool {
    pattern
        .split(['(', ')', '|', ':', '?'])
        .any(|part| part.replace('\\', "") == entity)
}

/// The names of the enums `closed_set!` declares in `dir`'s sources.
fn declared(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("the domain's sources") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            declared(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            for block in text.split("closed_set! {").skip(1) {
                let Some(rest) = block.split("pub enum ").nth(1) else {
                    continue;
                };
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
}

#[test]
fn the_list_names_every_declared_closed_set() {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("../domain/src");
    let mut names = BTreeSet::new();
    declared(&sources, &mut names);
    let listed: BTreeSet<String> = closed_sets()
        .into_iter()
        .map(|(name, _)| name.to_owned())
        .collect();
    assert_eq!(
        names, listed,
        "a closed set is declared but not listed here"
    );
    // The open sets are named for the reader of this test, not checked.
    assert!(OPEN_SETS.iter().all(|(_, why)| !why.is_empty()));
}
