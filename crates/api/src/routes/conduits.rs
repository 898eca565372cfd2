//! Conduits: `GET /tenants/conduits` (and `/v2/tenants/conduits`, interface §8) lists a
//! tenant's external connections to its own admins; platform and partner admins manage
//! them at `/v2/admin/conduits`. Credentials are written and stored sealed, never
//! answered.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::conduits::{self, ConduitRow};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::ConduitId;
use switchboard_domain::list::Page;
use switchboard_domain::records::conduit::{
    Conduit, ConduitCheckResult, CreateConduit, IngestConduitCheck, UpdateConduit,
};

use crate::audit::now;
use crate::auth::caller::{Caller, ConduitsRead, ConduitsWrite, IngestWrite};
use crate::client::ClientAddress;
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

async fn list_conduits(
    caller: Caller<ConduitsRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<Conduit>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = conduits::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, ConduitRow::into_conduit))
}

/// Lists the conduits of the caller's tenant (a platform or partner admin: of its
/// scope, or of `tenantId`), filtered by `kind`; never their credentials.
#[utoipa::path(get, operation_id = "listTenantConduitsUnversioned", path = "/tenants/conduits", tag = "conduits",
    params(ListParams<Conduit>),
    responses((status = 200, description = "A page of conduits", body = Page<Conduit>)))]
pub async fn tenant_list(
    caller: Caller<ConduitsRead>,
    State(state): State<AppState>,
    params: ListParams<Conduit>,
) -> ApiResult<Response> {
    list_conduits(caller, state, params).await
}

/// The same list under `/v2`.
#[utoipa::path(get, operation_id = "listTenantConduits", path = "/v2/tenants/conduits", tag = "conduits",
    params(ListParams<Conduit>),
    responses((status = 200, description = "A page of conduits", body = Page<Conduit>)))]
pub async fn tenant_list_v2(
    caller: Caller<ConduitsRead>,
    State(state): State<AppState>,
    params: ListParams<Conduit>,
) -> ApiResult<Response> {
    list_conduits(caller, state, params).await
}

/// Lists the conduits in the caller's scope, filtered by tenant and `kind`.
#[utoipa::path(get, operation_id = "listConduits", path = "/v2/admin/conduits/", tag = "conduits",
    params(ListParams<Conduit>),
    responses((status = 200, description = "A page of conduits", body = Page<Conduit>)))]
pub async fn list(
    caller: Caller<ConduitsRead>,
    State(state): State<AppState>,
    params: ListParams<Conduit>,
) -> ApiResult<Response> {
    list_conduits(caller, state, params).await
}

/// Creates a conduit of a tenant, its credentials (`username`, `secret`) sealed.
#[utoipa::path(post, operation_id = "createConduit", path = "/v2/admin/conduits/", tag = "conduits",
    request_body = CreateConduit,
    responses((status = 200, description = "The new conduit", body = Conduit)))]
pub async fn create(
    caller: Caller<ConduitsWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateConduit>,
) -> ApiResult<Json<Conduit>> {
    let tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
    let row = conduits::create(&state.db, tenant, body, &state.sealer, now()).await?;
    Ok(Json(row.into_conduit()))
}

/// One conduit.
#[utoipa::path(get, operation_id = "getConduit", path = "/v2/admin/conduits/{id}", tag = "conduits",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Conduit id")),
    responses((status = 200, description = "The conduit", body = Conduit)))]
pub async fn get(
    caller: Caller<ConduitsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<ConduitId>,
) -> ApiResult<Json<Conduit>> {
    let row = conduits::get(&state.db, &caller.scope, id).await?;
    Ok(Json(row.into_conduit()))
}

/// Changes a conduit; fields not sent stay unchanged, a `null` credential is removed.
#[utoipa::path(patch, operation_id = "updateConduit", path = "/v2/admin/conduits/{id}", tag = "conduits",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Conduit id")),
    request_body = UpdateConduit,
    responses((status = 200, description = "The changed conduit", body = Conduit)))]
pub async fn update(
    caller: Caller<ConduitsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<ConduitId>,
    patch: Patch<UpdateConduit>,
) -> ApiResult<Json<Conduit>> {
    let current = conduits::get(&state.db, &caller.scope, id).await?;
    let body = patch.against(&current.into_conduit())?;
    let row = conduits::update(&state.db, &caller.scope, id, body, &state.sealer).await?;
    Ok(Json(row.into_conduit()))
}

/// Deletes a conduit; the numbers routed through it are left without one.
#[utoipa::path(delete, operation_id = "deleteConduit", path = "/v2/admin/conduits/{id}", tag = "conduits",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Conduit id")),
    responses((status = 200, description = "The deleted conduit", body = Conduit)))]
pub async fn delete(
    caller: Caller<ConduitsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<ConduitId>,
) -> ApiResult<Json<Conduit>> {
    let row = conduits::delete(&state.db, &caller.scope, id).await?;
    Ok(Json(row.into_conduit()))
}

/// Records a health check of a conduit the engine made (the engine's token, or a platform
/// admin): sets `lastCheckedAt`, `lastCheckOk` and `lastCheckDetail`, and moves the
/// status — a failed check makes an `active` conduit `failing`, a passed one a `failing`
/// conduit `active` — never touching a `disabled` one. A status change is audited as the
/// system and emits CONDUIT_STATUS_CHANGED. A check older than the last recorded changes
/// nothing (`recorded: false`).
#[utoipa::path(post, operation_id = "ingestConduitCheck", path = "/v2/ingest/conduit-checks", tag = "ingest",
    request_body = IngestConduitCheck,
    responses((status = 200, description = "What the check recorded", body = ConduitCheckResult)))]
pub async fn ingest_check(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    JsonBody(body): JsonBody<IngestConduitCheck>,
) -> ApiResult<Json<ConduitCheckResult>> {
    let checked = switchboard_app::conduits::record_check(&state, &caller, &body, address).await?;
    Ok(Json(checked))
}
