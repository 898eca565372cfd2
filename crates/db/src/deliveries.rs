//! The working side of the webhook outbox: claiming due deliveries under a lease (so that
//! of several `serve` processes exactly one sends each), recording attempts, and the state
//! changes that follow them (delivered, retried, failed, webhook disabled); and the
//! delivery list of the API.
//!
//! **Lock order.** On PostgreSQL every transaction that writes a webhook's outbox rows
//! locks them in one order: the webhook's row first, then its deliveries, then their
//! attempts — the order deleting a webhook takes them in (the delete locks the row, then
//! the cascade takes its deliveries and attempts). [`start`] reads the webhook `FOR KEY
//! SHARE` and [`finish`] writes its `failing_since` before the delivery and the attempt,
//! [`crate::events::emit`] reads the subscribers `FOR KEY SHARE` before queueing
//! deliveries, [`disable`] writes the webhook before failing its deliveries. (A worker that inserted an attempt — locking the
//! delivery through its foreign key — and then waited for the webhook, while a delete held
//! the webhook and waited for the delivery, was a deadlock: issue 30.) Claiming locks
//! deliveries alone, in one statement that waits for nothing else.

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Expr, ExprTrait, Func, LockType, Order, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{DeliveryId, EventId, TenantId, WebhookId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::webhook_delivery::{
    DELIVERED, Delivery, DeliveryFilter, FAILED, PENDING,
};

use crate::backend::Db;
use crate::crud;
use crate::error::Result;
use crate::events;
use crate::lease::LeasedQueue;
use crate::list::{self, Listing};
use crate::scope;

/// A delivery claimed by a worker, with everything needed to send it.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct Claimed {
    /// The delivery's id.
    pub id: DeliveryId,
    /// The webhook it goes to.
    pub webhook_id: WebhookId,
    /// The `webhook-id` header.
    pub message_id: String,
    /// Attempts made before this one.
    pub attempts: i64,
    /// The event's type.
    pub event_type: String,
    /// The event as JSON text (`{type, timestamp, tenantId, data}`).
    pub payload: String,
    /// The webhook's tenant.
    pub tenant_id: TenantId,
    /// The webhook's type (an event type, or `HubSpotCRM`).
    pub webhook_type: String,
    /// Where to post.
    pub url: String,
    /// HTTP Basic user name, empty for none.
    pub username: String,
    /// Sealed Basic password.
    pub password_sealed: Option<String>,
    /// Sealed bearer token.
    pub authtoken_sealed: Option<String>,
    /// Sealed signing secret.
    pub signing_secret_sealed: String,
    /// Sealed previous signing secret, signing until `previous_secret_expires_at`.
    pub previous_secret_sealed: Option<String>,
    /// When the previous secret stops signing (Unix seconds).
    pub previous_secret_expires_at: Option<i64>,
    /// When the webhook was disabled (Unix seconds), if it is.
    pub disabled_at: Option<i64>,
}

/// The outbox as a queue: pending deliveries, due at `next_attempt_at`.
pub const OUTBOX: LeasedQueue = LeasedQueue {
    table: "webhook_deliveries",
    due_at: "next_attempt_at",
};

/// Leases about `limit` due deliveries to `owner` until `lease_until`, answering them
/// (see [`LeasedQueue::claim`]: callers must send every delivery answered).
#[boxed]
pub async fn claim(
    db: &Db,
    owner: &str,
    now: i64,
    lease_until: i64,
    limit: u64,
) -> Result<Vec<Claimed>> {
    let ids = OUTBOX.claim(db, owner, now, lease_until, limit).await?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<DeliveryId> = ids.into_iter().map(DeliveryId).collect();
    leased(db, owner, &ids).await
}

/// The deliveries `ids` that `owner` holds, with their event and webhook.
#[boxed]
pub async fn leased(db: &Db, owner: &str, ids: &[DeliveryId]) -> Result<Vec<Claimed>> {
    let select = Query::select()
        .columns([
            ("d", "id"),
            ("d", "webhook_id"),
            ("d", "message_id"),
            ("d", "attempts"),
        ])
        .expr_as(Expr::col(("e", "type")), "event_type")
        .column(("e", "payload"))
        .columns([
            ("w", "tenant_id"),
            ("w", "url"),
            ("w", "username"),
            ("w", "password_sealed"),
            ("w", "authtoken_sealed"),
            ("w", "signing_secret_sealed"),
            ("w", "previous_secret_sealed"),
            ("w", "previous_secret_expires_at"),
            ("w", "disabled_at"),
        ])
        .expr_as(Expr::col(("w", "type")), "webhook_type")
        .from_as("webhook_deliveries", "d")
        .inner_join(
            TableRef::from("webhook_events").alias("e"),
            Expr::col(("e", "id")).equals(("d", "event_id")),
        )
        .inner_join(
            TableRef::from("webhooks").alias("w"),
            Expr::col(("w", "id")).equals(("d", "webhook_id")),
        )
        .and_where(Expr::col(("d", "id")).is_in(ids.iter().map(|id| id.get())))
        .and_where(Expr::col(("d", "lease_owner")).eq(owner))
        .order_by(("d", "id"), Order::Asc)
        .take();
    db.conn().fetch_all(&select).await
}

/// The outcome of one attempt, as recorded.
#[derive(Clone, Debug)]
pub struct AttemptRecord {
    /// The receiver's status, if an answer came.
    pub status_code: Option<i64>,
    /// How long it took.
    pub latency_ms: i64,
    /// The first bytes of the answer.
    pub response_excerpt: String,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// What becomes of a delivery after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// A 2xx came: done.
    Delivered,
    /// Try again at this time (Unix seconds).
    RetryAt(i64),
    /// Retries exhausted (or the webhook is disabled): give up.
    Failed,
}

/// What [`finish`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    /// Whether the worker still held the lease, so that its outcome was applied.
    pub applied: bool,
    /// Since when the webhook has been failing without a success (Unix seconds); `None`
    /// after a success.
    pub failing_since: Option<i64>,
}

/// What an attempt says until its outcome is recorded: the outcome of one whose process
/// stopped (a crash, a kill) while the request was out is never known.
pub const NO_OUTCOME: &str = "no outcome recorded: the process sending it stopped while the request was out (or it is out now); the receiver may have received it";

/// Counts and records an attempt of `delivery` (leased to `owner`) begun at
/// `attempted_at_ms`, before its request leaves: an attempt cut off by a crash is then
/// counted and listed (saying [`NO_OUTCOME`]), and its retry is not mistaken for a first
/// try. Answers the attempt's id for [`finish`], or `None` — then it must not be sent —
/// when the delivery is no longer this worker's (its lease taken over) or its webhook is
/// gone.
///
/// The webhook's row is locked first (the module's lock order).
#[boxed]
pub async fn start(
    db: &Db,
    delivery: &Claimed,
    owner: &str,
    attempted_at_ms: i64,
) -> Result<Option<i64>> {
    let mut tx = db.begin().await?;
    let webhook = Query::select()
        .column("id")
        .from("webhooks")
        .and_where(Expr::col("id").eq(delivery.webhook_id.get()))
        .lock(LockType::KeyShare)
        .take();
    if tx.fetch_optional::<(i64,)>(&webhook).await?.is_none() {
        return Ok(None);
    }
    let count = Query::update()
        .table("webhook_deliveries")
        .value("attempts", Expr::col("attempts").add(1))
        .cond_where(OUTBOX.held(delivery.id.get(), owner))
        .and_where(Expr::col("state").eq(PENDING))
        .take();
    if tx.execute(&count).await? != 1 {
        return Ok(None);
    }
    let attempt = crud::insert_in(
        &mut tx,
        "webhook_attempts",
        vec![
            ("delivery_id", delivery.id.get().into()),
            ("webhook_id", delivery.webhook_id.get().into()),
            ("attempted_at", attempted_at_ms.into()),
            ("status_code", Option::<i64>::None.into()),
            ("latency_ms", 0i64.into()),
            ("response_excerpt", "".into()),
            ("error", Some(NO_OUTCOME).into()),
        ],
    )
    .await?;
    tx.commit().await?;
    Ok(Some(attempt))
}

/// Records the outcome of the attempt `attempt_id` of `delivery` ([`start`]ed by `owner`)
/// and applies `next`, in one transaction. A worker whose lease was taken over applies
/// nothing but the attempt's outcome, so a delivery is marked delivered once. A webhook
/// deleted meanwhile took its deliveries and attempts with it: nothing is recorded then.
///
/// The webhook's row is written first (the module's lock order).
#[boxed]
pub async fn finish(
    db: &Db,
    delivery: &Claimed,
    owner: &str,
    attempt_id: i64,
    attempt: &AttemptRecord,
    next: Next,
    now: i64,
) -> Result<Finished> {
    let mut tx = db.begin().await?;
    let failing_since = if next == Next::Delivered {
        Expr::val(Option::<i64>::None)
    } else {
        Func::coalesce([Expr::col("failing_since"), Expr::val(now)]).into()
    };
    let webhook = Query::update()
        .table("webhooks")
        .value("failing_since", failing_since)
        .and_where(Expr::col("id").eq(delivery.webhook_id.get()))
        .returning_col("failing_since")
        .take();
    let Some((failing_since,)) = tx.fetch_optional::<(Option<i64>,)>(&webhook).await? else {
        return Ok(Finished {
            applied: false,
            failing_since: None,
        });
    };
    let mut changes: crud::Changes = vec![("lease_until", Option::<i64>::None.into())];
    match next {
        // The owner stays, as a record of which process delivered it.
        Next::Delivered => changes.extend([
            ("state", DELIVERED.into()),
            ("completed_at", Some(now).into()),
        ]),
        Next::RetryAt(at) => changes.extend([
            ("next_attempt_at", at.into()),
            ("lease_owner", Option::<String>::None.into()),
        ]),
        Next::Failed => {
            changes.extend([("state", FAILED.into()), ("completed_at", Some(now).into())])
        }
    }
    let update = Query::update()
        .table("webhook_deliveries")
        .values(changes)
        .cond_where(OUTBOX.held(delivery.id.get(), owner))
        .and_where(Expr::col("state").eq(PENDING))
        .take();
    let applied = tx.execute(&update).await? == 1;
    let outcome = Query::update()
        .table("webhook_attempts")
        .values([
            ("status_code", attempt.status_code.into()),
            ("latency_ms", attempt.latency_ms.into()),
            ("response_excerpt", attempt.response_excerpt.clone().into()),
            ("error", attempt.error.clone().into()),
        ])
        .and_where(Expr::col("id").eq(attempt_id))
        .take();
    tx.execute(&outcome).await?;
    tx.commit().await?;
    Ok(Finished {
        applied,
        failing_since,
    })
}

/// Disables `webhook` for `reason` and fails its pending deliveries; answers its tenant
/// when this call disabled it (`None` when it already was, or is gone), so the caller
/// audits each disabling once.
#[boxed]
pub async fn disable(
    db: &Db,
    webhook: WebhookId,
    reason: &str,
    now: i64,
) -> Result<Option<TenantId>> {
    let mut tx = db.begin().await?;
    let update = Query::update()
        .table("webhooks")
        .values([
            ("disabled_at", Some(now).into()),
            ("disabled_reason", Some(reason).into()),
        ])
        .and_where(Expr::col("id").eq(webhook.get()))
        .and_where(Expr::col("disabled_at").is_null())
        .returning_col("tenant_id")
        .take();
    let tenant: Option<(TenantId,)> = tx.fetch_optional(&update).await?;
    if tenant.is_some() {
        let fail = Query::update()
            .table("webhook_deliveries")
            .values([
                ("state", FAILED.into()),
                ("completed_at", Some(now).into()),
                ("lease_until", Option::<i64>::None.into()),
            ])
            .and_where(Expr::col("webhook_id").eq(webhook.get()))
            .and_where(Expr::col("state").eq(PENDING))
            .take();
        tx.execute(&fail).await?;
    }
    tx.commit().await?;
    Ok(tenant.map(|(id,)| id))
}

/// Records a sample event of `kind` for `tenant` and queues it to `webhook` alone,
/// already leased (`(owner, until)`: the caller sends it at once; should it die first, the
/// lease runs out and a worker sends it). Answers the delivery's id.
#[boxed]
pub async fn queue_test(
    db: &Db,
    tenant: TenantId,
    webhook: WebhookId,
    kind: &str,
    data: serde_json::Value,
    lease: (&str, i64),
    now: i64,
) -> Result<DeliveryId> {
    let mut tx = db.begin().await?;
    let event = events::record(&mut tx, tenant, kind, data, now).await?;
    let id = events::queue(&mut tx, webhook, event, Some(lease), now).await?;
    tx.commit().await?;
    Ok(id)
}

/// Queues a new delivery (with a new message id) of the event of `delivery` to the same
/// webhook, due now; answers its id.
#[boxed]
pub async fn replay(db: &Db, delivery: &DeliveryRow, now: i64) -> Result<DeliveryId> {
    let mut tx = db.begin().await?;
    let id = events::queue(&mut tx, delivery.webhook_id, delivery.event_id, None, now).await?;
    tx.commit().await?;
    Ok(id)
}

/// A delivery as listed.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct DeliveryRow {
    /// Id.
    pub id: DeliveryId,
    /// Webhook.
    pub webhook_id: WebhookId,
    /// Event.
    pub event_id: EventId,
    /// The event's type.
    pub event_type: String,
    /// The `webhook-id` header.
    pub message_id: String,
    /// pending, delivered or failed.
    pub state: String,
    /// Attempts made.
    pub attempts: i64,
    /// When the next attempt is due (Unix seconds).
    pub next_attempt_at: i64,
    /// When it was queued (Unix seconds).
    pub created_at: i64,
    /// When it was delivered or given up (Unix seconds).
    pub completed_at: Option<i64>,
}

/// An attempt as listed.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct AttemptRow {
    /// The delivery it belongs to.
    pub delivery_id: DeliveryId,
    /// When (Unix milliseconds).
    pub attempted_at: i64,
    /// The receiver's status.
    pub status_code: Option<i64>,
    /// How long it took.
    pub latency_ms: i64,
    /// The first bytes of the answer.
    pub response_excerpt: String,
    /// What went wrong.
    pub error: Option<String>,
}

/// Deliveries confined to the webhooks the caller reaches.
fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            ("d", "id"),
            ("d", "webhook_id"),
            ("d", "event_id"),
            ("d", "message_id"),
            ("d", "state"),
            ("d", "attempts"),
            ("d", "next_attempt_at"),
            ("d", "created_at"),
            ("d", "completed_at"),
        ])
        .expr_as(Expr::col(("e", "type")), "event_type")
        .from_as("webhook_deliveries", "d")
        .inner_join(
            TableRef::from("webhook_events").alias("e"),
            Expr::col(("e", "id")).equals(("d", "event_id")),
        )
        .inner_join(
            TableRef::from("webhooks").alias("w"),
            Expr::col(("w", "id")).equals(("d", "webhook_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("w", "tenant_id"))))
        .take()
}

/// The deliveries of `webhook` (already checked to be in the caller's scope), each with
/// its attempts.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    webhook: WebhookId,
    filter: &DeliveryFilter,
    query: &ListQuery,
) -> Result<Listing<(DeliveryRow, Vec<AttemptRow>)>> {
    let mut select = select(scope);
    select.and_where(Expr::col(("d", "webhook_id")).eq(webhook.get()));
    if let Some(state) = &filter.state {
        select.and_where(Expr::col(("d", "state")).eq(state.as_str()));
    }
    list::run_completed(db, select, <Delivery as Listed>::SPEC, query, with_attempts).await
}

/// One delivery in the caller's scope, with its attempts.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: DeliveryId) -> Result<(DeliveryRow, Vec<AttemptRow>)> {
    let row: DeliveryRow = crud::get(db, select(scope), "d.id", id.get()).await?;
    let mut completed = with_attempts(db.clone(), vec![row]).await?;
    completed.pop().ok_or(crate::Error::NotFound)
}

/// Completes delivery rows with their attempts, one query per batch.
async fn with_attempts(
    db: Db,
    rows: Vec<DeliveryRow>,
) -> Result<Vec<(DeliveryRow, Vec<AttemptRow>)>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let select = Query::select()
        .columns([
            "delivery_id",
            "attempted_at",
            "status_code",
            "latency_ms",
            "response_excerpt",
            "error",
        ])
        .from("webhook_attempts")
        .and_where(Expr::col("delivery_id").is_in(rows.iter().map(|r| r.id.get())))
        .order_by("id", Order::Asc)
        .take();
    let attempts: Vec<AttemptRow> = db.conn().fetch_all(&select).await?;
    let mut by_delivery: HashMap<DeliveryId, Vec<AttemptRow>> = HashMap::new();
    for attempt in attempts {
        by_delivery
            .entry(attempt.delivery_id)
            .or_default()
            .push(attempt);
    }
    Ok(rows
        .into_iter()
        .map(|row| {
            let attempts = by_delivery.remove(&row.id).unwrap_or_default();
            (row, attempts)
        })
        .collect())
}

/// Deliveries waiting to be sent (the outbox's depth, for the metrics): pending ones,
/// due now or later.
#[boxed]
pub async fn pending_count(db: &Db) -> Result<i64> {
    let select = Query::select()
        .expr(Expr::col("id").count())
        .from("webhook_deliveries")
        .and_where(Expr::col("state").eq("pending"))
        .take();
    db.conn().scalar(&select).await
}
