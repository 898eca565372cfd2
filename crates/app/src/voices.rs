//! The voices a record may speak with: the speech engine's catalogue, and a tenant's
//! custom voices over it (`custom-{id}`).

use switchboard_db::custom_voices;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::custom_voice::{VOICE_PREFIX, custom_voice_id};
use switchboard_domain::records::speech::{DEFAULT_PAUSE_MS, SpeakRequest, TtsVoice};
use switchboard_domain::{Location, Permission, Principal, Problems};
use switchboard_speech::{Catalogue, Piece, Prosody, SpeechError, Voice};
use switchboard_storage::audio::rendition::RenditionError;

use crate::{Error, Result, Services};

/// Seconds a caller is told to wait when the speech engine is unavailable.
pub const UNAVAILABLE_RETRY_AFTER: u64 = 60;

/// Seconds a caller refused for a full rendering queue is told to wait.
pub const BUSY_RETRY_AFTER: u64 = 2;

/// The most custom voices of one tenant the catalogue lists (the first by id); the full
/// list is `GET /v2/admin/custom-voices/`, paginated.
pub const CUSTOM_VOICES_LISTED: u64 = 1_000;

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

/// The voices `caller` may speak with, those speaking `language` only when one is given:
/// the engine's, then the custom voices of the caller's tenant (or of `tenant`, which a
/// caller spanning several names). No custom voice for a caller who cannot read them
/// (`media-files:read`; naming a tenant is then refused) or names no tenant while
/// spanning several. A custom voice whose base voice the engine no longer has is left
/// out (it cannot speak).
pub async fn list_voices(
    services: &impl Services,
    caller: &Principal,
    language: Option<&str>,
    tenant: Option<TenantId>,
) -> Result<Vec<TtsVoice>> {
    let catalogue = catalogue(services)?;
    let mut voices: Vec<TtsVoice> = catalogue
        .voices(language)
        .into_iter()
        .map(present)
        .collect();
    if !caller.can(Permission::MediaFilesRead) {
        return match tenant {
            Some(_) => Err(Error::Forbidden(format!(
                "listing custom voices needs the {} permission",
                Permission::MediaFilesRead.name()
            ))),
            None => Ok(voices),
        };
    }
    crate::tenancy::check_tenant_filter(services, caller, tenant).await?;
    let Some(tenant) = tenant.or_else(|| caller.scope.own_tenant()) else {
        return Ok(voices);
    };
    let custom =
        custom_voices::of_tenant(services.db(), &caller.scope, tenant, CUSTOM_VOICES_LISTED)
            .await?;
    voices.extend(custom.into_iter().filter_map(|custom| {
        let base = catalogue.voice(&custom.base_voice_id)?;
        // The base voice's languages, the custom voice's own (its default) first.
        let mut languages: Vec<String> =
            base.languages.iter().map(|(tag, _)| tag.clone()).collect();
        if let Some(own) = &custom.language
            && let Some(at) = languages.iter().position(|t| t.eq_ignore_ascii_case(own))
        {
            let own = languages.remove(at);
            languages.insert(0, own);
        }
        let speaks =
            language.is_none_or(|wanted| languages.iter().any(|t| t.eq_ignore_ascii_case(wanted)));
        speaks.then(|| TtsVoice {
            id: custom.voice_id,
            name: custom.name,
            engine: base.engine.to_owned(),
            languages,
            gender: base.gender.map(str::to_owned),
            sample_rate_hz: base.sample_rate_hz,
            base_voice_id: Some(custom.base_voice_id),
            tenant_id: Some(custom.tenant_id),
        })
    }));
    Ok(voices)
}

/// An engine voice as answered.
fn present(voice: &Voice) -> TtsVoice {
    TtsVoice {
        id: voice.id.clone(),
        name: voice.name.clone(),
        engine: voice.engine.to_owned(),
        languages: voice.languages.iter().map(|(tag, _)| tag.clone()).collect(),
        gender: voice.gender.map(str::to_owned),
        sample_rate_hz: voice.sample_rate_hz,
        base_voice_id: None,
        tenant_id: None,
    }
}

/// The voice a prompt is spoken with and how.
struct Speaker {
    /// The engine voice.
    voice: Voice,
    /// Its settings.
    prosody: Prosody,
}

/// The voice `id` names for `caller`: an engine voice, or `custom-{n}`, a custom voice in
/// the caller's scope (not found otherwise, as for any record).
async fn speaker(
    services: &impl Services,
    catalogue: &Catalogue,
    caller: &Principal,
    id: &str,
) -> Result<Speaker> {
    let not_found = || Error::Db(switchboard_db::Error::NotFound);
    if id.starts_with(VOICE_PREFIX) {
        let custom_id = custom_voice_id(id).ok_or_else(not_found)?;
        let custom = custom_voices::get(services.db(), &caller.scope, custom_id).await?;
        // A base voice the engine no longer has (an upgrade dropped it) cannot speak.
        let voice = catalogue
            .voice(&custom.base_voice_id)
            .ok_or_else(|| Error::Unavailable {
                message: format!(
                    "the custom voice's base voice {} is not in the speech engine's catalogue",
                    custom.base_voice_id
                ),
                retry_after: UNAVAILABLE_RETRY_AFTER,
            })?;
        let setting = |v: Option<i64>| v.and_then(|v| u32::try_from(v).ok());
        return Ok(Speaker {
            voice: voice.clone(),
            prosody: Prosody {
                rate: setting(custom.rate),
                pitch: setting(custom.pitch),
                volume: setting(custom.volume),
            },
        });
    }
    let voice = catalogue.voice(id).ok_or_else(not_found)?;
    Ok(Speaker {
        voice: voice.clone(),
        prosody: Prosody::default(),
    })
}

/// The pieces a prompt asks for, or every problem with its languages: `text` in a
/// language the voice speaks, each segment by the voice when it speaks the segment's
/// language, else by the engine's preferred voice for it.
fn pieces(catalogue: &Catalogue, speaker: &Speaker, body: SpeakRequest) -> Result<Vec<Piece>> {
    let mut problems = Problems::new();
    let mut pieces = Vec::new();
    if let Some(text) = body.text {
        if let Some(language) = &body.language
            && !speaker.voice.speaks(language)
        {
            let spoken: Vec<&str> = speaker
                .voice
                .languages
                .iter()
                .map(|(tag, _)| tag.as_str())
                .collect();
            problems.add(
                Location::Body,
                "language",
                format!(
                    "is not spoken by the voice {} (it speaks {})",
                    speaker.voice.id,
                    spoken.join(", ")
                ),
            );
        }
        pieces.push(Piece {
            voice: speaker.voice.clone(),
            text,
            pause_ms: 0,
        });
    }
    for (index, segment) in body.segments.unwrap_or_default().into_iter().enumerate() {
        // The voice speaks its own languages; a segment in another is spoken by the
        // engine's preferred voice for it (an engine voice is one language's).
        let voice = if speaker.voice.speaks(&segment.language) {
            Some(&speaker.voice)
        } else {
            catalogue.preferred(&segment.language)
        };
        match voice {
            Some(voice) => pieces.push(Piece {
                voice: voice.clone(),
                text: segment.text,
                pause_ms: u32::try_from(segment.pause_ms.unwrap_or(DEFAULT_PAUSE_MS)).unwrap_or(0),
            }),
            None => problems.add(
                Location::Body,
                &format!("segments/{index}/language"),
                "is not a language of the speech engine (see /text-to-speech/supported-languages)",
            ),
        }
    }
    Error::answer(problems)?;
    Ok(pieces)
}

/// Speaks `prompt` with the voice `voice` names for `caller`, answering 8 kHz 16-bit mono
/// WAV: unavailable (with a wait) when the engine is missing or its queue full, a
/// prompt too long when spoken refused at its field.
pub async fn speak(
    services: &impl Services,
    caller: &Principal,
    voice: &str,
    prompt: SpeakRequest,
) -> Result<Vec<u8>> {
    let catalogue = catalogue(services)?;
    let speaker = speaker(services, catalogue, caller, voice).await?;
    let field = if prompt.segments.is_some() {
        "segments"
    } else {
        "text"
    };
    let pieces = pieces(catalogue, &speaker, prompt)?;
    services
        .speech()
        .speak(&pieces, speaker.prosody)
        .await
        .map_err(|error| spoken_error(error, field))
}

/// A speech failure in the use cases' words: unavailable or busy is unavailable with a
/// wait, a prompt too long when spoken a problem of `field`, anything else a fault.
fn spoken_error(error: SpeechError, field: &str) -> Error {
    match error {
        SpeechError::Unavailable(_) => Error::Unavailable {
            message: error.to_string(),
            retry_after: UNAVAILABLE_RETRY_AFTER,
        },
        SpeechError::Busy(_) => Error::Unavailable {
            message: error.to_string(),
            retry_after: BUSY_RETRY_AFTER,
        },
        SpeechError::TooLong(_) => Error::invalid(Location::Body, field, &error),
        SpeechError::Audio(RenditionError::TooLong) => {
            Error::invalid(Location::Body, field, "is too long when spoken")
        }
        SpeechError::Engine(_) | SpeechError::Audio(_) => Error::internal(error),
    }
}
