//! `/v2/admin/custom-voices`: a tenant's named presets over an engine voice (rate, pitch,
//! volume, default language), spoken as `custom-{id}` by `/text-to-speech/voices/{id}/tts`.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::{tenancy, voices};
use switchboard_db::custom_voices;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{CustomVoiceId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::custom_voice::{
    CreateCustomVoice, CustomVoice, UpdateCustomVoice,
};

use crate::auth::caller::{Caller, MediaFilesRead, MediaFilesWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the custom voices in the caller's scope.
#[utoipa::path(get, operation_id = "listCustomVoices", path = "/v2/admin/custom-voices/", tag = "text-to-speech",
    params(ListParams<CustomVoice>),
    responses((status = 200, description = "A page of custom voices", body = Page<CustomVoice>)))]
pub async fn list(
    caller: Caller<MediaFilesRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<CustomVoice>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = custom_voices::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a custom voice over an engine voice of the catalogue.
#[utoipa::path(post, operation_id = "createCustomVoice", path = "/v2/admin/custom-voices/", tag = "text-to-speech",
    request_body = CreateCustomVoice,
    responses((status = 200, description = "The new custom voice", body = CustomVoice)))]
pub async fn create(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    body: Checked<CreateCustomVoice>,
) -> ApiResult<Json<CustomVoice>> {
    let mut tenant = TenantId(0);
    let body = body
        .check(async |body, problems| {
            tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
            voices::check_base_voice(
                &state,
                &body.base_voice_id,
                body.language.as_deref(),
                problems,
            )?;
            Ok(())
        })
        .await?;
    Ok(Json(custom_voices::create(&state.db, tenant, body).await?))
}

/// One custom voice.
#[utoipa::path(get, operation_id = "getCustomVoice", path = "/v2/admin/custom-voices/{id}", tag = "text-to-speech",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Custom voice id")),
    responses((status = 200, description = "The custom voice", body = CustomVoice)))]
pub async fn get(
    caller: Caller<MediaFilesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<CustomVoiceId>,
) -> ApiResult<Json<CustomVoice>> {
    Ok(Json(
        custom_voices::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes a custom voice; the language must stay one its (new) base voice speaks.
#[utoipa::path(patch, operation_id = "updateCustomVoice", path = "/v2/admin/custom-voices/{id}", tag = "text-to-speech",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Custom voice id")),
    request_body = UpdateCustomVoice,
    responses((status = 200, description = "The changed custom voice", body = CustomVoice)))]
pub async fn update(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CustomVoiceId>,
    patch: Patch<UpdateCustomVoice>,
) -> ApiResult<Json<CustomVoice>> {
    let current = custom_voices::get(&state.db, &caller.scope, id).await?;
    let body = patch
        .checked_against(&current)?
        .check(async |body, problems| {
            let base = body
                .base_voice_id
                .as_deref()
                .unwrap_or(&current.base_voice_id);
            let language = match &body.language {
                Some(language) => language.as_deref(),
                None => current.language.as_deref(),
            };
            // Only a change is checked against the engine's catalogue: a voice sent back
            // as it was read (interface §2) is accepted even while the engine cannot be
            // asked.
            if base != current.base_voice_id
                || (language.is_some() && language != current.language.as_deref())
            {
                voices::check_base_voice(&state, base, language, problems)?;
            }
            Ok(())
        })
        .await?;
    Ok(Json(
        custom_voices::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes a custom voice.
#[utoipa::path(delete, operation_id = "deleteCustomVoice", path = "/v2/admin/custom-voices/{id}", tag = "text-to-speech",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Custom voice id")),
    responses((status = 200, description = "The deleted custom voice", body = CustomVoice)))]
pub async fn delete(
    caller: Caller<MediaFilesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CustomVoiceId>,
) -> ApiResult<Json<CustomVoice>> {
    Ok(Json(
        custom_voices::delete(&state.db, &caller.scope, id).await?,
    ))
}
