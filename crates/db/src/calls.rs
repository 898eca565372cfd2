//! Calls and their recordings: each report of a call only moves it forward (started →
//! answered → ended or missed) and emits the event of the step it makes, in the same
//! transaction; a recording is attached once, with RECORDING_READY.

use chrono::DateTime;
use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use serde_json::{Value, json};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{CallId, QueueId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::call::{
    Call, CallPhase, CallRecording, CallRecordingFilter, CallReport, IngestTransfer, iso,
};

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::events;
use crate::list::{self, Listing};
use crate::scope;

/// A call as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct CallRow {
    /// Id.
    pub id: CallId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// Asterisk's uniqueid.
    pub unique_id: String,
    /// inbound, outbound or internal.
    pub direction: String,
    /// started, answered, ended or missed.
    pub status: String,
    /// Caller's number.
    pub caller_id_num: String,
    /// Caller's name.
    pub caller_id_name: String,
    /// Number dialled.
    pub dialed_num: String,
    /// Start, ISO 8601.
    pub time: String,
    /// Start, Unix seconds.
    pub start_unix: i64,
    /// Answer, Unix seconds.
    pub answer_unix: Option<i64>,
    /// End, Unix seconds.
    pub end_unix: Option<i64>,
    /// Seconds from start to end.
    pub duration: i64,
    /// Seconds from answer to end.
    pub billsec: i64,
    /// CDR disposition.
    pub disposition: String,
    /// Object key of the recording's MP3.
    pub recording_key: Option<String>,
    /// Size of the recording.
    pub recording_bytes: Option<i64>,
    /// The recording's own length in whole seconds, measured from its audio (beside the
    /// engine's `duration` and `billsec`, never written into them).
    pub recording_seconds: Option<i64>,
    /// The queue the call passed through.
    pub queue_id: Option<QueueId>,
}

impl CallRow {
    /// The call as the API answers its recording, with the link to it the caller made.
    pub fn into_recording(self, media_url: String) -> CallRecording {
        CallRecording {
            media_url,
            time: self.time,
            tenant_id: self.tenant_id,
            direction: self.direction,
            caller_id_num: self.caller_id_num,
            caller_id_name: self.caller_id_name,
            dialed_num: self.dialed_num,
            unique_id: self.unique_id,
            duration: self.duration,
            billsec: self.billsec,
            recording_duration: self.recording_seconds.unwrap_or(0),
        }
    }
}

const COLUMNS: &[&str] = &[
    "id",
    "tenant_id",
    "unique_id",
    "direction",
    "status",
    "caller_id_num",
    "caller_id_name",
    "dialed_num",
    "time",
    "start_unix",
    "answer_unix",
    "end_unix",
    "duration",
    "billsec",
    "disposition",
    "recording_key",
    "recording_bytes",
    "recording_seconds",
    "queue_id",
];

/// The calls the caller reaches, every column (shared with the reports).
pub(crate) fn select(scope: &Scope) -> SelectStatement {
    let mut select = Query::select();
    select.from_as("calls", "c");
    for column in COLUMNS {
        select.column(("c", *column));
    }
    select
        .cond_where(scope::tenants(scope, Expr::col(("c", "tenant_id"))))
        .cond_where(scope::own_calls(scope, Expr::col(("c", "id"))))
        .take()
}

fn recordings(scope: &Scope) -> SelectStatement {
    select(scope)
        .and_where(Expr::col(("c", "recording_key")).is_not_null())
        .take()
}

/// Applies the call list filter (shared by calls and recordings) to `select`.
fn filtered(mut select: SelectStatement, filter: &CallRecordingFilter) -> SelectStatement {
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("c", "tenant_id")).eq(tenant.get()));
    }
    if let Some(direction) = &filter.direction {
        select.and_where(Expr::col(("c", "direction")).eq(direction.as_str()));
    }
    select
}

/// The number of calls (only the recorded ones when `recorded`) matching `filter` that
/// `scope` reaches, from the counters the database keeps per tenant, direction and
/// recording (`call_counts`, kept by triggers in the writing transaction) — so a page of
/// ten million calls costs what a page of a thousand does. `None` when the counters
/// cannot answer exactly: a search, or a branch admin's or user's scope (their calls are
/// those their extensions took part in, which no counter follows).
async fn counted(
    db: &Db,
    scope: &Scope,
    filter: &CallRecordingFilter,
    query: &ListQuery,
    recorded: bool,
) -> Result<Option<i64>> {
    if !query.paginated
        || query.search.is_some()
        || matches!(scope, Scope::Branch(..) | Scope::User(..))
    {
        return Ok(None);
    }
    let mut total = Query::select();
    total
        .expr(Expr::cust("CAST(COALESCE(SUM(c.calls), 0) AS BIGINT)"))
        .from_as("call_counts", "c")
        .cond_where(scope::tenants(scope, Expr::col(("c", "tenant_id"))));
    if recorded {
        total.and_where(Expr::col(("c", "recorded")).eq(1));
    }
    let total = filtered(total, filter);
    db.conn().scalar(&total).await.map(Some)
}

/// Lists the recorded calls the caller reaches.
#[boxed]
pub async fn list_recordings(
    db: &Db,
    scope: &Scope,
    filter: &CallRecordingFilter,
    query: &ListQuery,
) -> Result<Listing<CallRow>> {
    let total = counted(db, scope, filter, query, true).await?;
    let select = filtered(recordings(scope), filter);
    list::run_counted(db, select, <CallRecording as Listed>::SPEC, query, total).await
}

/// Lists every call the caller reaches, recorded or not.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &CallRecordingFilter,
    query: &ListQuery,
) -> Result<Listing<CallRow>> {
    let total = counted(db, scope, filter, query, false).await?;
    let select = filtered(select(scope), filter);
    list::run_counted(db, select, <Call as Listed>::SPEC, query, total).await
}

/// The call `unique_id` in the caller's reach, recorded or not (the oldest, should two
/// tenants of a platform admin's reach share one).
#[boxed]
pub async fn get(db: &Db, scope: &Scope, unique_id: &str) -> Result<CallRow> {
    let select = select(scope)
        .and_where(Expr::col(("c", "unique_id")).eq(unique_id))
        .order_by(("c", "id"), sea_query::Order::Asc)
        .limit(1)
        .take();
    db.conn().fetch_one(&select).await
}

/// Call `id`'s recording as the API answers it, read in `tx` whatever its tenant (the
/// audit trail's snapshot of a call: the record it audits is the recording, so a call
/// without one has none, and deleting the recording is the recording's `delete`),
/// without the link to the audio (signed for one reader).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<CallRecording>> {
    let recorded = select(&Scope::Platform)
        .and_where(Expr::col(("c", "recording_key")).is_not_null())
        .take();
    let row: Option<CallRow> = crud::find_on(tx, recorded, "c.id", id).await?;
    Ok(row.map(|row| row.into_recording(String::new())))
}

/// The recorded call `unique_id` in the caller's reach (the oldest, should two tenants
/// of a platform admin's reach share one).
#[boxed]
pub async fn recording(db: &Db, scope: &Scope, unique_id: &str) -> Result<CallRow> {
    let select = recordings(scope)
        .and_where(Expr::col(("c", "unique_id")).eq(unique_id))
        .order_by(("c", "id"), sea_query::Order::Asc)
        .limit(1)
        .take();
    db.conn().fetch_one(&select).await
}

/// Detaches the recording of call `unique_id`, answering the call as it was (its object
/// is the caller's to remove).
#[boxed]
pub async fn delete_recording(db: &Db, scope: &Scope, unique_id: &str) -> Result<CallRow> {
    let mut tx = db.begin().await?;
    let select = recordings(scope)
        .and_where(Expr::col(("c", "unique_id")).eq(unique_id))
        .order_by(("c", "id"), sea_query::Order::Asc)
        .limit(1)
        .take();
    let row: CallRow = tx.fetch_one(&select).await?;
    // Only the recording read: of concurrent deletes one removes it, the others find none.
    let removed = crud::update_if(
        &mut tx,
        "calls",
        row.id.get(),
        Condition::all().add(Expr::col("recording_key").eq(row.recording_key.clone())),
        vec![
            ("recording_key", Option::<String>::None.into()),
            ("recording_bytes", Option::<i64>::None.into()),
            ("recording_seconds", Option::<i64>::None.into()),
        ],
    )
    .await?;
    if !removed {
        return Err(crate::Error::NotFound);
    }
    if let Some(key) = &row.recording_key {
        crate::jobs::delete_object(&mut tx, key).await?;
    }
    tx.commit().await?;
    Ok(row)
}

fn identity(tenant: TenantId, unique_id: &str) -> SelectStatement {
    let mut select = select(&Scope::Platform);
    select
        .and_where(Expr::col(("c", "tenant_id")).eq(tenant.get()))
        .and_where(Expr::col(("c", "unique_id")).eq(unique_id));
    select
}

/// The call `unique_id` of `tenant`, if recorded.
#[boxed]
pub async fn find(db: &Db, tenant: TenantId, unique_id: &str) -> Result<Option<CallRow>> {
    db.conn().fetch_optional(&identity(tenant, unique_id)).await
}

/// Every status a call can have.
const STATUSES: [&str; 4] = ["started", "answered", "ended", "missed"];

fn rank(status: &str) -> u8 {
    match status {
        "started" => 1,
        "answered" => 2,
        _ => 3,
    }
}

/// The status a report leaves the call in.
fn status_of(report: &CallReport) -> &'static str {
    match report.phase {
        CallPhase::Started => "started",
        CallPhase::Answered => "answered",
        CallPhase::Ended if report.answered() => "ended",
        CallPhase::Ended => "missed",
    }
}

/// The event a call's status is announced by.
fn event_of(status: &str) -> &'static str {
    match status {
        "started" => "CALL_STARTED",
        "answered" => "CALL_ANSWERED",
        "ended" => "CALL_ENDED",
        _ => "CALL_MISSED",
    }
}

fn report_changes(report: &CallReport, status: &str) -> Changes {
    // The engine's figures are facts of the call: each report that moves the call
    // records them as reported, recorded or not (a recording's length is its own field).
    let mut changes: Changes = vec![
        ("status", status.into()),
        ("direction", report.direction.clone().into()),
        ("time", report.time().into()),
        ("start_unix", report.start.timestamp().into()),
        ("duration", report.duration.into()),
        ("billsec", report.billsec.into()),
    ];
    if let Some(answer) = report.answer {
        changes.push(("answer_unix", answer.timestamp().into()));
    }
    if let Some(end) = report.end {
        changes.push(("end_unix", end.timestamp().into()));
    }
    // Later reports may know less (an "answered" push without the caller's name): a
    // value once known is not blanked.
    for (column, value) in [
        ("caller_id_num", &report.caller_id_num),
        ("caller_id_name", &report.caller_id_name),
        ("dialed_num", &report.dialed_num),
        ("disposition", &report.disposition),
        ("channel", &report.channel),
        ("dst_channel", &report.dst_channel),
        ("last_app", &report.last_app),
        ("account_code", &report.account_code),
        ("userfield", &report.userfield),
    ] {
        if !value.is_empty() {
            changes.push((column, value.clone().into()));
        }
    }
    changes
}

/// Records `report` in `tx` when it moves the call forward (a new call, or a later step
/// than recorded), emitting that step's event; answers the call as it now is, or `None`
/// when the report changed nothing (a repeat, or news older than what is known).
#[boxed]
pub async fn record(tx: &mut Tx, report: &CallReport, now: i64) -> Result<Option<CallRow>> {
    let identity = || identity(report.tenant, &report.unique_id);
    let status = status_of(report);
    let mut existing: Option<CallRow> = tx.fetch_optional(&identity()).await?;
    if existing.is_none() {
        let mut values = report_changes(report, status);
        values.push(("tenant_id", report.tenant.get().into()));
        values.push(("unique_id", report.unique_id.clone().into()));
        values.push(("created_at", now.into()));
        let recorded = crud::insert_once(tx, "calls", &["tenant_id", "unique_id"], values).await?;
        if !recorded.new {
            // A concurrent report created the call first: this one is news only if it
            // moves that call forward.
            existing = tx.fetch_optional(&identity()).await?;
        }
    }
    let call_id = match &existing {
        Some(call) => call.id,
        None => tx.fetch_one::<CallRow>(&identity()).await?.id,
    };
    crate::identity::note_call_parties(tx, call_id, report).await?;
    // The queue and the transfers are facts of the call whatever step the report is of:
    // noted even when the report does not move the call (a repeat may carry them).
    if let Some(queue) = report.queue {
        // The first queue reported stays: a retry cannot move the call to another.
        let update = Query::update()
            .table("calls")
            .value("queue_id", queue.get())
            .and_where(Expr::col("id").eq(call_id.get()))
            .and_where(Expr::col("queue_id").is_null())
            .take();
        tx.execute(&update).await?;
    }
    note_transfers(tx, report.tenant, call_id, &report.transfers, now).await?;
    if let Some(call) = &existing {
        // Only forward, and only once: the condition is checked on the row as written, so
        // of concurrent reports exactly those that really move the call emit.
        let behind: Vec<&str> = STATUSES
            .into_iter()
            .filter(|s| rank(s) < rank(status))
            .collect();
        let moved = crud::update_if(
            tx,
            "calls",
            call.id.get(),
            Condition::all().add(Expr::col("status").is_in(behind)),
            report_changes(report, status),
        )
        .await?;
        if !moved {
            return Ok(None);
        }
    }
    let call: CallRow = tx.fetch_one(&identity()).await?;
    events::emit(tx, report.tenant, event_of(status), event_data(&call), now).await?;
    Ok(Some(call))
}

/// Records the `transfers` of call `call_id`, each once: the same instant, kind and
/// parties already recorded (a retried report) is skipped by the unique constraint.
async fn note_transfers(
    tx: &mut Tx,
    tenant: TenantId,
    call_id: CallId,
    transfers: &[IngestTransfer],
    now: i64,
) -> Result<()> {
    for transfer in transfers {
        crud::insert_once(
            tx,
            "call_transfers",
            &["call_id", "at_unix", "kind", "from_number", "to_number"],
            vec![
                ("call_id", call_id.get().into()),
                ("tenant_id", tenant.get().into()),
                ("at_unix", transfer.at.timestamp().into()),
                ("kind", transfer.kind.as_str().into()),
                ("from_number", transfer.from.clone().into()),
                ("to_number", transfer.to.clone().into()),
                (
                    "from_extension_id",
                    transfer.from_extension_id.map(|e| e.get()).into(),
                ),
                (
                    "to_extension_id",
                    transfer.to_extension_id.map(|e| e.get()).into(),
                ),
                ("created_at", now.into()),
            ],
        )
        .await?;
    }
    Ok(())
}

/// Attaches the recording stored under `key` to call `unique_id` of `tenant` in `tx`,
/// emitting RECORDING_READY; answers `false` (and changes nothing) when the call already
/// has one. The call must exist.
#[boxed]
pub async fn attach_recording(
    tx: &mut Tx,
    tenant: TenantId,
    unique_id: &str,
    (key, bytes, seconds): (&str, i64, i64),
    now: i64,
) -> Result<bool> {
    let call: CallRow = tx.fetch_one(&identity(tenant, unique_id)).await?;
    // The first recording stays: of concurrent pushes exactly one attaches (and emits).
    let attached = crud::update_if(
        tx,
        "calls",
        call.id.get(),
        Condition::all().add(Expr::col("recording_key").is_null()),
        vec![
            ("recording_key", key.into()),
            ("recording_bytes", bytes.into()),
            // Its own length, beside the engine's figures: a recording shorter or longer
            // than the talk it should cover shows as such, and neither is rewritten.
            ("recording_seconds", seconds.into()),
        ],
    )
    .await?;
    if !attached {
        // The call has its recording already: this upload goes, with this transaction.
        crate::jobs::delete_object(tx, key).await?;
        return Ok(false);
    }
    let call: CallRow = tx.fetch_one(&identity(tenant, unique_id)).await?;
    let mut data = event_data(&call);
    data["recording"] = json!({
        "bytes": bytes,
        "duration": seconds,
        "path": format!("/v2/admin/call-recordings/{}", call.unique_id),
    });
    events::emit(tx, tenant, "RECORDING_READY", data, now).await?;
    Ok(true)
}

/// The ISO 8601 form of an instant, as calls store their start.
pub fn iso_of_instant(instant: DateTime<chrono::Utc>) -> String {
    iso(instant)
}

/// The ISO 8601 form of a Unix time, if any.
pub fn iso_at(unix: Option<i64>) -> Option<String> {
    unix.and_then(|u| DateTime::from_timestamp(u, 0)).map(iso)
}

fn iso_of(unix: Option<i64>) -> Value {
    unix.and_then(|u| DateTime::from_timestamp(u, 0))
        .map(|t| Value::String(iso(t)))
        .unwrap_or(Value::Null)
}

/// What call events carry: the call record.
pub fn event_data(call: &CallRow) -> Value {
    json!({
        "uniqueId": call.unique_id,
        "tenantId": call.tenant_id,
        "direction": call.direction,
        "status": call.status,
        "callerIdNum": call.caller_id_num,
        "callerIdName": call.caller_id_name,
        "dialedNum": call.dialed_num,
        "time": call.time,
        "answerTime": iso_of(call.answer_unix),
        "endTime": iso_of(call.end_unix),
        "duration": call.duration,
        "billsec": call.billsec,
        "disposition": call.disposition,
    })
}
