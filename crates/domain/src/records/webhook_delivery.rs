//! Webhook deliveries (interface §9): one event on its way to one webhook, with every
//! attempt made; what `GET /v2/webhooks/{id}/deliveries` lists and `…/test` answers.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::declare::{Filter, Listed};
use crate::ids::{DeliveryId, EventId, WebhookId};
use crate::validation::among;

crate::closed_set! {
    /// The states a delivery can be in.
    pub enum DeliveryState {
        /// Waiting for its next attempt (`nextAttemptAt`).
        Pending = "pending",
        /// A 2xx answer came.
        Delivered = "delivered",
        /// Retries exhausted, or the webhook was disabled.
        Failed = "failed",
    }
}

/// Waiting for its next attempt (`nextAttemptAt`), as stored.
pub const PENDING: &str = DeliveryState::Pending.as_str();
/// A 2xx answer came, as stored.
pub const DELIVERED: &str = DeliveryState::Delivered.as_str();
/// Retries exhausted, or the webhook was disabled, as stored.
pub const FAILED: &str = DeliveryState::Failed.as_str();

/// One attempt to deliver.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    /// When it was made (RFC 3339, UTC, milliseconds).
    pub time: String,
    /// The receiver's HTTP status; null when no answer came (refused, unreachable, timed out).
    pub status_code: Option<i64>,
    /// How long it took, in milliseconds.
    pub latency_ms: i64,
    /// The first bytes of the answer (at most 1 KiB).
    pub response: String,
    /// What went wrong before an answer came, or why the answer counts as a failure;
    /// null on success. `no outcome recorded: …` while the request is out, and for good
    /// when the process sending it stopped meanwhile (the receiver may have received it).
    pub error: Option<String>,
}

/// One event on its way to one webhook.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[serde(rename_all = "camelCase")]
#[list(sort(id, created_at, state, next_attempt_at, event_type), filter = DeliveryFilter, table = "d", search("message_id", "e.type"))]
pub struct Delivery {
    /// The delivery's id.
    pub id: DeliveryId,
    /// The webhook it goes to.
    pub webhook_id: WebhookId,
    /// The event it carries.
    pub event_id: EventId,
    /// The event's type (`CALL_ENDED`, …).
    #[list(column = "e.type")]
    pub event_type: String,
    /// The `webhook-id` header: the same on every retry of this delivery.
    pub message_id: String,
    /// `pending`, `delivered` or `failed`.
    pub state: String,
    /// How many attempts were made.
    pub attempt_count: i64,
    /// When the next attempt is due (RFC 3339); null once delivered or failed.
    pub next_attempt_at: Option<String>,
    /// When it was queued (RFC 3339).
    pub created_at: String,
    /// When it was delivered or given up (RFC 3339); null while pending.
    pub completed_at: Option<String>,
    /// Every attempt, oldest first.
    pub attempts: Vec<DeliveryAttempt>,
}

/// Filters of the delivery list.
#[derive(Clone, Debug, Default, Filter)]
pub struct DeliveryFilter {
    /// Only deliveries in this state.
    #[field(rule = among::<DeliveryState>())]
    pub state: Option<DeliveryState>,
}

/// The `data` of a sample event of `kind`, for `POST /v2/webhooks/{id}/test`: shaped like
/// the real events, with values that are obviously examples.
pub fn sample_data(kind: &str, time: &str) -> Value {
    match kind {
        "CALL_STARTED" | "CALL_ANSWERED" | "CALL_ENDED" | "CALL_MISSED" => {
            let missed = kind == "CALL_MISSED";
            json!({
                "uniqueId": "test.0001",
                "direction": "inbound",
                "callerIdNum": "+15555550100",
                "callerIdName": "Test Caller",
                "dialedNum": "+15555550199",
                "time": time,
                "duration": if missed { 0 } else { 42 },
                "status": if missed { "missed" } else { "answered" },
                "disposition": if missed { "NO ANSWER" } else { "ANSWERED" },
            })
        }
        "VOICEMAIL_RECEIVED" => json!({
            "mailbox": "101",
            "callerIdNum": "+15555550100",
            "callerIdName": "Test Caller",
            "time": time,
            "duration": 12,
        }),
        "RECORDING_READY" => json!({"uniqueId": "test.0001", "time": time, "duration": 42}),
        "DEVICE_CONFIG_CHANGED" => json!({
            "deviceId": 1,
            "mac": "80:5e:c0:00:00:01",
            "configVersion": 2,
            "time": time,
        }),
        "CONDUIT_STATUS_CHANGED" => json!({
            "conduitId": 1,
            "tenantId": 1,
            "previousStatus": "active",
            "status": "failing",
            "ok": false,
            "detail": "408 Request Timeout",
            "checkedAt": time,
        }),
        "CAMPAIGN_CALL_COMPLETED" => json!({
            "id": 1,
            "campaignId": 1,
            "number": "+15555550199",
            "outcome": "answered",
            "attempt": 1,
            "status": "completed",
            "optedOut": false,
        }),
        "SMS_RECEIVED" | "SMS_SENT" => json!({
            "from": "+15555550100",
            "to": "+15555550199",
            "text": "This is a test message.",
            "time": time,
        }),
        _ => json!({"from": "+15555550100", "to": "+15555550199", "pages": 1, "time": time}),
    }
}
