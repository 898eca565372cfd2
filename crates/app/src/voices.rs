//! The voices a record may speak with: the speech engine's catalogue, and a tenant's
//! custom voices over it (`custom-{id}`).

use switchboard_db::custom_voices;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::custom_voice::custom_voice_id;
use switchboard_domain::{Location, Principal, Problems};
use switchboard_speech::Catalogue;

use crate::{Error, Result, Services};

/// Seconds a caller is told to wait when the speech engine is unavailable.
pub const UNAVAILABLE_RETRY_AFTER: u64 = 60;

/// The engine's catalogue; unavailable, saying why, when the engine has none.
pub fn catalogue(services: &impl Services) -> Result<&Catalogue> {
    services
        .speech()
        .catalogue()
        .map_err(|error| Error::Unavailable {
            message: error.to_string(),
            retry_after: UNAVAILABLE_RETRY_AFTER,
        })
}

/// Refuses a custom voice's base voice the engine does not have, or a language that
/// voice does not speak.
pub fn check_base_voice(
    services: &impl Services,
    base: &str,
    language: Option<&str>,
    problems: &mut Problems,
) -> Result<()> {
    match catalogue(services)?.voice(base) {
        None => problems.add(
            Location::Body,
            "baseVoiceId",
            "is not a voice of the speech engine (see /text-to-speech/voices)",
        ),
        Some(voice) => {
            if let Some(language) = language
                && !voice.speaks(language)
            {
                problems.add(
                    Location::Body,
                    "language",
                    format!("is not spoken by the voice {}", voice.id),
                );
            }
        }
    }
    Ok(())
}

/// Refuses a media file's `voiceId` that names no voice: an engine voice of the
/// catalogue, or a custom voice of the media file's own `tenant` in `caller`'s scope.
pub async fn check_media_voice(
    services: &impl Services,
    caller: &Principal,
    tenant: TenantId,
    voice: &str,
    problems: &mut Problems,
) -> Result<()> {
    let known = match custom_voice_id(voice) {
        Some(id) => custom_voices::get(services.db(), &caller.scope, id)
            .await
            .ok()
            .is_some_and(|custom| custom.tenant_id == tenant),
        None => catalogue(services)?.voice(voice).is_some(),
    };
    if !known {
        problems.add(
            Location::Body,
            "voiceId",
            "is not a voice of the speech engine nor a custom voice of the tenant",
        );
    }
    Ok(())
}
