//! Outbound messages sent through the engine queue — faxes and texts — as one kind of
//! engine work ([`kind`]) parametrised by what differs between them
//! ([`OutboundMessage`]): a message is recorded `queued` with its job; claimed, it is
//! `sending`; a `sent` result records it sent with its event; a `failed` one queues it
//! again when its retry rule says so, or ends it `failed` (no event: its event is for
//! messages that went out); given up because its engine kept dying, it is `failed`.

use std::future::Future;
use switchboard_declare::boxed;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use serde_json::Value;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::engine_job::JobResult;
use switchboard_domain::records::traffic::TrafficDirection;
use switchboard_domain::serde::Serialize;
use switchboard_domain::serde::de::DeserializeOwned;
use switchboard_domain::validation::iso;

use crate::backend::Tx;
use crate::crud::Changes;
use crate::engine_jobs::{self, Job, Kind, Next, Objects, Outcomes};
use crate::error::Result;
use crate::events;

/// The outcome of an attempt that sent the message.
const SENT: &str = "sent";

/// The outcomes a result may report.
const OUTCOMES: &[&str] = &[SENT, "failed"];

/// What a kind of outbound message is: the payload of its engine jobs (what the engine
/// is handed, stored as its JSON) and what differs from one kind to another.
pub trait OutboundMessage: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The engine kind's name (one of the domain's `engine_job::KINDS`).
    const KIND: &'static str;
    /// The table of its records, whose `status` is `queued`, `sending`, `sent` or `failed`.
    const TABLE: &'static str;
    /// The webhook event of a message sent.
    const SENT_EVENT: &'static str;

    /// The stored objects the payload names, handed to the engine as signed links.
    fn objects(&self) -> Objects;

    /// Records message `id` sent as `result` says (its status `sent` and what else the
    /// result tells), answering its [`Self::SENT_EVENT`]'s data; `None` when the message
    /// is gone (deleted while it was sent).
    fn record_sent(
        tx: &mut Tx,
        id: i64,
        result: &JobResult,
        now: i64,
    ) -> impl Future<Output = Result<Option<Value>>> + Send;

    /// When the failed attempt `result` of `job` is tried again (`None`: never).
    fn retry_at(
        tx: &mut Tx,
        job: &Job,
        result: &JobResult,
        now: i64,
    ) -> impl Future<Output = Result<Option<i64>>> + Send;

    /// What a failed attempt changes of the message besides its status.
    fn failure_changes(result: &JobResult) -> Changes;
}

/// The engine kind of messages `M`, to register with the others.
pub const fn kind<M: OutboundMessage>() -> Kind {
    Kind {
        name: M::KIND,
        outcomes: Outcomes::Listed(OUTCOMES),
        on_claim: claimed::<M>,
        on_result: reported::<M>,
        on_abandon: abandoned::<M>,
        objects: objects::<M>,
    }
}

/// Queues the engine job sending message `id` of `tenant` with payload `message`, due
/// now, in `tx` (the transaction recording the message).
#[boxed]
pub async fn enqueue<M: OutboundMessage>(
    tx: &mut Tx,
    tenant: TenantId,
    id: i64,
    message: &M,
    now: i64,
) -> Result<i64> {
    engine_jobs::enqueue(tx, tenant, &kind::<M>(), Some(id), message, now).await
}

/// Sets the status of message `id` to `status` with `changes`, if it is still in one of
/// `from` (any, when empty); answers whether it was.
async fn set_status<M: OutboundMessage>(
    tx: &mut Tx,
    id: i64,
    status: &str,
    mut changes: Changes,
    from: &[&str],
) -> Result<bool> {
    changes.push(("status", status.into()));
    let mut update = Query::update();
    update
        .table(M::TABLE)
        .values(changes)
        .and_where(Expr::col("id").eq(id));
    if !from.is_empty() {
        update.and_where(Expr::col("status").is_in(from.iter().copied()));
    }
    Ok(tx.execute(&update).await? > 0)
}

/// The statuses of a message still to send.
const UNSENT: [&str; 2] = ["queued", "sending"];

/// Claimed: the message is `sending`; a message gone or no longer waiting (deleted,
/// ended meanwhile) cancels its job.
fn claimed<'a, M: OutboundMessage>(
    tx: &'a mut Tx,
    job: &'a Job,
    _now: i64,
) -> BoxFuture<'a, Result<bool>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(false);
        };
        set_status::<M>(tx, id, "sending", Changes::new(), &UNSENT).await
    })
}

fn reported<'a, M: OutboundMessage>(
    tx: &'a mut Tx,
    job: &'a Job,
    result: &'a JobResult,
    now: i64,
) -> BoxFuture<'a, Result<Next>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(Next::Done);
        };
        if result.outcome == SENT {
            if let Some(data) = M::record_sent(tx, id, result, now).await? {
                events::emit(tx, job.tenant(), M::SENT_EVENT, data, now).await?;
            }
            return Ok(Next::Done);
        }
        let retry = M::retry_at(tx, job, result, now).await?;
        let status = if retry.is_some() { "queued" } else { "failed" };
        if !set_status::<M>(tx, id, status, M::failure_changes(result), &[]).await? {
            // Deleted while it was sent.
            return Ok(Next::Done);
        }
        Ok(retry.map_or(Next::Failed, Next::RetryAt))
    })
}

/// Given up because its engine kept dying: `failed`, not retried automatically (a retry
/// by hand may requeue it), without an event, as a reported failure.
fn abandoned<'a, M: OutboundMessage>(
    tx: &'a mut Tx,
    job: &'a Job,
    _reason: &'a str,
    _now: i64,
) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        if let Some(id) = job.subject_id {
            set_status::<M>(tx, id, "failed", Changes::new(), &UNSENT).await?;
        }
        Ok(())
    })
}

/// What the lists of faxes and of texts are both filtered by.
pub(crate) struct Filter<'a> {
    /// Only this tenant's messages.
    pub tenant: Option<TenantId>,
    /// Only messages sent or only messages received.
    pub direction: Option<TrafficDirection>,
    /// Only messages from this number, however it is written.
    pub from: Option<&'a str>,
    /// Only messages to this number, however it is written.
    pub to: Option<&'a str>,
    /// Only messages at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// Only messages before this instant.
    pub until: Option<DateTime<Utc>>,
}

impl Filter<'_> {
    /// Narrows `select`, which reads the messages' table as `alias`, to what the filter
    /// asks.
    pub(crate) fn narrow(&self, select: &mut SelectStatement, alias: &'static str) {
        if let Some(tenant) = self.tenant {
            select.and_where(Expr::col((alias, "tenant_id")).eq(tenant.get()));
        }
        if let Some(direction) = self.direction {
            select.and_where(Expr::col((alias, "direction")).eq(direction.as_str()));
        }
        // A number matches however either side wrote it.
        for (column, value) in [("from_number", self.from), ("to_number", self.to)] {
            if let Some(value) = value {
                let spellings = switchboard_domain::phone::spellings(value, None);
                select.and_where(Expr::col((alias, column)).is_in(spellings));
            }
        }
        // Times are stored as ISO 8601 UTC with seconds, so they compare as text.
        if let Some(since) = self.since {
            select.and_where(Expr::col((alias, "time")).gte(iso(since)));
        }
        if let Some(until) = self.until {
            select.and_where(Expr::col((alias, "time")).lt(iso(until)));
        }
    }
}

/// The objects a job's payload names (none when it cannot be read: the engine is handed
/// the payload as it is).
fn objects<M: OutboundMessage>(job: &Job) -> Objects {
    job.payload::<M>()
        .map(|message| message.objects())
        .unwrap_or_default()
}
