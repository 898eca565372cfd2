//! `/v2/admin/music-on-hold` (also `/admin/music-on-hold`, as the release notes write it):
//! playlists of a tenant's media files played to callers on hold, one of them the tenant's
//! default, and the playlist the telephony engine fetches with signed rendition links.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chrono::{SecondsFormat, Utc};
use switchboard_app::music_on_hold as app;
use switchboard_app::tenancy;
use switchboard_db::music_on_hold;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::MusicOnHoldId;
use switchboard_domain::list::Page;
use switchboard_domain::records::music_on_hold::{
    CreateMusicOnHold, MusicOnHold, Playlist, PlaylistEntry, UpdateMusicOnHold,
};

use crate::auth::caller::{Caller, MusicOnHoldRead, MusicOnHoldWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the music on hold in the caller's scope, with their playlists.
#[utoipa::path(get, operation_id = "listMusicOnHold", path = "/v2/admin/music-on-hold/", tag = "music-on-hold",
    params(ListParams<MusicOnHold>),
    responses((status = 200, description = "A page of music on hold", body = Page<MusicOnHold>)))]
pub async fn list(
    caller: Caller<MusicOnHoldRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<MusicOnHold>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = music_on_hold::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listMusicOnHoldUnversioned", path = "/admin/music-on-hold/", tag = "music-on-hold",
    params(ListParams<MusicOnHold>),
    responses((status = 200, description = "A page of music on hold", body = Page<MusicOnHold>)))]
pub async fn list_unversioned(
    caller: Caller<MusicOnHoldRead>,
    state: State<AppState>,
    params: ListParams<MusicOnHold>,
) -> ApiResult<Response> {
    list(caller, state, params).await
}

/// Creates a music on hold playing media files of its tenant (at least one); made the
/// default, it takes over from the tenant's previous default.
#[utoipa::path(post, operation_id = "createMusicOnHold", path = "/v2/admin/music-on-hold/", tag = "music-on-hold",
    request_body = CreateMusicOnHold,
    responses((status = 200, description = "The new music on hold", body = MusicOnHold)))]
pub async fn create(
    caller: Caller<MusicOnHoldWrite>,
    State(state): State<AppState>,
    body: Checked<CreateMusicOnHold>,
) -> ApiResult<Json<MusicOnHold>> {
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(music_on_hold::create(&state.db, tenant, body).await?))
}

/// The same creation at the release notes' path.
#[utoipa::path(post, operation_id = "createMusicOnHoldUnversioned", path = "/admin/music-on-hold/", tag = "music-on-hold",
    request_body = CreateMusicOnHold,
    responses((status = 200, description = "The new music on hold", body = MusicOnHold)))]
pub async fn create_unversioned(
    caller: Caller<MusicOnHoldWrite>,
    state: State<AppState>,
    body: Checked<CreateMusicOnHold>,
) -> ApiResult<Json<MusicOnHold>> {
    create(caller, state, body).await
}

/// One music on hold with its playlist.
#[utoipa::path(get, operation_id = "getMusicOnHold", path = "/v2/admin/music-on-hold/{id}", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    responses((status = 200, description = "The music on hold", body = MusicOnHold)))]
pub async fn get(
    caller: Caller<MusicOnHoldRead>,
    State(state): State<AppState>,
    PathId(id): PathId<MusicOnHoldId>,
) -> ApiResult<Json<MusicOnHold>> {
    Ok(Json(
        music_on_hold::get(&state.db, &caller.scope, id).await?,
    ))
}

/// The same record at the release notes' path.
#[utoipa::path(get, operation_id = "getMusicOnHoldUnversioned", path = "/admin/music-on-hold/{id}", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    responses((status = 200, description = "The music on hold", body = MusicOnHold)))]
pub async fn get_unversioned(
    caller: Caller<MusicOnHoldRead>,
    state: State<AppState>,
    id: PathId<MusicOnHoldId>,
) -> ApiResult<Json<MusicOnHold>> {
    get(caller, state, id).await
}

/// Changes a music on hold; a sent `routingDestinations` replaces the playlist and must
/// still hold a media file.
#[utoipa::path(patch, operation_id = "updateMusicOnHold", path = "/v2/admin/music-on-hold/{id}", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    request_body = UpdateMusicOnHold,
    responses((status = 200, description = "The changed music on hold", body = MusicOnHold)))]
pub async fn update(
    caller: Caller<MusicOnHoldWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<MusicOnHoldId>,
    patch: Patch<UpdateMusicOnHold>,
) -> ApiResult<Json<MusicOnHold>> {
    let current = music_on_hold::get(&state.db, &caller.scope, id).await?;
    let body = patch
        .checked_against(&current)?
        .check(async |body, problems| {
            Ok(app::check_change(&state, &caller, &current, body, problems).await?)
        })
        .await?;
    Ok(Json(
        music_on_hold::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// The same change at the release notes' path.
#[utoipa::path(patch, operation_id = "updateMusicOnHoldUnversioned", path = "/admin/music-on-hold/{id}", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    request_body = UpdateMusicOnHold,
    responses((status = 200, description = "The changed music on hold", body = MusicOnHold)))]
pub async fn update_unversioned(
    caller: Caller<MusicOnHoldWrite>,
    state: State<AppState>,
    id: PathId<MusicOnHoldId>,
    body: Patch<UpdateMusicOnHold>,
) -> ApiResult<Json<MusicOnHold>> {
    update(caller, state, id, body).await
}

/// Deletes a music on hold (its media files stay), answering it as it was.
#[utoipa::path(delete, operation_id = "deleteMusicOnHold", path = "/v2/admin/music-on-hold/{id}", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    responses((status = 200, description = "The deleted music on hold", body = MusicOnHold)))]
pub async fn delete(
    caller: Caller<MusicOnHoldWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<MusicOnHoldId>,
) -> ApiResult<Json<MusicOnHold>> {
    Ok(Json(
        music_on_hold::delete(&state.db, &caller.scope, id).await?,
    ))
}

/// The same deletion at the release notes' path.
#[utoipa::path(delete, operation_id = "deleteMusicOnHoldUnversioned", path = "/admin/music-on-hold/{id}", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    responses((status = 200, description = "The deleted music on hold", body = MusicOnHold)))]
pub async fn delete_unversioned(
    caller: Caller<MusicOnHoldWrite>,
    state: State<AppState>,
    id: PathId<MusicOnHoldId>,
) -> ApiResult<Json<MusicOnHold>> {
    delete(caller, state, id).await
}

/// What the telephony engine plays: the files in order, each as a signed link to its
/// 8 kHz mono WAV rendition (the original for a file that has none), and the mode.
#[utoipa::path(get, operation_id = "getMusicOnHoldPlaylist", path = "/v2/admin/music-on-hold/{id}/playlist", tag = "music-on-hold",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Music on hold id")),
    responses((status = 200, description = "The playlist", body = Playlist)))]
pub async fn playlist(
    caller: Caller<MusicOnHoldRead>,
    State(state): State<AppState>,
    PathId(id): PathId<MusicOnHoldId>,
) -> ApiResult<Json<Playlist>> {
    let record = music_on_hold::get(&state.db, &caller.scope, id).await?;
    let rows = music_on_hold::playlist(&state.db, id).await?;
    let mut files = Vec::with_capacity(rows.len());
    for row in rows {
        let (key, content_type) = match &row.rendition_key {
            Some(key) => (key.as_str(), "audio/wav".to_owned()),
            None => (row.object_key.as_str(), row.content_type.clone()),
        };
        files.push(PlaylistEntry {
            order: row.order,
            media_file_id: row.media_file_id,
            name: row.name,
            content_type,
            duration: (row.duration_seconds * 1000.0).round() / 1000.0,
            url: crate::routes::objects::media_url(&state, Some(key)).await?,
        });
    }
    let expires =
        Utc::now() + chrono::Duration::from_std(state.settings.media_url_ttl).unwrap_or_default();
    Ok(Json(Playlist {
        id: record.id,
        mode: record.mode,
        files,
        url_expires_at: expires.to_rfc3339_opts(SecondsFormat::Secs, true),
    }))
}
