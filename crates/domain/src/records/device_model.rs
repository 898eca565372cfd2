//! The device-model catalogue shipped with the service (`data/device-models.json`): each
//! desk phone's vendor, line keys, expansion modules, the key types its provisioning
//! format can express and the file the phone fetches. Read once and checked at start.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::validation::{Raw, Rule, as_str};

/// The catalogue as shipped.
const CATALOGUE: &str = include_str!("../../data/device-models.json");

crate::closed_set! {
    /// Every key type a button layout may hold.
    pub enum KeyType {
        /// A line (account) of the device.
        Line = "line",
        /// A busy lamp field watching an extension.
        Blf = "blf",
        /// A number dialled at a press.
        SpeedDial = "speedDial",
        /// A call park slot.
        Park = "park",
        /// The mailbox.
        Voicemail = "voicemail",
        /// A paging group.
        PagingGroup = "pagingGroup",
        /// Do-not-disturb.
        Dnd = "dnd",
        /// Nothing.
        None = "none",
    }
}

/// An expansion module (sidecar) a model takes.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpansionModule {
    /// The module's name (`EXP50`).
    pub id: String,
    /// Its vendor.
    pub vendor: String,
    /// Programmable keys on one module, every page counted.
    pub keys: i64,
    /// How many modules a phone chains at most.
    pub max_modules: i64,
    /// How the keys are laid out.
    pub note: String,
}

/// A provisioning format: the file a phone fetches and the key types it expresses.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Format {
    id: String,
    file: String,
    rendered: bool,
    key_types: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    id: String,
    vendor: String,
    model: String,
    accounts: i64,
    line_keys: i64,
    expansion_modules: Vec<String>,
    format: String,
    /// Grandstream: how many of `line_keys` are virtual multi-purpose keys (VPKs, the
    /// rest being the physical MPKs of the second screen); absent, all of them.
    #[serde(default)]
    virtual_keys: Option<i64>,
    /// The highest index a `line` key may take; absent, any key.
    #[serde(default)]
    max_line_index: Option<i64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct File {
    expansion_modules: Vec<ExpansionModule>,
    models: Vec<Entry>,
    formats: Vec<Format>,
}

/// One desk-phone model of the catalogue, as `GET /v2/admin/device-models` answers it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceModel {
    /// The identifier devices and layouts name (`yealink-t54w`).
    pub id: String,
    /// The vendor (`Yealink`, `Poly`, `Grandstream`, `Cisco`).
    pub vendor: String,
    /// The vendor's model name (`T54W`).
    pub model: String,
    /// SIP accounts (lines) the phone registers at most.
    pub accounts: i64,
    /// Programmable line keys of the phone itself, pages included.
    pub line_keys: i64,
    /// The expansion modules it takes.
    pub expansion_modules: Vec<ExpansionModule>,
    /// The highest key index a layout may use: the phone's keys, then the largest chain
    /// of expansion modules it takes.
    pub max_keys: i64,
    /// The highest key index a `line` key may take: Grandstream's fixed virtual keys
    /// (its other keys and its expansion modules' hold features only), Cisco's own keys
    /// (a sidecar key is a function); `maxKeys` on the others.
    pub max_line_index: i64,
    /// Grandstream: the phone's keys that are virtual multi-purpose keys (the first
    /// ones), the rest being the keys of its second screen. Not answered: how the
    /// renderer numbers the file's P-values.
    #[serde(skip)]
    #[schema(ignore)]
    pub virtual_keys: i64,
    /// The key types its provisioning format expresses.
    pub key_types: Vec<String>,
    /// The provisioning format (`yealink-cfg`, `polycom-xml`, `grandstream-xml`,
    /// `cisco-spa-xml`).
    pub provisioning_format: String,
    /// The file the phone fetches, `{mac}` standing for its 12 lowercase hex digits.
    pub provisioning_file: String,
    /// Whether Switchboard renders this format at `/provisioning/…` (all four
    /// today).
    pub provisioning_rendered: bool,
}

impl DeviceModel {
    /// Whether a layout key of type `kind` can be expressed on this model.
    pub fn supports(&self, kind: &str) -> bool {
        self.key_types.iter().any(|k| k == kind)
    }

    /// The keys of one expansion module of the largest chain it takes (0 without one):
    /// how a key index past the phone's own falls on module and key.
    pub fn module_keys(&self) -> i64 {
        self.expansion_modules
            .iter()
            .max_by_key(|m| m.keys * m.max_modules)
            .map_or(0, |m| m.keys)
    }
}

/// Why the shipped catalogue is unusable.
fn build(text: &str) -> Result<Vec<DeviceModel>, String> {
    let file: File = serde_json::from_str(text).map_err(|e| format!("not valid: {e}"))?;
    let mut models = Vec::new();
    for entry in file.models {
        if models.iter().any(|m: &DeviceModel| m.id == entry.id) {
            return Err(format!("model {} is listed twice", entry.id));
        }
        if entry.accounts < 1 || entry.line_keys < 1 {
            return Err(format!("model {} has no lines or no keys", entry.id));
        }
        let format = file
            .formats
            .iter()
            .find(|f| f.id == entry.format)
            .ok_or_else(|| format!("model {} names unknown format {}", entry.id, entry.format))?;
        if let Some(kind) = format
            .key_types
            .iter()
            .find(|k| k.parse::<KeyType>().is_err())
        {
            return Err(format!(
                "format {} names unknown key type {kind}",
                format.id
            ));
        }
        let mut modules = Vec::new();
        for name in &entry.expansion_modules {
            let module = file
                .expansion_modules
                .iter()
                .find(|m| &m.id == name)
                .ok_or_else(|| format!("model {} names unknown module {name}", entry.id))?;
            if module.vendor != entry.vendor {
                return Err(format!("model {} takes another vendor's module", entry.id));
            }
            modules.push(module.clone());
        }
        let expansion = modules
            .iter()
            .map(|m| m.keys * m.max_modules)
            .max()
            .unwrap_or(0);
        let max_keys = entry.line_keys + expansion;
        let virtual_keys = entry.virtual_keys.unwrap_or(entry.line_keys);
        if !(1..=entry.line_keys).contains(&virtual_keys) {
            return Err(format!(
                "model {} has more virtual keys than keys",
                entry.id
            ));
        }
        let max_line_index = entry.max_line_index.unwrap_or(max_keys);
        if !(1..=max_keys).contains(&max_line_index) {
            return Err(format!("model {} puts lines past its keys", entry.id));
        }
        models.push(DeviceModel {
            id: entry.id,
            vendor: entry.vendor,
            model: entry.model,
            accounts: entry.accounts,
            line_keys: entry.line_keys,
            expansion_modules: modules,
            max_keys,
            max_line_index,
            virtual_keys,
            key_types: format.key_types.clone(),
            provisioning_format: format.id.clone(),
            provisioning_file: format.file.clone(),
            provisioning_rendered: format.rendered,
        });
    }
    Ok(models)
}

/// Every model of the catalogue, in the file's order.
pub fn catalogue() -> &'static [DeviceModel] {
    static MODELS: OnceLock<Vec<DeviceModel>> = OnceLock::new();
    // The file is part of the binary and checked by a unit test, so it cannot be broken
    // at run time; an empty catalogue (refusing every model) would be the safe fallback.
    MODELS.get_or_init(|| build(CATALOGUE).unwrap_or_default())
}

/// The model `id`.
pub fn find(id: &str) -> Option<&'static DeviceModel> {
    catalogue().iter().find(|m| m.id == id)
}

/// A model identifier of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct KnownModel;

impl Rule for KnownModel {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        find(s)
            .map(|m| m.id.clone())
            .ok_or_else(|| "must be a model of GET /v2/admin/device-models".into())
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(catalogue().iter().map(|m| m.id.as_str())))
            .into()
    }
    fn example(&self) -> Value {
        json!("yealink-t54w")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalogue_parses_and_is_consistent() {
        let models = build(CATALOGUE).expect("the catalogue parses");
        assert_eq!(models.len(), catalogue().len());
        for id in [
            "yealink-t31p",
            "yealink-t33g",
            "yealink-t43u",
            "yealink-t46u",
            "yealink-t48u",
            "yealink-t54w",
            "yealink-t57w",
            "poly-vvx250",
            "poly-vvx350",
            "poly-vvx450",
            "grandstream-grp2612",
            "grandstream-grp2614",
            "grandstream-grp2615",
            "grandstream-grp2616",
            "cisco-spa303",
            "cisco-spa504g",
            "cisco-spa525g2",
        ] {
            let model = find(id).unwrap_or_else(|| panic!("{id} is in the catalogue"));
            assert!(model.supports("line"), "{id} has lines");
            assert!(model.max_keys >= model.line_keys);
        }
        let t54w = find("yealink-t54w").expect("T54W");
        assert_eq!((t54w.line_keys, t54w.max_keys), (27, 27 + 180));
        assert_eq!(find("cisco-spa504g").expect("SPA504G").max_keys, 4 + 64);
        assert_eq!(find("yealink-t31p").expect("T31P").max_keys, 2);
        let grp = find("grandstream-grp2614").expect("GRP2614");
        assert_eq!(
            (
                grp.line_keys,
                grp.virtual_keys,
                grp.max_line_index,
                grp.max_keys
            ),
            (40, 16, 4, 40 + 160)
        );
        assert_eq!(
            find("grandstream-grp2616").expect("GRP2616").max_keys,
            48 + 160
        );
        assert_eq!(find("cisco-spa504g").expect("SPA504G").max_line_index, 4);
        assert_eq!(t54w.max_line_index, t54w.max_keys);
        assert_eq!(t54w.module_keys(), 60);
    }

    #[test]
    fn broken_catalogues_are_refused() {
        let dup = CATALOGUE.replacen("yealink-t33g", "yealink-t31p", 1);
        let refusal = |text: &str| build(text).err().unwrap_or_default();
        assert!(refusal(&dup).contains("twice"));
        let module = CATALOGUE.replacen("[\"EXP43\"]", "[\"EXP99\"]", 1);
        assert!(refusal(&module).contains("unknown module"));
        let kind = CATALOGUE.replacen("\"dnd\", \"none\"]", "\"dnd\", \"fax\"]", 1);
        assert!(refusal(&kind).contains("unknown key type"));
        let vpks = CATALOGUE.replacen(
            "\"virtualKeys\": 16, \"maxLineIndex\": 4",
            "\"virtualKeys\": 17",
            1,
        );
        assert!(refusal(&vpks).contains("more virtual keys than keys"));
        let lines = CATALOGUE.replacen("\"maxLineIndex\": 3", "\"maxLineIndex\": 4", 1);
        assert!(refusal(&lines).contains("puts lines past its keys"));
    }
}
