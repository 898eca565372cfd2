//! `/v2/admin/ivrs`: the voice menus of a tenant.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::ivrs;
use switchboard_domain::Problems;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{IvrId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::ivr::IvrOptionInput;
use switchboard_domain::records::ivr::{CreateIvr, Ivr, UpdateIvr};

use crate::auth::caller::{Caller, IvrsRead, IvrsWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

/// Checks every reference of an IVR body belongs to `tenant`: the greeting (media file
/// or announcement), each option's destination and the timeout and invalid paths.
async fn check_references(
    state: &AppState,
    tenant: TenantId,
    greeting: (Option<i64>, Option<i64>),
    options: Option<&[IvrOptionInput]>,
    timeout: Option<&DestinationInput>,
    invalid: Option<&DestinationInput>,
    problems: &mut Problems,
) -> ApiResult<()> {
    tenancy::check_media_file(state, tenant, "greetingMediaFileId", greeting.0, problems).await?;
    tenancy::check_announcement(
        state,
        tenant,
        "greetingAnnouncementId",
        greeting.1,
        problems,
    )
    .await?;
    for (index, option) in options.unwrap_or_default().iter().enumerate() {
        tenancy::check_destination(
            state,
            tenant,
            &format!("options/{index}/destination"),
            Some(&option.destination),
            problems,
        )
        .await?;
    }
    tenancy::check_destination(state, tenant, "timeoutDestination", timeout, problems).await?;
    tenancy::check_destination(state, tenant, "invalidDestination", invalid, problems).await
}

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
    let mut tenant = TenantId(0);
    let body = body
        .check(async |body, problems| {
            tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
            check_references(
                &state,
                tenant,
                (
                    body.greeting_media_file_id.get().map(i64::from),
                    body.greeting_announcement_id.get().map(i64::from),
                ),
                Some(&body.options),
                body.timeout_destination.as_ref(),
                body.invalid_destination.as_ref(),
                problems,
            )
            .await
        })
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
        .check(async |body, problems| {
            check_references(
                &state,
                current.tenant_id,
                (
                    body.greeting_media_file_id
                        .and_then(|g| g.get())
                        .map(i64::from),
                    body.greeting_announcement_id
                        .and_then(|g| g.get())
                        .map(i64::from),
                ),
                body.options.as_deref(),
                body.timeout_destination.as_ref().and_then(Option::as_ref),
                body.invalid_destination.as_ref().and_then(Option::as_ref),
                problems,
            )
            .await
        })
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
