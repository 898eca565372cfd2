//! `/v2/admin/call-outcomes`: a tenant's dispositions of campaign calls, named by the
//! engine's results (audit entity `call-outcome`).

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::call_outcomes;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::CallOutcomeId;
use switchboard_domain::list::Page;
use switchboard_domain::records::call_outcome::{
    CallOutcome, CreateCallOutcome, UpdateCallOutcome,
};

use crate::auth::caller::{Caller, CampaignsRead, CampaignsWrite};
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the call outcomes in the caller's scope.
#[utoipa::path(get, operation_id = "listCallOutcomes", path = "/v2/admin/call-outcomes/", tag = "call-campaigns",
    params(ListParams<CallOutcome>),
    responses((status = 200, description = "A page of call outcomes", body = Page<CallOutcome>)))]
pub async fn list(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<CallOutcome>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = call_outcomes::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a call outcome; its name is unique in the tenant (409).
#[utoipa::path(post, operation_id = "createCallOutcome", path = "/v2/admin/call-outcomes/", tag = "call-campaigns",
    request_body = CreateCallOutcome,
    responses((status = 200, description = "The new call outcome", body = CallOutcome)))]
pub async fn create(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateCallOutcome>,
) -> ApiResult<Json<CallOutcome>> {
    let tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
    Ok(Json(call_outcomes::create(&state.db, tenant, body).await?))
}

/// One call outcome.
#[utoipa::path(get, operation_id = "getCallOutcome", path = "/v2/admin/call-outcomes/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call outcome id")),
    responses((status = 200, description = "The call outcome", body = CallOutcome)))]
pub async fn get(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<CallOutcomeId>,
) -> ApiResult<Json<CallOutcome>> {
    Ok(Json(
        call_outcomes::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes a call outcome.
#[utoipa::path(patch, operation_id = "updateCallOutcome", path = "/v2/admin/call-outcomes/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call outcome id")),
    request_body = UpdateCallOutcome,
    responses((status = 200, description = "The changed call outcome", body = CallOutcome)))]
pub async fn update(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CallOutcomeId>,
    patch: Patch<UpdateCallOutcome>,
) -> ApiResult<Json<CallOutcome>> {
    let body = patch.against(&call_outcomes::get(&state.db, &caller.scope, id).await?)?;
    Ok(Json(
        call_outcomes::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes a call outcome; records keep the outcome name they were given.
#[utoipa::path(delete, operation_id = "deleteCallOutcome", path = "/v2/admin/call-outcomes/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call outcome id")),
    responses((status = 200, description = "The deleted call outcome", body = CallOutcome)))]
pub async fn delete(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CallOutcomeId>,
) -> ApiResult<Json<CallOutcome>> {
    Ok(Json(
        call_outcomes::delete(&state.db, &caller.scope, id).await?,
    ))
}
