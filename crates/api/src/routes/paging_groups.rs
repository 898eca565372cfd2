//! `/v2/admin/paging-groups`: numbers that page an ordered set of extensions at once.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::paging_groups as app;
use switchboard_app::tenancy;
use switchboard_db::paging_groups;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::PagingGroupId;
use switchboard_domain::list::Page;
use switchboard_domain::records::paging_group::{
    CreatePagingGroup, PagingGroup, UpdatePagingGroup,
};

use crate::auth::caller::{Caller, PagingGroupsRead, PagingGroupsWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

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
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
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
        .check(
            async |body, problems| Ok(app::check_change(&state, &current, body, problems).await?),
        )
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
