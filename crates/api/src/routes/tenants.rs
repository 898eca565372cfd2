//! `/v2/admin/tenants`: the customer businesses.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenants as app;
use switchboard_db::tenants;
use switchboard_domain::Scope;
use switchboard_domain::ids::{PartnerId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::tenant::{CreateTenant, Tenant, UpdateTenant};

use crate::auth::caller::{Caller, TenantsRead, TenantsWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, JsonBody, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the tenants in the caller's scope.
#[utoipa::path(get, operation_id = "listTenants", path = "/v2/admin/tenants/", tag = "tenants",
    params(ListParams<Tenant>),
    responses((status = 200, description = "A page of tenants", body = Page<Tenant>)))]
pub async fn list(
    caller: Caller<TenantsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Tenant>,
) -> ApiResult<Response> {
    if let (Scope::Partner(own), Some(p)) = (caller.scope, filter.partner_id)
        && own != p
    {
        return Err(switchboard_app::Error::outside_scope("partnerId").into());
    }
    let listing = tenants::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a tenant: platform admins name its partner, partner admins create in their own.
#[utoipa::path(post, operation_id = "createTenant", path = "/v2/admin/tenants/", tag = "tenants",
    request_body = CreateTenant,
    responses((status = 200, description = "The new tenant", body = Tenant)))]
pub async fn create(
    caller: Caller<TenantsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateTenant>,
) -> ApiResult<Json<Tenant>> {
    let mut partner = PartnerId(0);
    let body = body
        .check(async |body, problems| {
            partner = app::partner_of(&state, &caller, body.partner_id, problems).await?;
            Ok(())
        })
        .await?;
    Ok(Json(app::write_tenant(&state, partner, body).await?))
}

/// One tenant.
#[utoipa::path(get, operation_id = "getTenant", path = "/v2/admin/tenants/{id}", tag = "tenants",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Tenant id")),
    responses((status = 200, description = "The tenant", body = Tenant)))]
pub async fn get(
    caller: Caller<TenantsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<TenantId>,
) -> ApiResult<Json<Tenant>> {
    Ok(Json(tenants::get(&state.db, &caller.scope, id).await?))
}

/// Changes a tenant.
#[utoipa::path(patch, operation_id = "updateTenant", path = "/v2/admin/tenants/{id}", tag = "tenants",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Tenant id")),
    request_body = UpdateTenant,
    responses((status = 200, description = "The changed tenant", body = Tenant)))]
pub async fn update(
    caller: Caller<TenantsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<TenantId>,
    JsonBody(body): JsonBody<UpdateTenant>,
) -> ApiResult<Json<Tenant>> {
    let tenant = tenants::update(&state.db, &caller.scope, id, body).await?;
    Ok(Json(tenant))
}

/// Deletes a tenant with nothing left in it (409 otherwise).
#[utoipa::path(delete, operation_id = "deleteTenant", path = "/v2/admin/tenants/{id}", tag = "tenants",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Tenant id")),
    responses((status = 200, description = "The deleted tenant", body = Tenant)))]
pub async fn delete(
    caller: Caller<TenantsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<TenantId>,
) -> ApiResult<Json<Tenant>> {
    Ok(Json(tenants::delete(&state.db, &caller.scope, id).await?))
}
