//! `/v2/admin/partners`: the resellers that own tenants.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::partners;
use switchboard_domain::ids::PartnerId;
use switchboard_domain::list::Page;
use switchboard_domain::records::partner::{CreatePartner, Partner, UpdatePartner};

use crate::auth::caller::{Caller, PartnersRead, PartnersWrite};
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the partners in the caller's scope.
#[utoipa::path(get, operation_id = "listPartners", path = "/v2/admin/partners/", tag = "partners",
    params(ListParams<Partner>),
    responses((status = 200, description = "A page of partners", body = Page<Partner>)))]
pub async fn list(
    caller: Caller<PartnersRead>,
    State(state): State<AppState>,
    ListParams { query, .. }: ListParams<Partner>,
) -> ApiResult<Response> {
    let listing = partners::list(&state.db, &caller.scope, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a partner (platform admins only).
#[utoipa::path(post, operation_id = "createPartner", path = "/v2/admin/partners/", tag = "partners",
    request_body = CreatePartner,
    responses((status = 200, description = "The new partner", body = Partner)))]
pub async fn create(
    _caller: Caller<PartnersWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreatePartner>,
) -> ApiResult<Json<Partner>> {
    Ok(Json(partners::create(&state.db, body).await?))
}

/// One partner.
#[utoipa::path(get, operation_id = "getPartner", path = "/v2/admin/partners/{id}", tag = "partners",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Partner id")),
    responses((status = 200, description = "The partner", body = Partner)))]
pub async fn get(
    caller: Caller<PartnersRead>,
    State(state): State<AppState>,
    PathId(id): PathId<PartnerId>,
) -> ApiResult<Json<Partner>> {
    Ok(Json(partners::get(&state.db, &caller.scope, id).await?))
}

/// Changes a partner.
#[utoipa::path(patch, operation_id = "updatePartner", path = "/v2/admin/partners/{id}", tag = "partners",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Partner id")),
    request_body = UpdatePartner,
    responses((status = 200, description = "The changed partner", body = Partner)))]
pub async fn update(
    caller: Caller<PartnersWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PartnerId>,
    JsonBody(body): JsonBody<UpdatePartner>,
) -> ApiResult<Json<Partner>> {
    Ok(Json(
        partners::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes a partner that owns no tenants (409 otherwise).
#[utoipa::path(delete, operation_id = "deletePartner", path = "/v2/admin/partners/{id}", tag = "partners",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Partner id")),
    responses((status = 200, description = "The deleted partner", body = Partner)))]
pub async fn delete(
    caller: Caller<PartnersWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PartnerId>,
) -> ApiResult<Json<Partner>> {
    Ok(Json(partners::delete(&state.db, &caller.scope, id).await?))
}
