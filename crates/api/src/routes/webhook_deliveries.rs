//! `/v2/webhooks/{id}/deliveries`, `/{id}/test` and `/deliveries/{id}/replay`: what was
//! sent to a webhook and what its receiver answered, a sample sent on demand, and a
//! delivery sent again.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chrono::SecondsFormat;
use switchboard_db::deliveries::{self, AttemptRow, DeliveryRow};
use switchboard_db::webhooks;
use switchboard_domain::ids::{DeliveryId, WebhookId};
use switchboard_domain::list::Page;
use switchboard_domain::records::webhook::{HUBSPOT, HUBSPOT_EVENTS};
use switchboard_domain::records::webhook_delivery::{
    Delivery, DeliveryAttempt, PENDING, sample_data,
};

use crate::audit::now;
use crate::auth::caller::{Caller, WebhooksRead, WebhooksWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{ListParams, PathId};
use crate::listing;
use crate::state::AppState;

fn rfc3339_seconds(at: i64) -> String {
    chrono::DateTime::from_timestamp(at, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A stored delivery and its attempts as answered.
fn present((row, attempts): (DeliveryRow, Vec<AttemptRow>)) -> Delivery {
    Delivery {
        id: row.id,
        webhook_id: row.webhook_id,
        event_id: row.event_id,
        event_type: row.event_type,
        message_id: row.message_id,
        next_attempt_at: (row.state == PENDING).then(|| rfc3339_seconds(row.next_attempt_at)),
        state: row.state,
        attempt_count: row.attempts,
        created_at: rfc3339_seconds(row.created_at),
        completed_at: row.completed_at.map(rfc3339_seconds),
        attempts: attempts
            .into_iter()
            .map(|a| DeliveryAttempt {
                time: chrono::DateTime::from_timestamp_millis(a.attempted_at)
                    .unwrap_or_default()
                    .to_rfc3339_opts(SecondsFormat::Millis, true),
                status_code: a.status_code,
                latency_ms: a.latency_ms,
                response: a.response_excerpt,
                error: a.error,
            })
            .collect(),
    }
}

/// Lists a webhook's deliveries, each with its attempts.
#[utoipa::path(get, operation_id = "listWebhookDeliveries", path = "/v2/webhooks/{id}/deliveries", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id"),
           ListParams<Delivery>),
    responses((status = 200, description = "A page of deliveries", body = Page<Delivery>)))]
pub async fn list(
    caller: Caller<WebhooksRead>,
    State(state): State<AppState>,
    PathId(id): PathId<WebhookId>,
    ListParams { query, filter }: ListParams<Delivery>,
) -> ApiResult<Response> {
    // A webhook outside the caller's scope is a 404, not an empty list.
    webhooks::get(&state.db, &caller.scope, id).await?;
    let listing = deliveries::list(&state.db, &caller.scope, id, &filter, &query).await?;
    Ok(listing::respond(listing, present))
}

/// Sends a sample event of the webhook's type (a `CALL_ENDED` call for `HubSpotCRM`) to
/// this webhook alone, now, and answers the delivery with the receiver's answer. A failed
/// test is retried like any delivery, unless the webhook is disabled.
#[utoipa::path(post, operation_id = "testWebhook", path = "/v2/webhooks/{id}/test", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id")),
    responses((status = 200, description = "The test delivery and its first attempt", body = Delivery)))]
pub async fn test(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<WebhookId>,
) -> ApiResult<Json<Delivery>> {
    let webhook = webhooks::get(&state.db, &caller.scope, id).await?;
    let kind = if webhook.kind == HUBSPOT {
        HUBSPOT_EVENTS[0]
    } else {
        webhook.kind.as_str()
    };
    let now = now();
    let owner = state.jobs.owner();
    let lease_until = state.jobs.settings().lease_until(now);
    let delivery_id = deliveries::queue_test(
        &state.db,
        webhook.tenant_id,
        id,
        kind,
        sample_data(kind, &rfc3339_seconds(now)),
        (owner, lease_until),
        now,
    )
    .await?;
    let claimed = deliveries::leased(&state.db, owner, &[delivery_id])
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal("a test delivery was not leased to its sender"))?;
    switchboard_jobs::delivery::attempt(&state.jobs, claimed).await?;
    Ok(Json(present(
        deliveries::get(&state.db, &caller.scope, delivery_id).await?,
    )))
}

/// Queues the event of a delivery again, to the same webhook, due now; the new delivery
/// has a new message id (`webhook-id`). A disabled webhook must be enabled (PATCH) first.
#[utoipa::path(post, operation_id = "replayWebhookDelivery", path = "/v2/webhooks/deliveries/{id}/replay", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Delivery id")),
    responses((status = 200, description = "The new delivery", body = Delivery)))]
pub async fn replay(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<DeliveryId>,
) -> ApiResult<Json<Delivery>> {
    let (original, _) = deliveries::get(&state.db, &caller.scope, id).await?;
    let webhook = webhooks::get(&state.db, &caller.scope, original.webhook_id).await?;
    if webhook.disabled_at.is_some() {
        return Err(ApiError::conflict(
            "the webhook is disabled; change it (PATCH) to enable it before replaying",
        ));
    }
    let replayed = deliveries::replay(&state.db, &original, now()).await?;
    Ok(Json(present(
        deliveries::get(&state.db, &caller.scope, replayed).await?,
    )))
}
