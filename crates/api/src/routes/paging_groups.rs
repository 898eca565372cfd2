//! `/v2/admin/paging-groups`: numbers that page an ordered set of extensions at once.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::paging_groups;
use switchboard_domain::Problems;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{PagingGroupId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::paging_group::{
    CreatePagingGroup, PagingGroup, UpdatePagingGroup,
};

use crate::auth::caller::{Caller, PagingGroupsRead, PagingGroupsWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

/// Checks every reference a paging group body makes belongs to `tenant`: the members
/// and the intro message.
async fn check_references(
    state: &AppState,
    tenant: TenantId,
    members: Option<&[DestinationInput]>,
    intro: Option<i64>,
    problems: &mut Problems,
) -> ApiResult<()> {
    if let Some(members) = members {
        tenancy::check_destinations(state, tenant, "routingDestinations", members, problems)
            .await?;
    }
    tenancy::check_media_file(state, tenant, "introMessageMediaFileId", intro, problems).await
}

/// Lists the paging groups in the caller's scope, with their members.
#[utoipa::path(get, operation_id = "listPagingGroups", path = "/v2/admin/paging-groups/", tag = "paging-groups",
    params(ListParams<PagingGroup>),
    responses((status = 200, description = "A page of paging groups", body = Page<PagingGroup>)))]
pub async fn list(
    caller: Caller<PagingGroupsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<PagingGroup>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = paging_groups::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a paging group and its EXT members; the number must be free in the tenant.
#[utoipa::path(post, operation_id = "createPagingGroup", path = "/v2/admin/paging-groups/", tag = "paging-groups",
    request_body = CreatePagingGroup,
    responses((status = 200, description = "The new paging group", body = PagingGroup)))]
pub async fn create(
    caller: Caller<PagingGroupsWrite>,
    State(state): State<AppState>,
    body: Checked<CreatePagingGroup>,
) -> ApiResult<Json<PagingGroup>> {
    let mut tenant = TenantId(0);
    let body = body
        .check(async |body, problems| {
            tenant = tenancy::tenant_for_write(&state, &caller, Some(body.tenant_id)).await?;
            check_references(
                &state,
                tenant,
                Some(&body.routing_destinations),
                body.intro_message_media_file_id.get().map(i64::from),
                problems,
            )
            .await
        })
        .await?;
    Ok(Json(paging_groups::create(&state.db, tenant, body).await?))
}

/// One paging group with its members.
#[utoipa::path(get, operation_id = "getPagingGroup", path = "/v2/admin/paging-groups/{id}", tag = "paging-groups",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Paging group id")),
    responses((status = 200, description = "The paging group", body = PagingGroup)))]
pub async fn get(
    caller: Caller<PagingGroupsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<PagingGroupId>,
) -> ApiResult<Json<PagingGroup>> {
    Ok(Json(
        paging_groups::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes a paging group; a sent `routingDestinations` replaces the members.
#[utoipa::path(patch, operation_id = "updatePagingGroup", path = "/v2/admin/paging-groups/{id}", tag = "paging-groups",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Paging group id")),
    request_body = UpdatePagingGroup,
    responses((status = 200, description = "The changed paging group", body = PagingGroup)))]
pub async fn update(
    caller: Caller<PagingGroupsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PagingGroupId>,
    body: Checked<UpdatePagingGroup>,
) -> ApiResult<Json<PagingGroup>> {
    let current = paging_groups::get(&state.db, &caller.scope, id).await?;
    let body = body
        .check(async |body, problems| {
            check_references(
                &state,
                current.tenant_id,
                body.routing_destinations.as_deref(),
                body.intro_message_media_file_id
                    .and_then(|m| m.get())
                    .map(i64::from),
                problems,
            )
            .await
        })
        .await?;
    Ok(Json(
        paging_groups::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes a paging group with its members, answering it as it was.
#[utoipa::path(delete, operation_id = "deletePagingGroup", path = "/v2/admin/paging-groups/{id}", tag = "paging-groups",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Paging group id")),
    responses((status = 200, description = "The deleted paging group", body = PagingGroup)))]
pub async fn delete(
    caller: Caller<PagingGroupsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PagingGroupId>,
) -> ApiResult<Json<PagingGroup>> {
    Ok(Json(
        paging_groups::delete(&state.db, &caller.scope, id).await?,
    ))
}
