//! `/v2/admin/queues`: call queues — callers wait with hold music until a member
//! extension answers, or overflow to the timeout destination.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::queues as app;
use switchboard_app::tenancy;
use switchboard_db::queues;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::QueueId;
use switchboard_domain::list::Page;
use switchboard_domain::records::queue::{CreateQueue, Queue, UpdateQueue};

use crate::auth::caller::{Caller, QueuesRead, QueuesWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

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
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
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
        .check(
            async |body, problems| Ok(app::check_change(&state, &current, body, problems).await?),
        )
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
