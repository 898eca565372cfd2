//! Desk phones: a MAC address unique on the whole platform, a model of the catalogue,
//! the tenant's extensions it registers as (its lines), a button layout, and the
//! registration state the telephony engine reports.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::schema::Schema;

use super::NAME;
use super::device_model::KnownModel;
use crate::declare::{Body, Filter, Listed};
use crate::ids::{BranchId, ButtonLayoutId, DeviceId, ExtensionId, TenantId};
use crate::list::BranchedFilter;
use crate::validation::{
    Bool, ID, ListOf, ObjectReader, Raw, Rule, Switch, Text, as_str, list_of, string_schema, text,
};

/// The notations a MAC address is accepted in, as one pattern (no back-references, so
/// every JSON Schema engine reads it).
pub const MAC_PATTERN: &str = concat!(
    "^(?:[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5}",
    "|[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}|[0-9A-Fa-f]{12})$"
);

/// A MAC address in any common notation, read as its 12 lowercase hex digits.
#[derive(Clone, Copy, Debug)]
pub struct Mac;

/// The 12 lowercase hex digits of `text` when it is a MAC address in one of the accepted
/// notations: `AA:BB:CC:DD:EE:FF`, `aa-bb-cc-dd-ee-ff`, `aabb.ccdd.eeff`, `aabbccddeeff`.
pub fn parse_mac(text: &str) -> Option<String> {
    let groups = |sep: char, size: usize, count: usize| -> Option<String> {
        let parts: Vec<&str> = text.split(sep).collect();
        (parts.len() == count && parts.iter().all(|p| p.len() == size)).then(|| parts.concat())
    };
    let digits = match text.len() {
        12 => Some(text.to_owned()),
        14 => groups('.', 4, 3),
        17 if text.contains(':') => groups(':', 2, 6),
        17 => groups('-', 2, 6),
        _ => None,
    }?;
    (digits.len() == 12 && digits.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| digits.to_ascii_lowercase())
}

/// `aa:bb:cc:dd:ee:ff` for 12 hex digits.
pub fn display_mac(digits: &str) -> String {
    digits
        .as_bytes()
        .chunks(2)
        .map(|pair| String::from_utf8_lossy(pair).into_owned())
        .collect::<Vec<_>>()
        .join(":")
}

/// The hex digits a search text names when it is (part of) a MAC address: separators
/// `:`, `-` and `.` dropped, at least 6 hex digits left (a vendor's OUI) and nothing
/// else. Shorter runs of digits would match most phones and are searched as names only.
pub fn mac_search(text: &str) -> Option<String> {
    let digits: String = text
        .trim()
        .chars()
        .filter(|c| !matches!(c, ':' | '-' | '.'))
        .collect();
    (digits.len() >= 6 && digits.len() <= 12 && digits.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| digits.to_ascii_lowercase())
}

impl Rule for Mac {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        parse_mac(as_str(raw)?).ok_or_else(|| {
            "must be a MAC address (aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff, aabb.ccdd.eeff or aabbccddeeff)"
                .into()
        })
    }
    fn schema(&self) -> Schema {
        string_schema(12, 17, MAC_PATTERN).into()
    }
    fn example(&self) -> Value {
        json!("80:5e:c0:12:34:56")
    }
}

/// The branch of a device, resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct DeviceBranch {
    /// The branch's id.
    pub id: BranchId,
    /// Its name.
    pub name: String,
}

/// One line of a device: an extension of its tenant, in the order the phone registers.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct DeviceLine {
    /// The extension's id.
    pub id: ExtensionId,
    /// Its number (the SIP user name the phone registers as).
    pub number: String,
    /// Its name (shown on the phone's line key).
    pub name: String,
}

/// A desk phone.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, mac, model, tenant_id, branch_id, registered, last_registered_at, config_version),
       filter = DeviceFilter, table = "d", search("name", "mac"))]
pub struct Device {
    /// The device's id.
    pub id: DeviceId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its branch, if any.
    pub branch_id: Option<BranchId>,
    /// The branch, resolved; null for none.
    pub branch: Option<DeviceBranch>,
    /// Its name.
    pub name: String,
    /// The MAC address, `aa:bb:cc:dd:ee:ff`.
    pub mac: String,
    /// The model, an id of `GET /v2/admin/device-models`.
    pub model: String,
    /// The extensions it registers as, in order; the first is the primary line.
    pub lines: Vec<DeviceLine>,
    /// Its button layout (of the same model), or null.
    pub button_layout_id: Option<ButtonLayoutId>,
    /// What it is (free text).
    pub description: String,
    /// Whether the engine last saw it registered.
    pub registered: bool,
    /// When it last registered (ISO 8601), or null.
    pub last_registered_at: Option<String>,
    /// When it last fetched its configuration file (ISO 8601), or null before its first.
    pub last_fetched_at: Option<String>,
    /// The address it last registered from, or null.
    pub ip_address: Option<String>,
    /// The `User-Agent` it last registered with, or null.
    pub user_agent: Option<String>,
    /// Grows with every change to the device, its layout or its lines' extensions: the
    /// engine sends a check-sync when it grows.
    pub config_version: i64,
    /// The user name the phone fetches its configuration with (HTTP Basic).
    pub provisioning_username: String,
}

/// A device as created: the record and its provisioning password, shown this once.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedDevice {
    /// The device.
    #[serde(flatten)]
    pub device: Device,
    /// The password the phone fetches its configuration with; stored hashed, never
    /// answered again (rotate it to get a new one).
    pub provisioning_password: String,
}

/// New provisioning credentials of a device, shown once.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProvisioningCredentials {
    /// The user name (unchanged by a rotation).
    pub username: String,
    /// The new password; the previous one stops working at once.
    pub password: String,
    /// Where the phone fetches its configuration.
    pub url: String,
}

/// A device's description.
const DESCRIPTION: Text = text(0, 2000);
/// The lines of a device: extension ids, each once (the model's account count is checked
/// against the catalogue); each may be written as the answer's line object.
pub const LINES: ListOf<LineRef> = list_of(LineRef, 0, 16);

/// One line in a body: an extension id, or the answer's `{id, number, name}` (its `id`
/// read, the resolved `number` and `name` ignored), so a device read is accepted back.
#[derive(Clone, Copy, Debug)]
pub struct LineRef;

impl crate::validation::Field for LineRef {
    type Output = i64;

    fn read(&self, value: &Value, at: &mut crate::validation::At<'_>) -> Option<i64> {
        if value.is_object() {
            let mut reader = at.object(value)?;
            reader.required("id", &ID)
        } else {
            crate::validation::Field::read(&ID, value, at)
        }
    }

    fn field_schema(&self) -> utoipa::openapi::RefOr<Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        let id = crate::validation::Rule::schema(&ID);
        let line = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "A line as answers give it: its `id` is read, `number` and `name` are read-only.",
            ))
            .property("id", id.clone())
            .required("id")
            .build();
        utoipa::openapi::RefOr::T(Schema::OneOf(
            OneOfBuilder::new().item(id).item(line).build(),
        ))
    }

    fn field_example(&self) -> Value {
        crate::validation::Rule::example(&ID)
    }
}

/// Refuses an extension listed twice among a device's lines.
fn check_lines(lines: Option<&[i64]>, r: &mut ObjectReader<'_>) -> bool {
    let before = r.problem_count();
    let mut seen = std::collections::HashSet::new();
    for (index, line) in lines.unwrap_or_default().iter().enumerate() {
        if !seen.insert(*line) {
            r.problem_at(&format!("lines/{index}"), "is listed twice");
        }
    }
    r.problem_count() == before
}

/// The body of `POST /v2/admin/devices/`.
// `UpdateDevice`, the body of `PATCH`, is generated from it (docs/decisions.md,
// "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    check = CreateDevice::check,
    update(
        name = UpdateDevice,
        doc = "The body of `PATCH /v2/admin/devices/{id}`: fields not sent stay unchanged; a sent\n`lines` replaces the current ones.",
        fixed(tenantId = "cannot be changed"),
        check = UpdateDevice::check,
    )
)]
pub struct CreateDevice {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID, create_only)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant, or null (in a change, null detaches it); branch
    /// admins get their own.
    #[field(rule = ID, nullable)]
    pub branch_id: Option<BranchId>,
    /// Its name.
    #[field(rule = NAME)]
    pub name: String,
    /// The MAC address in any common notation; unique on the platform.
    #[field(rule = Mac)]
    pub mac: String,
    /// The model, an id of `GET /v2/admin/device-models`.
    #[field(rule = KnownModel)]
    pub model: String,
    /// Extensions of the tenant it registers as, in order (at most the model's accounts;
    /// a change replaces the current ones).
    #[field(rule = LINES, default = Vec::new())]
    pub lines: Vec<i64>,
    /// A button layout of the tenant for the same model, or null for none.
    #[field(rule = ID, nullable)]
    pub button_layout_id: Option<ButtonLayoutId>,
    /// What it is (default empty).
    #[field(rule = DESCRIPTION, default = String::new())]
    pub description: String,
}

impl CreateDevice {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_lines(Some(&self.lines), r)
    }
}

impl UpdateDevice {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_lines(self.lines.as_deref(), r)
    }
}

/// The model filter of the device list.
const MODEL_FILTER: KnownModel = KnownModel;

/// Filters of the device list.
#[derive(Clone, Debug, Default, Filter)]
pub struct DeviceFilter {
    /// The tenant and branch.
    #[field(flatten)]
    pub place: BranchedFilter,
    /// Only devices of this model.
    #[field(rule = MODEL_FILTER)]
    pub model: Option<String>,
    /// 1 registered devices, 0 the others.
    #[field(rule = Switch)]
    pub registered: Option<bool>,
    /// Only devices with this extension among their lines.
    #[field(rule = ID)]
    pub line_extension_id: Option<ExtensionId>,
}

/// An address the engine saw a phone at.
const ADDRESS: Text = text(0, 64);
/// A phone's `User-Agent`.
const USER_AGENT: Text = text(0, 255);

/// The body of `POST /v2/ingest/device-registrations`: the engine saw a phone register
/// (or its registration end).
#[derive(Clone, Debug, Body)]
pub struct IngestRegistration {
    /// The phone's MAC address, in any common notation.
    #[field(rule = Mac)]
    pub mac: String,
    /// Whether it is registered now.
    #[field(rule = Bool)]
    pub registered: bool,
    /// The address it registered from.
    #[field(rule = ADDRESS)]
    pub ip_address: Option<String>,
    /// Its `User-Agent`.
    #[field(rule = USER_AGENT)]
    pub user_agent: Option<String>,
    /// When (ISO 8601); now when left out.
    #[field(rule = crate::validation::Instant)]
    pub at: Option<chrono::DateTime<chrono::Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_notation_reads_as_twelve_lowercase_digits() {
        for text in [
            "AA:BB:CC:DD:EE:0F",
            "aa-bb-cc-dd-ee-0f",
            "aabb.ccdd.ee0f",
            "AABBCCDDEE0F",
        ] {
            assert_eq!(parse_mac(text).as_deref(), Some("aabbccddee0f"), "{text}");
        }
        for bad in [
            "aa:bb:cc:dd:ee",
            "aa:bb-cc:dd:ee:ff",
            "aabbccddeeg0",
            "aa:bb:cc:dd:ee:ff:00",
            "aabb.ccdd.eeff.",
            "aab.bccd.deeff",
            "",
        ] {
            assert_eq!(parse_mac(bad), None, "{bad}");
        }
        assert_eq!(display_mac("aabbccddee0f"), "aa:bb:cc:dd:ee:0f");
    }

    #[test]
    fn partial_macs_need_six_hex_digits() {
        assert_eq!(mac_search("80:5E:C0").as_deref(), Some("805ec0"));
        assert_eq!(mac_search("805e.c012").as_deref(), Some("805ec012"));
        assert_eq!(mac_search("80:5e"), None);
        assert_eq!(mac_search("Front desk"), None);
    }
}
