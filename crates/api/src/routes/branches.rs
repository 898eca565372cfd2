//! `/v2/admin/branches`: the sites of a tenant.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::branches;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::BranchId;
use switchboard_domain::list::Page;
use switchboard_domain::records::branch::{Branch, CreateBranch, UpdateBranch};

use crate::auth::caller::{BranchesRead, BranchesWrite, Caller};
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the branches in the caller's scope.
#[utoipa::path(get, operation_id = "listBranches", path = "/v2/admin/branches/", tag = "branches",
    params(ListParams<Branch>),
    responses((status = 200, description = "A page of branches", body = Page<Branch>)))]
pub async fn list(
    caller: Caller<BranchesRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Branch>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = branches::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a branch.
#[utoipa::path(post, operation_id = "createBranch", path = "/v2/admin/branches/", tag = "branches",
    request_body = CreateBranch,
    responses((status = 200, description = "The new branch", body = Branch)))]
pub async fn create(
    caller: Caller<BranchesWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateBranch>,
) -> ApiResult<Json<Branch>> {
    let tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
    Ok(Json(branches::create(&state.db, tenant, body).await?))
}

/// One branch.
#[utoipa::path(get, operation_id = "getBranch", path = "/v2/admin/branches/{id}", tag = "branches",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Branch id")),
    responses((status = 200, description = "The branch", body = Branch)))]
pub async fn get(
    caller: Caller<BranchesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<BranchId>,
) -> ApiResult<Json<Branch>> {
    Ok(Json(branches::get(&state.db, &caller.scope, id).await?))
}

/// Changes a branch.
#[utoipa::path(patch, operation_id = "updateBranch", path = "/v2/admin/branches/{id}", tag = "branches",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Branch id")),
    request_body = UpdateBranch,
    responses((status = 200, description = "The changed branch", body = Branch)))]
pub async fn update(
    caller: Caller<BranchesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<BranchId>,
    JsonBody(body): JsonBody<UpdateBranch>,
) -> ApiResult<Json<Branch>> {
    Ok(Json(
        branches::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes a branch no extension or user belongs to (409 otherwise).
#[utoipa::path(delete, operation_id = "deleteBranch", path = "/v2/admin/branches/{id}", tag = "branches",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Branch id")),
    responses((status = 200, description = "The deleted branch", body = Branch)))]
pub async fn delete(
    caller: Caller<BranchesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<BranchId>,
) -> ApiResult<Json<Branch>> {
    Ok(Json(branches::delete(&state.db, &caller.scope, id).await?))
}
