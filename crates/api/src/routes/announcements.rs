//! `/v2/admin/announcements`: a media file played on IVRs between two dates.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::announcements as app;
use switchboard_app::tenancy;
use switchboard_db::announcements;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::AnnouncementId;
use switchboard_domain::list::Page;
use switchboard_domain::records::announcement::{
    Announcement, CreateAnnouncement, UpdateAnnouncement,
};

use crate::auth::caller::{AnnouncementsRead, AnnouncementsWrite, Caller};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the announcements in the caller's scope.
#[utoipa::path(get, operation_id = "listAnnouncements", path = "/v2/admin/announcements/", tag = "announcements",
    params(ListParams<Announcement>),
    responses((status = 200, description = "A page of announcements", body = Page<Announcement>)))]
pub async fn list(
    caller: Caller<AnnouncementsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Announcement>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = announcements::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates an announcement attached to IVRs.
#[utoipa::path(post, operation_id = "createAnnouncement", path = "/v2/admin/announcements/", tag = "announcements",
    request_body = CreateAnnouncement,
    responses((status = 200, description = "The new announcement", body = Announcement)))]
pub async fn create(
    caller: Caller<AnnouncementsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateAnnouncement>,
) -> ApiResult<Json<Announcement>> {
    let (body, placement) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(app::write_new(&state, placement, body).await?))
}

/// One announcement.
#[utoipa::path(get, operation_id = "getAnnouncement", path = "/v2/admin/announcements/{id}", tag = "announcements",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Announcement id")),
    responses((status = 200, description = "The announcement", body = Announcement)))]
pub async fn get(
    caller: Caller<AnnouncementsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<AnnouncementId>,
) -> ApiResult<Json<Announcement>> {
    Ok(Json(
        announcements::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes an announcement; a sent `ivrs` list replaces the current one.
#[utoipa::path(patch, operation_id = "updateAnnouncement", path = "/v2/admin/announcements/{id}", tag = "announcements",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Announcement id")),
    request_body = UpdateAnnouncement,
    responses((status = 200, description = "The changed announcement", body = Announcement)))]
pub async fn update(
    caller: Caller<AnnouncementsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<AnnouncementId>,
    patch: Patch<UpdateAnnouncement>,
) -> ApiResult<Json<Announcement>> {
    let current = announcements::get(&state.db, &caller.scope, id).await?;
    let (fields, branch) = patch
        .checked_against(&current)?
        .check_with(async |fields, problems| {
            app::check_change(&state, &caller, &current, fields, problems).await
        })
        .await?;
    Ok(Json(
        app::write_change(&state, &caller, id, fields, branch).await?,
    ))
}

/// Deletes an announcement, answering it as it was.
#[utoipa::path(delete, operation_id = "deleteAnnouncement", path = "/v2/admin/announcements/{id}", tag = "announcements",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Announcement id")),
    responses((status = 200, description = "The deleted announcement", body = Announcement)))]
pub async fn delete(
    caller: Caller<AnnouncementsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<AnnouncementId>,
) -> ApiResult<Json<Announcement>> {
    Ok(Json(
        announcements::delete(&state.db, &caller.scope, id).await?,
    ))
}
