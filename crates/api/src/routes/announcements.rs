//! `/v2/admin/announcements`: a media file played on IVRs between two dates.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::announcements;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{AnnouncementId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::announcement::{
    Announcement, CreateAnnouncement, IsoDate, UpdateAnnouncement,
};
use switchboard_domain::{Location, Problems};

use crate::auth::caller::{AnnouncementsRead, AnnouncementsWrite, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

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

/// Checks that the media file and IVRs named by `fields` belong to `tenant`.
async fn check_references(
    state: &AppState,
    tenant: TenantId,
    fields: &UpdateAnnouncement,
    problems: &mut Problems,
) -> ApiResult<()> {
    tenancy::check_media_file(
        state,
        tenant,
        "mediaFileId",
        fields.media_file_id.map(|m| m.get()),
        problems,
    )
    .await?;
    for (index, link) in fields.ivrs.iter().flatten().enumerate() {
        let condition = switchboard_db::scope::of_tenant(tenant);
        if !switchboard_db::crud::exists(&state.db, "ivrs", link.id, condition).await? {
            problems.add(
                Location::Body,
                &format!("ivrs/{index}/id"),
                "must name an IVR of the tenant",
            );
        }
    }
    Ok(())
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
    let (mut tenant, mut branch) = (TenantId(0), None);
    let body = body
        .check(async |body, problems| {
            tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
            branch =
                tenancy::required_branch(&state, &caller, tenant, body.branch_id, problems).await?;
            let fields = UpdateAnnouncement::from(body.clone());
            check_references(&state, tenant, &fields, problems).await
        })
        .await?;
    let branch = branch.ok_or_else(|| ApiError::internal("a checked announcement has a branch"))?;
    let fields = UpdateAnnouncement::from(body);
    Ok(Json(
        announcements::create(&state.db, tenant, branch, fields).await?,
    ))
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
    let tenant = current.tenant_id;
    let mut branch = None;
    let mut fields = patch
        .checked_against(&current)?
        .check(async |fields, problems| {
            if fields.branch_id.is_some() {
                branch =
                    tenancy::branch_for_write(&state, &caller, tenant, fields.branch_id, problems)
                        .await?;
            }
            check_references(&state, tenant, fields, problems).await?;
            // A new start or end must still leave the end after the start.
            let start = fields.start_date.as_ref().unwrap_or(&current.start_date);
            let end = fields.end_date.as_ref().unwrap_or(&current.end_date);
            if IsoDate::instant(end) <= IsoDate::instant(start) {
                problems.add(Location::Body, "endDate", "must be after startDate");
            }
            Ok(())
        })
        .await?;
    if fields.branch_id.is_some() {
        fields.branch_id = branch;
    }
    Ok(Json(
        announcements::update(&state.db, &caller.scope, id, fields).await?,
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
