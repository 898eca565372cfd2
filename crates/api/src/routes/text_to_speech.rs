//! `/text-to-speech/…` (and `/v2/text-to-speech/…`): the voice catalogue the installed
//! engine reports, its languages, and prompts rendered as telephony audio (8 kHz 16-bit
//! mono WAV, or MP3 on `Accept: audio/mpeg`).

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use switchboard_app::voices;
use switchboard_db::custom_voices;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::custom_voice::{VOICE_PREFIX, custom_voice_id};
use switchboard_domain::records::speech::{DEFAULT_PAUSE_MS, SpeakRequest, TtsLanguage, TtsVoice};
use switchboard_domain::{Location, Permission};
use switchboard_speech::{Catalogue, Piece, Prosody, SpeechError, Voice};
use switchboard_storage::audio::rendition::RenditionError;
use utoipa::IntoParams;

use crate::auth::caller::{Anyone, Caller, MediaFilesWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::JsonBody;
use crate::state::AppState;

/// How long a client refused for a full queue should wait, in seconds.
const BUSY_RETRY_AFTER: u64 = 2;

/// The filter of the voice catalogue.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VoiceFilter {
    /// Only voices speaking this BCP-47 tag (without regard to case).
    #[param(min_length = 2, max_length = 35, pattern = "^[A-Za-z0-9-]+$")]
    pub language: Option<String>,
    /// Whose custom voices are listed: the caller's own tenant by default; callers spanning
    /// several tenants (platform and partner admins) name one to see its custom voices.
    #[serde(rename = "tenantId")]
    #[param(pattern = "^[1-9][0-9]*$")]
    pub tenant_id: Option<String>,
}

/// The most custom voices of one tenant the catalogue lists (the first by id); the full
/// list is `GET /v2/admin/custom-voices/`, paginated.
pub const CUSTOM_VOICES_LISTED: u64 = 1_000;

/// The contract's error for a speech failure: unavailable or busy is a 503 with
/// `Retry-After`, a prompt too long when spoken a 400 naming `field`, anything else a 500
/// whose details go to the log.
fn spoken_error(error: SpeechError, field: &str) -> ApiError {
    match error {
        SpeechError::Unavailable(_) => {
            ApiError::unavailable(error.to_string(), voices::UNAVAILABLE_RETRY_AFTER)
        }
        SpeechError::Busy(_) => ApiError::unavailable(error.to_string(), BUSY_RETRY_AFTER),
        SpeechError::TooLong(_) => ApiError::invalid(Location::Body, field, &error.to_string()),
        SpeechError::Audio(RenditionError::TooLong) => {
            ApiError::invalid(Location::Body, field, "is too long when spoken")
        }
        SpeechError::Engine(_) | SpeechError::Audio(_) => ApiError::internal(error),
    }
}

/// The engine's catalogue, or 503 saying why there is none.
pub fn catalogue(state: &AppState) -> ApiResult<&Catalogue> {
    Ok(voices::catalogue(state)?)
}

/// A voice as answered.
pub fn present(voice: &Voice) -> TtsVoice {
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

/// The catalogue's filter read: the language, and the tenant whose custom voices to list.
fn read_filter(
    filter: Result<Query<VoiceFilter>, impl std::fmt::Display>,
) -> ApiResult<(Option<String>, Option<TenantId>)> {
    use switchboard_domain::validation::{ID, Raw, Rule};
    let Query(filter) = filter.map_err(|e| ApiError::bad_request(e.to_string()))?;
    let mut problems = switchboard_domain::Problems::new();
    let language = filter.language.and_then(|tag| {
        Rule::check(
            &switchboard_domain::records::speech::LANGUAGE,
            Raw::Text(&tag),
        )
        .map_err(|message| problems.add(Location::Query, "language", message))
        .ok()
    });
    let tenant = filter.tenant_id.and_then(|id| {
        Rule::check(&ID, Raw::Text(&id))
            .map(TenantId)
            .map_err(|message| problems.add(Location::Query, "tenantId", message))
            .ok()
    });
    if problems.is_empty() {
        Ok((language, tenant))
    } else {
        Err(ApiError::validation(problems))
    }
}

/// The custom voices of the caller's tenant (or of `tenant`, which a caller spanning
/// several names) as catalogue entries, those speaking `language` only: none for a caller
/// who cannot read them (`media-files:read`) or names no tenant while spanning several. A
/// custom voice whose base voice the engine no longer has is left out (it cannot speak).
async fn custom_entries(
    state: &AppState,
    caller: &Caller<Anyone>,
    catalogue: &Catalogue,
    tenant: Option<TenantId>,
    language: Option<&str>,
) -> ApiResult<Vec<TtsVoice>> {
    if !caller.can(Permission::MediaFilesRead) {
        return match tenant {
            Some(_) => Err(ApiError::forbidden(format!(
                "listing custom voices needs the {} permission",
                Permission::MediaFilesRead.name()
            ))),
            None => Ok(Vec::new()),
        };
    }
    switchboard_app::tenancy::check_tenant_filter(state, caller, tenant).await?;
    let Some(tenant) = tenant.or_else(|| caller.scope.own_tenant()) else {
        return Ok(Vec::new());
    };
    let voices =
        custom_voices::of_tenant(&state.db, &caller.scope, tenant, CUSTOM_VOICES_LISTED).await?;
    Ok(voices
        .into_iter()
        .filter_map(|custom| {
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
            let speaks = language
                .is_none_or(|wanted| languages.iter().any(|t| t.eq_ignore_ascii_case(wanted)));
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
        })
        .collect())
}

/// The voices of the installed engine, then the custom voices of the caller's tenant
/// (`custom-{n}`, for callers holding `media-files:read`), or those speaking `language`.
#[utoipa::path(get, operation_id = "listVoices", path = "/v2/text-to-speech/voices", tag = "text-to-speech",
    params(VoiceFilter),
    responses(
        (status = 200, description = "The voices", body = Vec<TtsVoice>),
        (status = 503, description = "No speech engine is installed", body = crate::error::ErrorBody),
    ))]
pub async fn voices(
    caller: Caller<Anyone>,
    State(state): State<AppState>,
    filter: Result<Query<VoiceFilter>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Vec<TtsVoice>>> {
    let (language, tenant) = read_filter(filter)?;
    let catalogue = catalogue(&state)?;
    let mut voices: Vec<TtsVoice> = catalogue
        .voices(language.as_deref())
        .into_iter()
        .map(present)
        .collect();
    voices.extend(custom_entries(&state, &caller, catalogue, tenant, language.as_deref()).await?);
    Ok(Json(voices))
}

/// The voices (release notes' path, the same answer).
#[utoipa::path(get, operation_id = "listVoicesUnversioned", path = "/text-to-speech/voices", tag = "text-to-speech",
    params(VoiceFilter),
    responses(
        (status = 200, description = "The voices", body = Vec<TtsVoice>),
        (status = 503, description = "No speech engine is installed", body = crate::error::ErrorBody),
    ))]
pub async fn voices_unversioned(
    caller: Caller<Anyone>,
    state: State<AppState>,
    filter: Result<Query<VoiceFilter>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Vec<TtsVoice>>> {
    voices(caller, state, filter).await
}

fn languages_of(state: &AppState) -> ApiResult<Json<Vec<TtsLanguage>>> {
    Ok(Json(
        catalogue(state)?
            .languages()
            .iter()
            .map(|language| TtsLanguage {
                tag: language.tag.clone(),
                name: language.name.clone(),
                voice_count: language.voices,
            })
            .collect(),
    ))
}

/// The languages the installed engine speaks, with how many voices speak each.
#[utoipa::path(get, operation_id = "listSupportedLanguages", path = "/v2/text-to-speech/supported-languages", tag = "text-to-speech",
    responses(
        (status = 200, description = "The languages", body = Vec<TtsLanguage>),
        (status = 503, description = "No speech engine is installed", body = crate::error::ErrorBody),
    ))]
pub async fn languages(
    _caller: Caller<Anyone>,
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<TtsLanguage>>> {
    languages_of(&state)
}

/// The languages (release notes' path, the same answer).
#[utoipa::path(get, operation_id = "listSupportedLanguagesUnversioned", path = "/text-to-speech/supported-languages", tag = "text-to-speech",
    responses(
        (status = 200, description = "The languages", body = Vec<TtsLanguage>),
        (status = 503, description = "No speech engine is installed", body = crate::error::ErrorBody),
    ))]
pub async fn languages_unversioned(
    _caller: Caller<Anyone>,
    State(state): State<AppState>,
) -> ApiResult<Json<Vec<TtsLanguage>>> {
    languages_of(&state)
}

/// The voice a tts path names and how it is spoken.
pub struct Speaker {
    /// The engine voice.
    pub voice: Voice,
    /// Its settings.
    pub prosody: Prosody,
}

/// The pieces a request asks for, or every problem with its languages.
fn pieces(catalogue: &Catalogue, speaker: &Speaker, body: SpeakRequest) -> ApiResult<Vec<Piece>> {
    let mut problems = switchboard_domain::Problems::new();
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
    if problems.is_empty() {
        Ok(pieces)
    } else {
        Err(ApiError::validation(problems))
    }
}

/// Spoken audio in an answer, documented as bytes.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary)]
#[allow(dead_code)]
pub struct SpokenAudio(Vec<u8>);

/// Whether the client asked for MP3.
fn wants_mp3(headers: &HeaderMap) -> bool {
    crate::media_type::accepted(headers, "audio/mpeg")
}

/// The media type the WAV answer is labelled with: `application/octet-stream` when the
/// client asked for bytes and not for WAV by name (generated clients read an answer by
/// its type, and know bytes, not audio), `audio/wav` otherwise.
fn wav_label(headers: &HeaderMap) -> &'static str {
    if crate::media_type::accepted(headers, "application/octet-stream")
        && !crate::media_type::accepted(headers, "audio/wav")
    {
        "application/octet-stream"
    } else {
        "audio/wav"
    }
}

/// The voice `id` names for the caller: an engine voice, or `custom-{n}`, a custom voice
/// in the caller's scope (404 otherwise, as for any record).
async fn speaker(
    state: &AppState,
    caller: &Caller<MediaFilesWrite>,
    id: &str,
) -> ApiResult<Speaker> {
    let catalogue = catalogue(state)?;
    if id.starts_with(VOICE_PREFIX) {
        let custom_id = custom_voice_id(id).ok_or_else(ApiError::not_found)?;
        let custom = custom_voices::get(&state.db, &caller.scope, custom_id).await?;
        // A base voice the engine no longer has (an upgrade dropped it) cannot speak.
        let voice = catalogue.voice(&custom.base_voice_id).ok_or_else(|| {
            ApiError::unavailable(
                format!(
                    "the custom voice's base voice {} is not in the speech engine's catalogue",
                    custom.base_voice_id
                ),
                voices::UNAVAILABLE_RETRY_AFTER,
            )
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
    let voice = catalogue.voice(id).ok_or_else(ApiError::not_found)?;
    Ok(Speaker {
        voice: voice.clone(),
        prosody: Prosody::default(),
    })
}

async fn speak(
    caller: Caller<MediaFilesWrite>,
    state: AppState,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    headers: HeaderMap,
    body: SpeakRequest,
) -> ApiResult<Response> {
    let Path(id) = id.map_err(|_| ApiError::not_found())?;
    if id.is_empty() || id.len() > 64 {
        return Err(ApiError::not_found());
    }
    let speaker = speaker(&state, &caller, &id).await?;
    let field = if body.segments.is_some() {
        "segments"
    } else {
        "text"
    };
    let pieces = pieces(catalogue(&state)?, &speaker, body)?;
    let wav = state
        .speech
        .speak(&pieces, speaker.prosody)
        .await
        .map_err(|error| spoken_error(error, field))?;
    let (bytes, content_type) = if wants_mp3(&headers) {
        let mp3 =
            tokio::task::spawn_blocking(move || switchboard_asterisk::transcode::to_mp3(&wav))
                .await
                .map_err(ApiError::internal)?
                .map_err(ApiError::internal)?;
        (mp3.bytes, "audio/mpeg")
    } else {
        (wav, wav_label(&headers))
    };
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        bytes,
    )
        .into_response())
}

/// Renders a prompt: `text` (with an optional `language` the voice speaks) or 1 to 10
/// `segments`, each in its language. Answers 8 kHz 16-bit mono WAV, or MP3 on
/// `Accept: audio/mpeg` (the WAV is labelled `application/octet-stream` on `Accept:
/// application/octet-stream`); 503 with `Retry-After` when the rendering queue is full.
#[utoipa::path(post, operation_id = "synthesizeSpeech", path = "/v2/text-to-speech/voices/{id}/tts", tag = "text-to-speech",
    params(("id" = String, Path, min_length = 1, max_length = 64, description = "A voice of the catalogue, or a custom voice (`custom-{n}`)")),
    request_body = SpeakRequest,
    responses(
        (status = 200, description = "The spoken prompt", content(
            (SpokenAudio = "audio/wav"),
            (SpokenAudio = "audio/mpeg"),
            (SpokenAudio = "application/octet-stream"),
        )),
        (status = 503, description = "No speech engine, or the rendering queue is full (see `Retry-After`)", body = crate::error::ErrorBody),
    ))]
pub async fn tts(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<SpeakRequest>,
) -> ApiResult<Response> {
    speak(caller, state, id, headers, body).await
}

/// Renders a prompt (release notes' path, the same answer).
#[utoipa::path(post, operation_id = "synthesizeSpeechUnversioned", path = "/text-to-speech/voices/{id}/tts", tag = "text-to-speech",
    params(("id" = String, Path, min_length = 1, max_length = 64, description = "A voice of the catalogue, or a custom voice (`custom-{n}`)")),
    request_body = SpeakRequest,
    responses(
        (status = 200, description = "The spoken prompt", content(
            (SpokenAudio = "audio/wav"),
            (SpokenAudio = "audio/mpeg"),
            (SpokenAudio = "application/octet-stream"),
        )),
        (status = 503, description = "No speech engine, or the rendering queue is full (see `Retry-After`)", body = crate::error::ErrorBody),
    ))]
pub async fn tts_unversioned(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<SpeakRequest>,
) -> ApiResult<Response> {
    speak(caller, state, id, headers, body).await
}
