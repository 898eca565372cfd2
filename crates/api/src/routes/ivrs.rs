//! `/v2/admin/ivrs`: the voice menus of a tenant.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::ivrs as app;
use switchboard_app::tenancy;
use switchboard_db::ivrs;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::IvrId;
use switchboard_domain::list::Page;
use switchboard_domain::records::ivr::{CreateIvr, Ivr, UpdateIvr};

use crate::auth::caller::{Caller, IvrsRead, IvrsWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the IVRs in the caller's scope.
#[utoipa::path(get, operation_id = "listIvrs", path = "/v2/admin/ivrs/", tag = "ivrs",
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

/// Creates an IVR with its menu; its number must be free in the tenant's dial plan, each
/// key has one destination, and every reference is a record of the tenant.
#[utoipa::path(post, operation_id = "createIvr", path = "/v2/admin/ivrs/", tag = "ivrs",
    request_body = CreateIvr,
    responses((status = 200, description = "The new IVR", body = Ivr)))]
pub async fn create(
    caller: Caller<IvrsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateIvr>,
) -> ApiResult<Json<Ivr>> {
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(ivrs::create(&state.db, tenant, body).await?))
}

/// One IVR.
#[utoipa::path(get, operation_id = "getIvr", path = "/v2/admin/ivrs/{id}", tag = "ivrs",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "IVR id")),
    responses((status = 200, description = "The IVR", body = Ivr)))]
pub async fn get(
    caller: Caller<IvrsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<IvrId>,
) -> ApiResult<Json<Ivr>> {
    Ok(Json(ivrs::get(&state.db, &caller.scope, id).await?))
}

/// Changes an IVR; a sent `options` replaces the whole menu.
#[utoipa::path(patch, operation_id = "updateIvr", path = "/v2/admin/ivrs/{id}", tag = "ivrs",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "IVR id")),
    request_body = UpdateIvr,
    responses((status = 200, description = "The changed IVR", body = Ivr)))]
pub async fn update(
    caller: Caller<IvrsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<IvrId>,
    body: Checked<UpdateIvr>,
) -> ApiResult<Json<Ivr>> {
    let current = ivrs::get(&state.db, &caller.scope, id).await?;
    let body = body
        .check(
            async |body, problems| Ok(app::check_change(&state, &current, body, problems).await?),
        )
        .await?;
    Ok(Json(
        ivrs::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes an IVR and its menu when nothing routes to it (409 naming the users otherwise).
#[utoipa::path(delete, operation_id = "deleteIvr", path = "/v2/admin/ivrs/{id}", tag = "ivrs",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "IVR id")),
    responses((status = 200, description = "The deleted IVR", body = Ivr)))]
pub async fn delete(
    caller: Caller<IvrsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<IvrId>,
) -> ApiResult<Json<Ivr>> {
    Ok(Json(ivrs::delete(&state.db, &caller.scope, id).await?))
}
