//! Button layouts: what each programmable key of a desk-phone model does, shared by the
//! tenant's phones of that model. Every rule that needs no database is checked here,
//! each broken one at its `'body/keys/N/…'` path.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::NAME;
use super::device_model::{DeviceModel, KeyType, KnownModel};
use crate::declare::{Body, Listed};
use crate::ids::{ButtonLayoutId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{
    Among, Chars, ID, Int, ListOf, Location, Nested, Problems, among, int, list_of, nested,
};

/// One key of a layout, as answered.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct LayoutKey {
    /// The key's position: 1 to the model's `maxKeys` (the phone's keys, then its
    /// expansion modules').
    pub index: i64,
    /// What it does: `line`, `blf`, `speedDial`, `park`, `voicemail`, `pagingGroup`,
    /// `dnd` or `none`.
    #[serde(rename = "type")]
    #[schema(value_type = String)]
    pub kind: KeyType,
    /// `line`: the device's line number (1 = primary); `blf`: an extension id of the
    /// tenant; `pagingGroup`: a paging group id of the tenant; `speedDial`: the number
    /// dialled; `park`: the park slot (optional); null for the others.
    pub value: Option<String>,
    /// The text shown beside the key, or null for the phone's default.
    pub label: Option<String>,
}

/// A button layout.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, device_model, tenant_id), filter = TenantFilter, table = "l", search("name"))]
pub struct ButtonLayout {
    /// The layout's id.
    pub id: ButtonLayoutId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// The model it is for, an id of `GET /v2/admin/device-models`.
    pub device_model: String,
    /// Its keys, by index.
    pub keys: Vec<LayoutKey>,
}

/// A key's position.
const INDEX: Int = int(1, 1000);
/// A key's type.
const KIND: Among<KeyType> = among();
/// A key's value: an id, a dial string or a line number, checked by type.
const VALUE: crate::validation::Text = crate::validation::text(0, 64);
/// A key's label: at most 32 characters, none of them a control character (a phone
/// would print them as garbage or cut the file's line at them).
pub const LABEL: Chars = Chars {
    min: 0,
    max: 32,
    pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
    allowed: |c| !c.is_control(),
    sample: "Reception",
};

/// One key of a layout, as sent.
#[derive(Clone, Debug, PartialEq, Body)]
pub struct KeyInput {
    /// The key's position, from 1.
    #[field(rule = INDEX)]
    pub index: i64,
    /// What it does.
    #[field(rule = KIND, name = "type")]
    pub kind: KeyType,
    /// The value its type needs (see the answer's `value`).
    #[field(rule = VALUE, nullable)]
    pub value: Option<String>,
    /// The text shown beside it.
    #[field(rule = LABEL, nullable)]
    pub label: Option<String>,
}

/// The keys of a layout, no index twice.
pub const KEYS: ListOf<Nested<KeyInput>> =
    list_of(nested::<KeyInput>(), 0, 1000).unique_by("index");

/// The body of `POST /v2/admin/button-layouts/`.
// `UpdateButtonLayout`, the body of `PATCH`, is generated from it; a field with `column`
// is stored in the layout's row, the keys by the repository (docs/decisions.md, "Declared
// once").
#[derive(Clone, Debug, Body)]
#[body(
    example = CreateButtonLayout::example_body,
    update(
        name = UpdateButtonLayout,
        doc = "The body of `PATCH /v2/admin/button-layouts/{id}`: fields not sent stay unchanged; a\nsent `keys` replaces every key.",
        fixed(tenantId = "cannot be changed"),
        example = UpdateButtonLayout::example_body,
    )
)]
pub struct CreateButtonLayout {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID, create_only)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// The model it is for (a change is refused while devices of another model use it).
    #[field(rule = KnownModel, column)]
    pub device_model: String,
    /// Its keys (index 1 is the primary line; a change replaces the current ones).
    #[field(rule = KEYS, default = Vec::new())]
    pub keys: Vec<KeyInput>,
}

impl CreateButtonLayout {
    fn example_body() -> Value {
        json!({"name": "Reception", "deviceModel": "yealink-t54w",
               "keys": [{"index": 1, "type": "line", "value": "1", "label": "Reception"},
                        {"index": 2, "type": "speedDial", "value": "5551234", "label": "Supplier"},
                        {"index": 3, "type": "dnd"}]})
    }
}

impl UpdateButtonLayout {
    fn example_body() -> Value {
        json!({"name": "Front desk",
               "keys": [{"index": 1, "type": "line"}, {"index": 2, "type": "voicemail", "label": "Messages"}]})
    }
}

fn is_dial(s: &str) -> bool {
    (1..=32).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '*' | '#' | '+'))
}

fn is_id(s: &str) -> bool {
    s.parse::<i64>().is_ok_and(|n| n > 0) && !s.starts_with('0') && !s.starts_with('+')
}

/// Checks `keys` against `model` and against each other, recording every broken rule at
/// `'body/keys/N/…'`. Rules needing the tenant's records (BLF and paging-group targets)
/// are the caller's, through [`targets`].
pub fn check_keys(model: &DeviceModel, keys: &[KeyInput], problems: &mut Problems) {
    let at = |index: usize, field: &str| format!("keys/{index}/{field}");
    let mut indexes: HashMap<i64, usize> = HashMap::new();
    let mut blf: HashMap<&str, usize> = HashMap::new();
    for (n, key) in keys.iter().enumerate() {
        if key.index > model.max_keys {
            problems.add(
                Location::Body,
                &at(n, "index"),
                format!(
                    "must be at most {} (the keys of {} with its expansion modules)",
                    model.max_keys, model.id
                ),
            );
        }
        // An index used twice is the reader's to report (`KEYS`), with the body's other
        // broken rules; here the first use stands.
        indexes.entry(key.index).or_insert(n);
        if !model.supports(key.kind.as_str()) {
            problems.add(
                Location::Body,
                &at(n, "type"),
                format!(
                    "is not supported by {} (one of: {})",
                    model.id,
                    model.key_types.join(", ")
                ),
            );
            continue;
        }
        if key.index == 1 && key.kind != KeyType::Line {
            problems.add(
                Location::Body,
                &at(n, "type"),
                "must be line: index 1 is the primary line",
            );
            continue;
        }
        if key.kind == KeyType::Line && key.index > model.max_line_index {
            // The phone's file has no way to say it (Grandstream's dynamic virtual keys,
            // its screen keys and sidecars, Cisco's sidecar): refused, not dropped.
            problems.add(
                Location::Body,
                &at(n, "type"),
                format!(
                    "cannot be line at index {}: {} takes lines on keys 1 to {} only",
                    key.index, model.id, model.max_line_index
                ),
            );
            continue;
        }
        let value = key.value.as_deref().filter(|v| !v.is_empty());
        let broken = match (key.kind.as_str(), value) {
            ("line", None) => None,
            ("line", Some(v)) if key.index == 1 && v != "1" => {
                Some("must be 1: index 1 is the primary line".to_owned())
            }
            ("line", Some(v)) => match v.parse::<i64>() {
                Ok(n) if (1..=model.accounts).contains(&n) && !v.starts_with(['0', '+']) => None,
                _ => Some(format!(
                    "must be a line number from 1 to {} (the accounts of {})",
                    model.accounts, model.id
                )),
            },
            ("blf", Some(v)) if is_id(v) => {
                if let Some(first) = blf.get(v) {
                    Some(format!("is already the target of keys/{first}"))
                } else {
                    blf.insert(v, n);
                    None
                }
            }
            ("blf", _) => Some("must be the id of an extension of the tenant".to_owned()),
            ("pagingGroup", Some(v)) if is_id(v) => None,
            ("pagingGroup", _) => Some("must be the id of a paging group of the tenant".to_owned()),
            ("speedDial", Some(v)) if is_dial(v) => None,
            ("speedDial", _) => {
                Some("must be the number to dial (1 to 32 of 0-9 * # +)".to_owned())
            }
            ("park", None) => None,
            ("park", Some(v)) if is_dial(v) => None,
            ("park", Some(_)) => Some("must be a park slot (1 to 32 of 0-9 * # +)".to_owned()),
            (kind, Some(_)) => Some(format!("must be empty for a {kind} key")),
            (_, None) => None,
        };
        if let Some(message) = broken {
            problems.add(Location::Body, &at(n, "value"), message);
        }
    }
    if !keys.is_empty() && !indexes.contains_key(&1) {
        problems.add(
            Location::Body,
            "keys",
            "must hold index 1, the primary line",
        );
    }
}

/// A key's target among the tenant's records, to check that it exists there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// An extension (BLF).
    Extension(i64),
    /// A paging group.
    PagingGroup(i64),
}

/// The records the keys point at, each with the position of its key.
pub fn targets(keys: &[KeyInput]) -> Vec<(usize, Target)> {
    keys.iter()
        .enumerate()
        .filter_map(|(n, key)| {
            let id = key.value.as_deref()?.parse::<i64>().ok()?;
            match key.kind.as_str() {
                "blf" => Some((n, Target::Extension(id))),
                "pagingGroup" => Some((n, Target::PagingGroup(id))),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::device_model::find;

    fn key(index: i64, kind: &str, value: Option<&str>) -> KeyInput {
        KeyInput {
            index,
            kind: kind.parse().expect("a key type"),
            value: value.map(str::to_owned),
            label: None,
        }
    }

    fn messages(model: &str, keys: &[KeyInput]) -> Vec<String> {
        let mut problems = Problems::new();
        check_keys(find(model).expect("a model"), keys, &mut problems);
        problems.into_messages()
    }

    #[test]
    fn a_sound_layout_passes() {
        let keys = [
            key(1, "line", None),
            key(2, "line", Some("2")),
            key(3, "blf", Some("7")),
            key(4, "speedDial", Some("*97")),
            key(5, "park", None),
            key(6, "voicemail", None),
            key(7, "pagingGroup", Some("3")),
            key(8, "dnd", None),
            key(207, "none", None),
        ];
        assert!(messages("yealink-t54w", &keys).is_empty());
    }

    #[test]
    fn every_rule_names_its_key() {
        let keys = [
            key(1, "blf", Some("7")),
            key(3, "blf", Some("7")),
            key(4, "blf", Some("7")),
            key(4, "speedDial", Some("abc")),
            key(208, "dnd", Some("x")),
            key(9, "line", Some("17")),
        ];
        assert_eq!(
            messages("yealink-t54w", &keys),
            vec![
                "'body/keys/0/type' must be line: index 1 is the primary line",
                "'body/keys/2/value' is already the target of keys/1",
                "'body/keys/3/value' must be the number to dial (1 to 32 of 0-9 * # +)",
                "'body/keys/4/index' must be at most 207 (the keys of yealink-t54w with its expansion modules)",
                "'body/keys/4/value' must be empty for a dnd key",
                "'body/keys/5/value' must be a line number from 1 to 16 (the accounts of yealink-t54w)",
            ]
        );
        assert_eq!(
            messages("cisco-spa504g", &[key(2, "park", Some("1"))]),
            vec![
                "'body/keys/0/type' is not supported by cisco-spa504g (one of: line, blf, speedDial, none)",
                "'body/keys' must hold index 1, the primary line",
            ]
        );
    }

    #[test]
    fn lines_stay_on_the_keys_that_can_hold_them() {
        let keys = [
            key(1, "line", None),
            key(4, "line", Some("2")),
            key(5, "line", Some("2")),
            key(17, "blf", Some("7")),
            key(41, "speedDial", Some("*97")),
            key(200, "dnd", None),
        ];
        assert_eq!(
            messages("grandstream-grp2614", &keys),
            vec![
                "'body/keys/2/type' cannot be line at index 5: grandstream-grp2614 takes lines on keys 1 to 4 only"
            ]
        );
        assert_eq!(
            messages(
                "cisco-spa504g",
                &[key(1, "line", None), key(5, "line", None)]
            ),
            vec![
                "'body/keys/1/type' cannot be line at index 5: cisco-spa504g takes lines on keys 1 to 4 only"
            ]
        );
        assert!(
            messages(
                "yealink-t54w",
                &[key(1, "line", None), key(207, "line", None)]
            )
            .is_empty()
        );
    }
}
