//! `/text-to-speech/…` (and `/v2/text-to-speech/…`): the voice catalogue the installed
//! engine reports, its languages, and prompts rendered as telephony audio (8 kHz 16-bit
//! mono WAV, or MP3 on `Accept: audio/mpeg`).

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use switchboard_app::voices;
use switchboard_domain::Location;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::speech::{SpeakRequest, TtsLanguage, TtsVoice};
use utoipa::IntoParams;

use crate::auth::caller::{Anyone, Caller, MediaFilesWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::JsonBody;
use crate::state::AppState;

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
    Ok(Json(
        voices::list_voices(&state, &caller, language.as_deref(), tenant).await?,
    ))
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
        voices::catalogue(state)?
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
    let wav = voices::speak(&state, &caller, &id, body).await?;
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
