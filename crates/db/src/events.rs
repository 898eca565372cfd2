//! The webhook outbox: an event is written in the transaction of the record it
//! describes, with one pending delivery per webhook of its tenant that subscribes to it,
//! so an event is never lost between the record's commit and its delivery.

use sea_query::{Expr, ExprTrait, LockType, Query};
use serde_json::{Value, json};
use switchboard_declare::boxed;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::webhook::subscribes;

use crate::backend::Tx;
use crate::crud;
use crate::error::Result;
use crate::wakeups::Worker;

#[derive(switchboard_domain::declare::FromRow)]
struct Subscriber {
    id: i64,
    #[sqlx(rename = "type")]
    kind: String,
}

/// The JSON an event is delivered as: `{type, timestamp, tenantId, data}`.
pub fn payload(kind: &str, tenant: TenantId, data: Value, now: i64) -> Value {
    let timestamp = chrono::DateTime::from_timestamp(now, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    json!({"type": kind, "timestamp": timestamp, "tenantId": tenant.get(), "data": data})
}

/// A new `webhook-id`: unique per delivery, kept across its retries.
pub fn message_id() -> String {
    format!("msg_{}", uuid::Uuid::now_v7().simple())
}

/// Records event `kind` of `tenant` with `data` inside `tx`, and queues a delivery to
/// every enabled webhook of the tenant subscribed to it; answers the event's id.
#[boxed]
pub async fn emit(tx: &mut Tx, tenant: TenantId, kind: &str, data: Value, now: i64) -> Result<i64> {
    let body = payload(kind, tenant, data, now).to_string();
    let event = crud::insert_in(
        tx,
        "webhook_events",
        vec![
            ("tenant_id", tenant.get().into()),
            ("type", kind.into()),
            ("payload", body.into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    // Read under a key-share lock (the outbox's lock order, webhook before delivery: see
    // `crate::deliveries`): a webhook being deleted is waited for and then skipped,
    // rather than read, then given a delivery whose foreign key fails this transaction.
    let webhooks = Query::select()
        .columns(["id", "type"])
        .from("webhooks")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("disabled_at").is_null())
        .lock(LockType::KeyShare)
        .take();
    let subscribers: Vec<Subscriber> = tx.fetch_all(&webhooks).await?;
    for webhook in subscribers.iter().filter(|w| subscribes(&w.kind, kind)) {
        queue(tx, webhook.id, event, now).await?;
    }
    Ok(event)
}

/// Queues a delivery of `event` to `webhook`, due now (the delivery worker woken once
/// `tx` commits); answers the delivery's id.
#[boxed]
pub async fn queue(tx: &mut Tx, webhook: i64, event: i64, now: i64) -> Result<i64> {
    tx.wake_after_commit(Worker::Deliveries);
    crud::insert_in(
        tx,
        "webhook_deliveries",
        vec![
            ("webhook_id", webhook.into()),
            ("event_id", event.into()),
            ("message_id", message_id().into()),
            ("state", "pending".into()),
            ("attempts", 0i64.into()),
            ("next_attempt_at", now.into()),
            ("created_at", now.into()),
        ],
    )
    .await
}
