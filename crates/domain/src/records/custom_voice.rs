//! Custom voices: a tenant's named preset (rate, pitch, volume, default language) over an
//! engine voice, used as `custom-{id}` in the text-to-speech path.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use super::speech::{LANGUAGE, VOICE_ID};
use crate::declare::{Body, Listed};
use crate::ids::{CustomVoiceId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{ID, Int, int};

/// The prefix of a custom voice's id in `/text-to-speech/voices/{id}/tts`.
pub const VOICE_PREFIX: &str = "custom-";

/// The custom voice a voice id names: `custom-{id}`, the id written as a positive number
/// in digits without leading zeros (so each custom voice has one spelling); `None` for anything else.
pub fn custom_voice_id(voice: &str) -> Option<CustomVoiceId> {
    let number = voice.strip_prefix(VOICE_PREFIX)?;
    if number.starts_with('0') || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    number.parse().ok().filter(|id| *id > 0).map(CustomVoiceId)
}

/// Words per minute.
pub const RATE: Int = int(80, 450);
/// Pitch, 50 being the voice's own.
pub const PITCH: Int = int(0, 99);
/// Volume, 100 being the voice's own.
pub const VOLUME: Int = int(0, 200);

/// A custom voice.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, tenant_id), filter = TenantFilter, search("name"))]
pub struct CustomVoice {
    /// The custom voice's id.
    pub id: CustomVoiceId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// Its id in `/text-to-speech/voices/{id}/tts`: `custom-{id}`, which no engine
    /// voice's id can be.
    pub voice_id: String,
    /// The engine voice it speaks with.
    pub base_voice_id: String,
    /// Words per minute (80–450); null for the engine's default.
    pub rate: Option<i64>,
    /// Pitch (0–99, 50 the voice's own); null for the default.
    pub pitch: Option<i64>,
    /// Volume (0–200, 100 the voice's own); null for the default.
    pub volume: Option<i64>,
    /// The language spoken when a prompt names none: one the base voice speaks; null for
    /// the base voice's own.
    pub language: Option<String>,
}

/// The body of `POST /v2/admin/custom-voices/`.
// `UpdateCustomVoice`, the body of `PATCH`, is generated from it; a field with `column` is
// stored in the voice's row (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    update(
        name = UpdateCustomVoice,
        doc = "The body of `PATCH /v2/admin/custom-voices/{id}`: fields not sent stay unchanged;\n`null` returns a setting to the engine's default.",
        fixed(tenantId = "cannot be changed"),
    )
)]
pub struct CreateCustomVoice {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// An engine voice of `GET /text-to-speech/voices`.
    #[field(rule = VOICE_ID, column)]
    pub base_voice_id: String,
    /// Words per minute (80–450).
    #[field(rule = RATE, column, null_clears)]
    pub rate: Option<i64>,
    /// Pitch (0–99).
    #[field(rule = PITCH, column, null_clears)]
    pub pitch: Option<i64>,
    /// Volume (0–200).
    #[field(rule = VOLUME, column, null_clears)]
    pub volume: Option<i64>,
    /// A language the base voice speaks.
    #[field(rule = LANGUAGE, column, null_clears)]
    pub language: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_voice_has_one_spelling() {
        assert_eq!(custom_voice_id("custom-7"), Some(CustomVoiceId(7)));
        assert_eq!(custom_voice_id("custom-120"), Some(CustomVoiceId(120)));
        for other in [
            "custom-07",
            "custom-0",
            "custom--7",
            "custom-+7",
            "custom-",
            "custom-x",
            "en-us",
            "7",
        ] {
            assert_eq!(custom_voice_id(other), None, "{other}");
        }
    }
}
