//! `/v2/admin/pharmacy/agents` (and `/admin/pharmacy/agents`, interface §8): the refill
//! lines of pharmacy tenants, their refill requests, and the engine's reports of them
//! (`POST /v2/ingest/refill-requests`).

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::pharmacy_agents as app;
use switchboard_app::tenancy;
use switchboard_db::pharmacy_agents;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::PharmacyAgentId;
use switchboard_domain::list::Page;
use switchboard_domain::records::pharmacy_agent::{
    CreatePharmacyAgent, IngestRefillRequest, PharmacyAgent, RefillRequest, UpdatePharmacyAgent,
};

use crate::auth::caller::{Caller, IngestWrite, PharmacyRead, PharmacyWrite, RefillRequestsRead};
use crate::error::ApiResult;
use crate::extract::{Checked, JsonBody, ListParams, Patch, PathId};
use crate::listing;
use crate::routes::ingest::IngestResult;
use crate::state::AppState;

/// Lists the pharmacy agents in the caller's scope.
#[utoipa::path(get, operation_id = "listPharmacyAgents", path = "/v2/admin/pharmacy/agents/", tag = "pharmacy",
    params(ListParams<PharmacyAgent>),
    responses((status = 200, description = "A page of pharmacy agents", body = Page<PharmacyAgent>)))]
pub async fn list(
    caller: Caller<PharmacyRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<PharmacyAgent>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = pharmacy_agents::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listPharmacyAgentsUnversioned", path = "/admin/pharmacy/agents/", tag = "pharmacy",
    params(ListParams<PharmacyAgent>),
    responses((status = 200, description = "A page of pharmacy agents", body = Page<PharmacyAgent>)))]
pub async fn list_unversioned(
    caller: Caller<PharmacyRead>,
    state: State<AppState>,
    params: ListParams<PharmacyAgent>,
) -> ApiResult<Response> {
    list(caller, state, params).await
}

/// Creates a pharmacy agent; its number must be free in the tenant's dial plan.
#[utoipa::path(post, operation_id = "createPharmacyAgent", path = "/v2/admin/pharmacy/agents/", tag = "pharmacy",
    request_body = CreatePharmacyAgent,
    responses((status = 200, description = "The new pharmacy agent", body = PharmacyAgent)))]
pub async fn create(
    caller: Caller<PharmacyWrite>,
    State(state): State<AppState>,
    body: Checked<CreatePharmacyAgent>,
) -> ApiResult<Json<PharmacyAgent>> {
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(
        pharmacy_agents::create(&state.db, tenant, body).await?,
    ))
}

/// The same creation at the release notes' path.
#[utoipa::path(post, operation_id = "createPharmacyAgentUnversioned", path = "/admin/pharmacy/agents/", tag = "pharmacy",
    request_body = CreatePharmacyAgent,
    responses((status = 200, description = "The new pharmacy agent", body = PharmacyAgent)))]
pub async fn create_unversioned(
    caller: Caller<PharmacyWrite>,
    state: State<AppState>,
    body: Checked<CreatePharmacyAgent>,
) -> ApiResult<Json<PharmacyAgent>> {
    create(caller, state, body).await
}

/// One pharmacy agent.
#[utoipa::path(get, operation_id = "getPharmacyAgent", path = "/v2/admin/pharmacy/agents/{id}", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id")),
    responses((status = 200, description = "The pharmacy agent", body = PharmacyAgent)))]
pub async fn get(
    caller: Caller<PharmacyRead>,
    State(state): State<AppState>,
    PathId(id): PathId<PharmacyAgentId>,
) -> ApiResult<Json<PharmacyAgent>> {
    Ok(Json(
        pharmacy_agents::get(&state.db, &caller.scope, id).await?,
    ))
}

/// The same record at the release notes' path.
#[utoipa::path(get, operation_id = "getPharmacyAgentUnversioned", path = "/admin/pharmacy/agents/{id}", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id")),
    responses((status = 200, description = "The pharmacy agent", body = PharmacyAgent)))]
pub async fn get_unversioned(
    caller: Caller<PharmacyRead>,
    state: State<AppState>,
    id: PathId<PharmacyAgentId>,
) -> ApiResult<Json<PharmacyAgent>> {
    get(caller, state, id).await
}

/// Changes a pharmacy agent: fields not sent stay unchanged, `null` clears the media
/// files, the fallback, the after-hours rule or the conduit.
#[utoipa::path(patch, operation_id = "updatePharmacyAgent", path = "/v2/admin/pharmacy/agents/{id}", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id")),
    request_body = UpdatePharmacyAgent,
    responses((status = 200, description = "The changed pharmacy agent", body = PharmacyAgent)))]
pub async fn update(
    caller: Caller<PharmacyWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PharmacyAgentId>,
    patch: Patch<UpdatePharmacyAgent>,
) -> ApiResult<Json<PharmacyAgent>> {
    let current = pharmacy_agents::get(&state.db, &caller.scope, id).await?;
    let body = patch
        .checked_against(&current)?
        .check(
            async |body, problems| Ok(app::check_change(&state, &current, body, problems).await?),
        )
        .await?;
    Ok(Json(
        pharmacy_agents::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// The same change at the release notes' path.
#[utoipa::path(patch, operation_id = "updatePharmacyAgentUnversioned", path = "/admin/pharmacy/agents/{id}", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id")),
    request_body = UpdatePharmacyAgent,
    responses((status = 200, description = "The changed pharmacy agent", body = PharmacyAgent)))]
pub async fn update_unversioned(
    caller: Caller<PharmacyWrite>,
    state: State<AppState>,
    id: PathId<PharmacyAgentId>,
    body: Patch<UpdatePharmacyAgent>,
) -> ApiResult<Json<PharmacyAgent>> {
    update(caller, state, id, body).await
}

/// Deletes a pharmacy agent that nothing routes to (409 naming the users otherwise), with
/// its refill requests.
#[utoipa::path(delete, operation_id = "deletePharmacyAgent", path = "/v2/admin/pharmacy/agents/{id}", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id")),
    responses((status = 200, description = "The deleted pharmacy agent", body = PharmacyAgent)))]
pub async fn delete(
    caller: Caller<PharmacyWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PharmacyAgentId>,
) -> ApiResult<Json<PharmacyAgent>> {
    Ok(Json(
        pharmacy_agents::delete(&state.db, &caller.scope, id).await?,
    ))
}

/// The same deletion at the release notes' path.
#[utoipa::path(delete, operation_id = "deletePharmacyAgentUnversioned", path = "/admin/pharmacy/agents/{id}", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id")),
    responses((status = 200, description = "The deleted pharmacy agent", body = PharmacyAgent)))]
pub async fn delete_unversioned(
    caller: Caller<PharmacyWrite>,
    state: State<AppState>,
    id: PathId<PharmacyAgentId>,
) -> ApiResult<Json<PharmacyAgent>> {
    delete(caller, state, id).await
}

/// Lists the refill requests an agent took, filtered by outcome and time.
#[utoipa::path(get, operation_id = "listRefillRequests", path = "/v2/admin/pharmacy/agents/{id}/refill-requests", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id"),
           ListParams<RefillRequest>),
    responses((status = 200, description = "A page of refill requests", body = Page<RefillRequest>)))]
pub async fn refill_requests(
    caller: Caller<RefillRequestsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<PharmacyAgentId>,
    ListParams { query, filter }: ListParams<RefillRequest>,
) -> ApiResult<Response> {
    // Read first, in the caller's scope: another tenant's agent is a 404.
    let agent = pharmacy_agents::get(&state.db, &caller.scope, id).await?;
    let listing = pharmacy_agents::list_refills(&state.db, agent.id, &filter, &query).await?;
    Ok(listing::respond(listing, RefillRequest::from))
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listRefillRequestsUnversioned", path = "/admin/pharmacy/agents/{id}/refill-requests", tag = "pharmacy",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Pharmacy agent id"),
           ListParams<RefillRequest>),
    responses((status = 200, description = "A page of refill requests", body = Page<RefillRequest>)))]
pub async fn refill_requests_unversioned(
    caller: Caller<RefillRequestsRead>,
    state: State<AppState>,
    id: PathId<PharmacyAgentId>,
    params: ListParams<RefillRequest>,
) -> ApiResult<Response> {
    refill_requests(caller, state, id, params).await
}

/// Records a refill request a pharmacy agent took (the engine's token, or a platform
/// admin), naming the agent by `agentId` or `agentNumber`; emits REFILL_REQUESTED. Once
/// per agent and `requestId` (the call's `uniqueId` when no `requestId` is sent): a repeat
/// changes nothing and answers `recorded: false`.
#[utoipa::path(post, operation_id = "ingestRefillRequest", path = "/v2/ingest/refill-requests", tag = "ingest",
    request_body = IngestRefillRequest,
    responses((status = 200, description = "What was recorded", body = IngestResult)))]
pub async fn ingest_refill_request(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<IngestRefillRequest>,
) -> ApiResult<Json<IngestResult>> {
    let recorded = app::record_refill_request(&state, &caller, body).await?;
    Ok(Json(IngestResult::of(recorded)))
}
