//! `/v2/admin/queues`: call queues — callers wait with hold music until a member
//! extension answers, or overflow to the timeout destination.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::queues;
use switchboard_domain::Problems;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{QueueId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::destination::{DestType, DestinationInput};
use switchboard_domain::records::queue::{CreateQueue, Queue, QueueMemberInput, UpdateQueue};

use crate::auth::caller::{Caller, QueuesRead, QueuesWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

/// Checks every reference a queue body makes belongs to `tenant`: the member
/// extensions, the hold music (a media file, a music on hold) and the timeout destination.
async fn check_references(
    state: &AppState,
    tenant: TenantId,
    members: Option<&[QueueMemberInput]>,
    (hold_media_file_id, music_on_hold_id): (Option<i64>, Option<i64>),
    timeout: Option<&DestinationInput>,
    problems: &mut Problems,
) -> ApiResult<()> {
    if let Some(members) = members {
        let items: Vec<DestinationInput> = members
            .iter()
            .map(|m| DestinationInput {
                id: m.id,
                dest_type: DestType::Ext,
                order: 0,
                type_src: None,
                number: None,
            })
            .collect();
        tenancy::check_destinations(state, tenant, "members", &items, problems).await?;
    }
    tenancy::check_media_file(
        state,
        tenant,
        "holdMediaFileId",
        hold_media_file_id,
        problems,
    )
    .await?;
    tenancy::check_music_on_hold(state, tenant, "musicOnHoldId", music_on_hold_id, problems)
        .await?;
    tenancy::check_destination(state, tenant, "timeoutDestination", timeout, problems).await
}

/// Lists the call queues in the caller's scope, with their members.
#[utoipa::path(get, operation_id = "listQueues", path = "/v2/admin/queues/", tag = "queues",
    params(ListParams<Queue>),
    responses((status = 200, description = "A page of queues", body = Page<Queue>)))]
pub async fn list(
    caller: Caller<QueuesRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Queue>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = queues::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a call queue; its number must be free in the tenant's dial plan.
#[utoipa::path(post, operation_id = "createQueue", path = "/v2/admin/queues/", tag = "queues",
    request_body = CreateQueue,
    responses((status = 200, description = "The new queue", body = Queue)))]
pub async fn create(
    caller: Caller<QueuesWrite>,
    State(state): State<AppState>,
    body: Checked<CreateQueue>,
) -> ApiResult<Json<Queue>> {
    let mut tenant = TenantId(0);
    let body = body
        .check(async |body, problems| {
            tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
            check_references(
                &state,
                tenant,
                Some(&body.members),
                (
                    body.hold_media_file_id.get().map(i64::from),
                    body.music_on_hold_id,
                ),
                body.timeout_destination.as_ref(),
                problems,
            )
            .await
        })
        .await?;
    Ok(Json(queues::create(&state.db, tenant, body).await?))
}

/// One call queue with its members.
#[utoipa::path(get, operation_id = "getQueue", path = "/v2/admin/queues/{id}", tag = "queues",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Queue id")),
    responses((status = 200, description = "The queue", body = Queue)))]
pub async fn get(
    caller: Caller<QueuesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<QueueId>,
) -> ApiResult<Json<Queue>> {
    Ok(Json(queues::get(&state.db, &caller.scope, id).await?))
}

/// Changes a call queue; a sent `members` replaces the members.
#[utoipa::path(patch, operation_id = "updateQueue", path = "/v2/admin/queues/{id}", tag = "queues",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Queue id")),
    request_body = UpdateQueue,
    responses((status = 200, description = "The changed queue", body = Queue)))]
pub async fn update(
    caller: Caller<QueuesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<QueueId>,
    body: Checked<UpdateQueue>,
) -> ApiResult<Json<Queue>> {
    let current = queues::get(&state.db, &caller.scope, id).await?;
    let body = body
        .check(async |body, problems| {
            check_references(
                &state,
                current.tenant_id,
                body.members.as_deref(),
                (
                    body.hold_media_file_id.and_then(|r| r.get()).map(i64::from),
                    body.music_on_hold_id.flatten(),
                ),
                body.timeout_destination.as_ref().and_then(Option::as_ref),
                problems,
            )
            .await
        })
        .await?;
    Ok(Json(
        queues::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes a call queue that nothing routes to (409 naming the users otherwise).
#[utoipa::path(delete, operation_id = "deleteQueue", path = "/v2/admin/queues/{id}", tag = "queues",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Queue id")),
    responses((status = 200, description = "The deleted queue", body = Queue)))]
pub async fn delete(
    caller: Caller<QueuesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<QueueId>,
) -> ApiResult<Json<Queue>> {
    Ok(Json(queues::delete(&state.db, &caller.scope, id).await?))
}
