//! `/v2/admin/media-files`: uploaded audio. The type comes from the bytes, the duration is
//! measured from the audio, the file goes to object storage under a generated key, and
//! every answer carries a short-lived signed URL to fetch it.

use axum::Json;
use axum::extract::State;
use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::http::HeaderMap;
use axum::response::Response;
use chrono::{SecondsFormat, Utc};
use switchboard_app::media_files::{Described, create_media_file};
use switchboard_app::{tenancy, voices};
use switchboard_db::media_files::{self, MediaFileRow};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{MediaFileId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::NAME;
use switchboard_domain::records::media_file::{
    MediaFile, MediaFileFields, MediaFileUpload, UpdateMediaFile, check_exclusive,
    parse_multilingual_form,
};
use switchboard_domain::records::speech::{LANGUAGE, TEXT};
use switchboard_domain::validation::{ID, Raw, Rule};
use switchboard_domain::{Location, Problems};

use crate::auth::caller::{Caller, MediaFilesRead, MediaFilesWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// Largest media file accepted, in bytes (20 MiB: several minutes of telephone audio).
pub const MAX_MEDIA_BYTES: usize = 20 * 1024 * 1024;

/// A stored row as answered: with a fresh signed URL.
pub async fn present(state: &AppState, row: MediaFileRow) -> ApiResult<MediaFile> {
    let url = crate::routes::objects::media_url(state, Some(&row.object_key)).await?;
    let rendition_url = match &row.rendition_key {
        Some(key) => Some(crate::routes::objects::media_url(state, Some(key)).await?),
        None => None,
    };
    let expires =
        Utc::now() + chrono::Duration::from_std(state.settings.media_url_ttl).unwrap_or_default();
    Ok(row.into_media_file(
        url,
        rendition_url,
        expires.to_rfc3339_opts(SecondsFormat::Secs, true),
    ))
}

/// Lists the media files in the caller's scope.
#[utoipa::path(get, operation_id = "listMediaFiles", path = "/v2/admin/media-files/", tag = "media-files",
    params(ListParams<MediaFile>),
    responses((status = 200, description = "A page of media files", body = Page<MediaFile>)))]
pub async fn list(
    caller: Caller<MediaFilesRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<MediaFile>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = media_files::list(&state.db, &caller.scope, &filter, &query).await?;
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond(presented, std::convert::identity))
}

pub(crate) fn field_text(
    value: &str,
    location_key: &str,
    rule: &impl Rule<Output = String>,
    problems: &mut Problems,
) -> Option<String> {
    match rule.check(Raw::Text(value)) {
        Ok(v) => Some(v),
        Err(message) => {
            problems.add(Location::Body, location_key, message);
            None
        }
    }
}

pub(crate) async fn read_limited(mut field: Field<'_>, limit: usize) -> ApiResult<Vec<u8>> {
    let mut bytes = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        if bytes.len() + chunk.len() > limit {
            return Err(ApiError::payload_too_large(format!(
                "the file is larger than {limit} bytes"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Maps a failure while reading a multipart body: over the limit is a 413, anything else
/// a 400.
pub fn multipart_error(error: axum::extract::multipart::MultipartError) -> ApiError {
    if error.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::payload_too_large("the request body is larger than allowed")
    } else {
        ApiError::bad_request(format!("malformed multipart body: {}", error.body_text()))
    }
}

/// Refuses a body that is not `multipart/form-data` with 415.
pub fn require_multipart(headers: &HeaderMap) -> ApiResult<()> {
    if crate::media_type::sent_is(headers, "multipart/form-data") {
        Ok(())
    } else {
        Err(ApiError::unsupported_media_type(
            "the body must be sent as multipart/form-data",
        ))
    }
}

/// Maps a multipart extractor refusal (no boundary, wrong type) to the contract's errors.
pub fn multipart_rejection(rejection: MultipartRejection) -> ApiError {
    ApiError::bad_request(format!(
        "malformed multipart body: {}",
        rejection.body_text()
    ))
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listMediaFilesUnversioned", path = "/admin/media-files/", tag = "media-files",
    params(ListParams<MediaFile>),
    responses((status = 200, description = "A page of media files", body = Page<MediaFile>)))]
pub async fn list_unversioned(
    caller: Caller<MediaFilesRead>,
    state: State<AppState>,
    params: ListParams<MediaFile>,
) -> ApiResult<Response> {
    list(caller, state, params).await
}

/// Uploads an audio file (multipart: `file`, `name`, optional `tenantId`, `language`,
/// `text` or `multilingualText`).
#[utoipa::path(post, operation_id = "createMediaFile", path = "/v2/admin/media-files/", tag = "media-files",
    request_body(content = MediaFileUpload, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "The new media file", body = MediaFile),
        (status = 503, description = "The audio could not be converted for telephony now \
            (the conversion slots stayed busy, the decoder was cut short, or Ogg Opus cannot \
            be decoded on this server), or the object storage did not answer in time; \
            nothing is stored; see Retry-After",
            body = crate::error::ErrorBody),
    ))]
pub async fn create(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<MediaFile>> {
    require_multipart(&headers)?;
    let mut multipart = multipart.map_err(multipart_rejection)?;
    let mut problems = Problems::new();
    let mut file = None;
    let mut fields = MediaFileFields::default();
    let mut tenant_id = None;
    let mut name_seen = false;
    let mut voice_id = None;
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "file" {
            file = Some(read_limited(field, MAX_MEDIA_BYTES).await?);
            continue;
        }
        let value = String::from_utf8(read_limited(field, 64 * 1024).await?)
            .map_err(|_| ApiError::invalid(Location::Body, &name, "must be UTF-8 text"))?;
        match name.as_str() {
            "name" => {
                name_seen = true;
                fields.name = field_text(&value, "name", &NAME, &mut problems);
            }
            "language" => {
                fields.language = Some(field_text(&value, "language", &LANGUAGE, &mut problems))
            }
            "text" => fields.text = Some(field_text(&value, "text", &TEXT, &mut problems)),
            "multilingualText" => {
                fields.multilingual_text = Some(parse_multilingual_form(&value, &mut problems))
            }
            "voiceId" => {
                voice_id = field_text(
                    &value,
                    "voiceId",
                    &switchboard_domain::records::speech::VOICE_ID,
                    &mut problems,
                )
            }
            "tenantId" => {
                tenant_id = match ID.check(Raw::Text(&value)) {
                    Ok(id) => Some(TenantId(id)),
                    Err(message) => {
                        problems.add(Location::Body, "tenantId", message);
                        None
                    }
                }
            }
            _ => {}
        }
    }
    if file.is_none() {
        problems.add(Location::Body, "file", "is required");
    }
    if !name_seen {
        problems.add(Location::Body, "name", "is required");
    }
    check_exclusive(&fields, &mut problems, Location::Body);
    // The voice is checked against the tenant with the form's other rules, so every
    // broken one is answered at once; a tenant refused is answered after them.
    let tenant = tenancy::tenant_for_write(&state, &caller, tenant_id).await;
    if let (Ok(tenant), Some(voice)) = (&tenant, &voice_id) {
        voices::check_media_voice(&state, &caller, *tenant, voice, &mut problems).await?;
    }
    switchboard_app::Error::answer(problems)?;
    let tenant = tenant?;
    let described = Described {
        name: fields.name.clone().unwrap_or_default(),
        voice_id,
        fields,
    };
    let bytes = file.unwrap_or_default();
    let row = create_media_file(&state, tenant, bytes, described).await?;
    Ok(Json(present(&state, row).await?))
}

/// The same upload at the release notes' path (`POST /admin/media-files`).
#[utoipa::path(post, operation_id = "createMediaFileUnversioned", path = "/admin/media-files/", tag = "media-files",
    request_body(content = MediaFileUpload, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "The new media file", body = MediaFile),
        (status = 503, description = "The audio could not be converted for telephony now, or \
            the object storage did not answer in time; nothing is stored; see Retry-After",
            body = crate::error::ErrorBody),
    ))]
pub async fn create_unversioned(
    caller: Caller<MediaFilesWrite>,
    state: State<AppState>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<MediaFile>> {
    create(caller, state, headers, multipart).await
}

/// One media file, with a fresh signed URL.
#[utoipa::path(get, operation_id = "getMediaFile", path = "/v2/admin/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    responses((status = 200, description = "The media file", body = MediaFile)))]
pub async fn get(
    caller: Caller<MediaFilesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<MediaFileId>,
) -> ApiResult<Json<MediaFile>> {
    let row = media_files::get(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

/// One media file (release notes' path, the same answer).
#[utoipa::path(get, operation_id = "getMediaFileUnversioned", path = "/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    responses((status = 200, description = "The media file", body = MediaFile)))]
pub async fn get_unversioned(
    caller: Caller<MediaFilesRead>,
    state: State<AppState>,
    id: PathId<MediaFileId>,
) -> ApiResult<Json<MediaFile>> {
    get(caller, state, id).await
}

/// One media file (the release notes' path under `/v2`, the same answer).
#[utoipa::path(get, operation_id = "getMediaFileV2", path = "/v2/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    responses((status = 200, description = "The media file", body = MediaFile)))]
pub async fn get_v2(
    caller: Caller<MediaFilesRead>,
    state: State<AppState>,
    id: PathId<MediaFileId>,
) -> ApiResult<Json<MediaFile>> {
    get(caller, state, id).await
}

/// Changes a media file's name and texts.
#[utoipa::path(patch, operation_id = "updateMediaFile", path = "/v2/admin/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    request_body = UpdateMediaFile,
    responses((status = 200, description = "The changed media file", body = MediaFile)))]
pub async fn update(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<MediaFileId>,
    JsonBody(body): JsonBody<UpdateMediaFile>,
) -> ApiResult<Json<MediaFile>> {
    let mut fields = MediaFileFields::from(body);
    // `text` and `multilingualText` exclude each other: setting one clears the other.
    if matches!(fields.text, Some(Some(_))) && fields.multilingual_text.is_none() {
        fields.multilingual_text = Some(None);
    }
    if matches!(fields.multilingual_text, Some(Some(_))) && fields.text.is_none() {
        fields.text = Some(None);
    }
    let row = media_files::update(&state.db, &caller.scope, id, fields).await?;
    Ok(Json(present(&state, row).await?))
}

/// Deletes a media file nothing uses (409 naming the users otherwise), with its audio.
#[utoipa::path(delete, operation_id = "deleteMediaFile", path = "/v2/admin/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    responses((status = 200, description = "The deleted media file", body = MediaFile)))]
pub async fn delete(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<MediaFileId>,
) -> ApiResult<Json<MediaFile>> {
    let row = media_files::delete(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

/// One media file at the release notes' admin path.
#[utoipa::path(get, operation_id = "getAdminMediaFileUnversioned", path = "/admin/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    responses((status = 200, description = "The media file", body = MediaFile)))]
pub async fn get_admin_unversioned(
    caller: Caller<MediaFilesRead>,
    state: State<AppState>,
    id: PathId<MediaFileId>,
) -> ApiResult<Json<MediaFile>> {
    get(caller, state, id).await
}

/// The same change at the release notes' path.
#[utoipa::path(patch, operation_id = "updateMediaFileUnversioned", path = "/admin/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    request_body = UpdateMediaFile,
    responses((status = 200, description = "The changed media file", body = MediaFile)))]
pub async fn update_unversioned(
    caller: Caller<MediaFilesWrite>,
    state: State<AppState>,
    id: PathId<MediaFileId>,
    body: JsonBody<UpdateMediaFile>,
) -> ApiResult<Json<MediaFile>> {
    update(caller, state, id, body).await
}

/// The same deletion at the release notes' path.
#[utoipa::path(delete, operation_id = "deleteMediaFileUnversioned", path = "/admin/media-files/{id}", tag = "media-files",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Media file id")),
    responses((status = 200, description = "The deleted media file", body = MediaFile)))]
pub async fn delete_unversioned(
    caller: Caller<MediaFilesWrite>,
    state: State<AppState>,
    id: PathId<MediaFileId>,
) -> ApiResult<Json<MediaFile>> {
    delete(caller, state, id).await
}
