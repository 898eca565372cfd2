//! The webhook outbox: an event is written in the transaction of the record it
//! describes, with one pending delivery per webhook of its tenant that subscribes to it,
//! so an event is never lost between the record's commit and its delivery.

use sea_query::{Expr, ExprTrait, LockType, Query};
use serde_json::{Value, json};
use switchboard_declare::boxed;
use switchboard_domain::ids::{DeliveryId, EventId, TenantId, WebhookId};
use switchboard_domain::records::webhook::subscribes;
use switchboard_domain::records::webhook_delivery::PENDING;

use crate::backend::Tx;
use crate::crud;
use crate::error::Result;
use crate::wakeups::Worker;

#[derive(switchboard_domain::declare::FromRow)]
struct Subscriber {
    id: WebhookId,
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
pub async fn emit(
    tx: &mut Tx,
    tenant: TenantId,
    kind: &str,
    data: Value,
    now: i64,
) -> Result<EventId> {
    let event = record(tx, tenant, kind, data, now).await?;
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
        queue(tx, webhook.id, event, None, now).await?;
    }
    Ok(event)
}

/// Writes event `kind` of `tenant` with `data` in `tx`, queued to no webhook yet;
/// answers its id.
#[boxed]
pub(crate) async fn record(
    tx: &mut Tx,
    tenant: TenantId,
    kind: &str,
    data: Value,
    now: i64,
) -> Result<EventId> {
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
    Ok(EventId(event))
}

/// Queues a delivery (with a new message id) of `event` to `webhook`, due now, and wakes
/// the delivery worker once `tx` commits; answers the delivery's id. With a `lease`
/// (`(owner, until)`) it is already leased to its sender, who sends it at once.
#[boxed]
pub async fn queue(
    tx: &mut Tx,
    webhook: WebhookId,
    event: EventId,
    lease: Option<(&str, i64)>,
    now: i64,
) -> Result<DeliveryId> {
    tx.wake_after_commit(Worker::Deliveries);
    let delivery = crud::insert_in(
        tx,
        "webhook_deliveries",
        vec![
            ("webhook_id", webhook.get().into()),
            ("event_id", event.get().into()),
            ("message_id", message_id().into()),
            ("state", PENDING.into()),
            ("attempts", 0i64.into()),
            ("next_attempt_at", now.into()),
            (
                "lease_owner",
                lease.map(|(owner, _)| owner.to_owned()).into(),
            ),
            ("lease_until", lease.map(|(_, until)| until).into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    Ok(DeliveryId(delivery))
}
