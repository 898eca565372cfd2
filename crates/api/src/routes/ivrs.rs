//! `/v2/admin/ivrs`: the voice menus of a tenant.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::ivrs;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::IvrId;
use switchboard_domain::list::Page;
use switchboard_domain::records::ivr::{CreateIvr, Ivr, UpdateIvr};

use crate::auth::caller::{Caller, IvrsRead, IvrsWrite};
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

/// Lists the IVRs in the caller's scope.
#[utoipa::path(get, path = "/v2/admin/ivrs/", tag = "ivrs",
    params(ListParams<Ivr>),
    responses((status = 200, description = "A page of IVRs", body = Page<Ivr>)))]
pub async fn list(
    caller: Caller<IvrsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Ivr>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = ivrs::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates an IVR; its number must be free among the tenant's IVRs.
#[utoipa::path(post, path = "/v2/admin/ivrs/", tag = "ivrs",
    request_body = CreateIvr,
    responses((status = 200, description = "The new IVR", body = Ivr)))]
pub async fn create(
    caller: Caller<IvrsWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateIvr>,
) -> ApiResult<Json<Ivr>> {
    let tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
    Ok(Json(ivrs::create(&state.db, tenant, body).await?))
}

/// One IVR.
#[utoipa::path(get, path = "/v2/admin/ivrs/{id}", tag = "ivrs",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "IVR id")),
    responses((status = 200, description = "The IVR", body = Ivr)))]
pub async fn get(
    caller: Caller<IvrsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<IvrId>,
) -> ApiResult<Json<Ivr>> {
    Ok(Json(ivrs::get(&state.db, &caller.scope, id).await?))
}

/// Changes an IVR.
#[utoipa::path(patch, path = "/v2/admin/ivrs/{id}", tag = "ivrs",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "IVR id")),
    request_body = UpdateIvr,
    responses((status = 200, description = "The changed IVR", body = Ivr)))]
pub async fn update(
    caller: Caller<IvrsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<IvrId>,
    JsonBody(body): JsonBody<UpdateIvr>,
) -> ApiResult<Json<Ivr>> {
    Ok(Json(
        ivrs::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes an IVR that nothing routes to (409 naming the users otherwise).
#[utoipa::path(delete, path = "/v2/admin/ivrs/{id}", tag = "ivrs",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "IVR id")),
    responses((status = 200, description = "The deleted IVR", body = Ivr)))]
pub async fn delete(
    caller: Caller<IvrsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<IvrId>,
) -> ApiResult<Json<Ivr>> {
    Ok(Json(ivrs::delete(&state.db, &caller.scope, id).await?))
}
