//! Call reports: transcripts (recorded once per call, their text copied onto the call
//! for the lists' search), a call's parties, and the reporting list with its aggregates
//! computed in the database.
//!
//! The aggregates' p90 is the nearest-rank percentile — the value at rank ⌈0.9·n⌉ of the
//! n values in ascending order — computed with the same window functions on both
//! backends (SQLite has no percentile function; PostgreSQL's `percentile_disc(0.9)`
//! would answer the same value), so both answer exactly the same figures. Local days and
//! hours are cut with integer arithmetic on the Unix start time plus the zone's offset in
//! force then, the offsets and the exact seconds they change given by the caller.

use sea_query::{Condition, Expr, ExprTrait, Query};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{CallId, ExtensionId, QueueId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::call::Call;
use switchboard_domain::records::report::{
    CallFigures, CallReportFilter, OffsetSpan, TranscriptChannel, TranscriptSegment,
};

use crate::backend::{Db, Tx};
use crate::calls::{self, CallRow};
use crate::crud::{self, Recorded};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

/// A transcript as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct TranscriptRow {
    /// The legend, JSON.
    pub channels: String,
    /// The segments, JSON.
    pub segments: String,
    /// When it was recorded, Unix seconds.
    pub created_at: i64,
}

/// Records the transcript of call `call` of `tenant` in `tx` unless it has one (the
/// first transcript stays: its legend is fixed), and copies its text onto the call.
#[boxed]
pub async fn record_transcript(
    tx: &mut Tx,
    tenant: TenantId,
    call: CallId,
    channels: &[TranscriptChannel],
    segments: &[TranscriptSegment],
    now: i64,
) -> Result<Recorded> {
    let mut ordered_channels = channels.to_vec();
    ordered_channels.sort_by_key(|c| c.channel);
    let mut ordered_segments = segments.to_vec();
    ordered_segments.sort_by_key(|s| (s.start_ms, s.channel));
    let recorded = crud::insert_once(
        tx,
        "call_transcripts",
        &["call_id"],
        vec![
            ("call_id", call.get().into()),
            ("tenant_id", tenant.get().into()),
            (
                "channels",
                serde_json::to_string(&ordered_channels)
                    .unwrap_or_default()
                    .into(),
            ),
            (
                "segments",
                serde_json::to_string(&ordered_segments)
                    .unwrap_or_default()
                    .into(),
            ),
            ("created_at", now.into()),
        ],
    )
    .await?;
    if recorded.new {
        let text = ordered_segments
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let update = Query::update()
            .table("calls")
            .value("transcript_text", text)
            .and_where(Expr::col("id").eq(call.get()))
            .take();
        tx.execute(&update).await?;
    }
    Ok(recorded)
}

/// The transcript of call `call`, if one was recorded.
#[boxed]
pub async fn transcript(db: &Db, call: CallId) -> Result<Option<TranscriptRow>> {
    let select = Query::select()
        .columns(["channels", "segments", "created_at"])
        .from("call_transcripts")
        .and_where(Expr::col("call_id").eq(call.get()))
        .take();
    db.conn().fetch_optional(&select).await
}

/// A party of a call the engine identified, with its extension as it is now.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct PartyRow {
    /// `caller` or `callee`.
    pub role: String,
    /// The extension.
    pub extension_id: ExtensionId,
    /// Its number, empty when the extension is gone.
    pub number: Option<String>,
    /// Its name.
    pub name: Option<String>,
}

/// The parties noted on call `call`, the caller first.
#[boxed]
pub async fn parties(db: &Db, call: CallId) -> Result<Vec<PartyRow>> {
    let select = Query::select()
        .column(("p", "role"))
        .column(("p", "extension_id"))
        .column(("e", "number"))
        .column(("e", "name"))
        .from_as("call_parties", "p")
        .join_as(
            sea_query::JoinType::LeftJoin,
            "extensions",
            "e",
            Expr::col(("e", "id")).equals(("p", "extension_id")),
        )
        .and_where(Expr::col(("p", "call_id")).eq(call.get()))
        .order_by(("p", "role"), sea_query::Order::Asc)
        .order_by(("p", "id"), sea_query::Order::Asc)
        .take();
    db.conn().fetch_all(&select).await
}

/// A transfer of a call, its parties' extensions as they are now.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct TransferRow {
    /// When, Unix seconds.
    pub at_unix: i64,
    /// `blind` or `attended`.
    pub kind: String,
    /// The transferring party's number, as reported.
    pub from_number: String,
    /// The number transferred to, as reported.
    pub to_number: String,
    /// The transferring extension, when the engine named one.
    pub from_extension_id: Option<i64>,
    /// Its name now (none when it is gone).
    pub from_name: Option<String>,
    /// The extension transferred to, when the engine named one.
    pub to_extension_id: Option<i64>,
    /// Its name now.
    pub to_name: Option<String>,
}

/// The transfers of call `call`, in order of time (then as recorded).
#[boxed]
pub async fn transfers(db: &Db, call: CallId) -> Result<Vec<TransferRow>> {
    let select = Query::select()
        .columns([
            ("t", "at_unix"),
            ("t", "kind"),
            ("t", "from_number"),
            ("t", "to_number"),
            ("t", "from_extension_id"),
            ("t", "to_extension_id"),
        ])
        .expr_as(Expr::col(("f", "name")), "from_name")
        .expr_as(Expr::col(("g", "name")), "to_name")
        .from_as("call_transfers", "t")
        .join_as(
            sea_query::JoinType::LeftJoin,
            "extensions",
            "f",
            // The tenant too: an id handed out again (after a delete, or a data move that
            // reset sequences) to another tenant's extension must not lend its name.
            Expr::col(("f", "id"))
                .equals(("t", "from_extension_id"))
                .and(Expr::col(("f", "tenant_id")).equals(("t", "tenant_id"))),
        )
        .join_as(
            sea_query::JoinType::LeftJoin,
            "extensions",
            "g",
            Expr::col(("g", "id"))
                .equals(("t", "to_extension_id"))
                .and(Expr::col(("g", "tenant_id")).equals(("t", "tenant_id"))),
        )
        .and_where(Expr::col(("t", "call_id")).eq(call.get()))
        .order_by(("t", "at_unix"), sea_query::Order::Asc)
        .order_by(("t", "id"), sea_query::Order::Asc)
        .take();
    db.conn().fetch_all(&select).await
}

/// The name and number of queue `queue` of `tenant`, if it still exists.
#[boxed]
pub async fn queue(db: &Db, tenant: TenantId, queue: QueueId) -> Result<Option<(String, String)>> {
    let select = Query::select()
        .columns(["name", "number"])
        .from("queues")
        .and_where(Expr::col("id").eq(queue.get()))
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .take();
    db.conn().fetch_optional(&select).await
}

/// The conditions of the report's filter (range and the rest) on calls `c`.
fn conditions(filter: &CallReportFilter, from: i64, to: i64) -> Condition {
    let mut all = Condition::all()
        .add(Expr::col(("c", "start_unix")).gte(from))
        .add(Expr::col(("c", "start_unix")).lt(to));
    if let Some(tenant) = filter.tenant_id {
        all = all.add(Expr::col(("c", "tenant_id")).eq(tenant.get()));
    }
    if let Some(direction) = &filter.direction {
        all = all.add(Expr::col(("c", "direction")).eq(direction.as_str()));
    }
    if let Some(disposition) = &filter.disposition {
        all = all.add(Expr::col(("c", "disposition")).eq(disposition.as_str()));
    }
    if let Some(number) = &filter.number {
        all = all.add(
            Condition::any()
                .add(Expr::col(("c", "caller_id_num")).eq(number.as_str()))
                .add(Expr::col(("c", "dialed_num")).eq(number.as_str())),
        );
    }
    if let Some(extension) = filter.extension_id {
        let on_it = Query::select()
            .column("call_id")
            .from("call_parties")
            .and_where(Expr::col("extension_id").eq(extension.get()))
            .take();
        all = all.add(Expr::col(("c", "id")).in_subquery(on_it));
    }
    if let Some(queue) = filter.queue_id {
        all = all.add(Expr::col(("c", "queue_id")).eq(queue.get()));
    }
    all
}

/// Lists the calls of the report (the page; the aggregates come from [`aggregates`]).
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &CallReportFilter,
    (from, to): (i64, i64),
    query: &ListQuery,
) -> Result<Listing<CallRow>> {
    let select = calls::select(scope)
        .cond_where(conditions(filter, from, to))
        .take();
    list::run(db, select, <Call as Listed>::SPEC, query).await
}

/// The time zone of `tenant` (`UTC` when it has none).
#[boxed]
pub async fn time_zone(db: &Db, tenant: TenantId) -> Result<String> {
    let select = Query::select()
        .column("timezone")
        .from("tenants")
        .and_where(Expr::col("id").eq(tenant.get()))
        .take();
    Ok(db
        .conn()
        .fetch_optional::<(String,)>(&select)
        .await?
        .map_or_else(|| "UTC".to_owned(), |(zone,)| zone))
}

/// A bucket's figures as the database sums them.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
struct BucketRow {
    k: i64,
    total: i64,
    answered: i64,
    missed: i64,
    ended: i64,
    wait_sum: i64,
    talk_sum: i64,
    wait_p90: Option<i64>,
    talk_p90: Option<i64>,
}

impl BucketRow {
    fn figures(&self) -> CallFigures {
        let mean =
            |sum: i64, n: i64| (n > 0).then(|| (sum as f64 / n as f64 * 100.0).round() / 100.0);
        CallFigures {
            total: self.total,
            answered: self.answered,
            missed: self.missed,
            average_wait_seconds: mean(self.wait_sum, self.answered),
            p90_wait_seconds: self.wait_p90,
            average_talk_seconds: mean(self.talk_sum, self.ended),
            p90_talk_seconds: self.talk_p90,
        }
    }
}

/// The local bucket of `c.start_unix`: local seconds (start plus the offset in force)
/// divided by `width`; `None` puts every call in bucket 0.
fn bucket_expr(spans: &[OffsetSpan], width: Option<i64>) -> String {
    let Some(width) = width else {
        return "CAST(0 AS BIGINT)".to_owned();
    };
    let offset = match spans {
        [] => "0".to_owned(),
        [only] => format!("({})", only.offset),
        [first, rest @ ..] => {
            // Each span holds from its `since` to the next one's.
            let mut case = String::from("CASE");
            let mut current = first.offset;
            for span in rest {
                case.push_str(&format!(
                    " WHEN c.start_unix < {} THEN ({current})",
                    span.since
                ));
                current = span.offset;
            }
            case.push_str(&format!(" ELSE ({current}) END"));
            case
        }
    };
    format!("(c.start_unix + {offset}) / {width}")
}

/// The figures of the report's calls in `[from, to)`, per local bucket of `width`
/// seconds (3600 or 86400) under the zone's `spans`, or over the whole range (`None`,
/// answered as bucket 0): every figure summed and ranked in the database.
#[boxed]
pub async fn aggregates(
    db: &Db,
    scope: &Scope,
    filter: &CallReportFilter,
    (from, to): (i64, i64),
    spans: &[OffsetSpan],
    width: Option<i64>,
) -> Result<Vec<(i64, CallFigures)>> {
    // Answered: talking or ended after an answer; its wait is from start to answer. Talk
    // counts only calls that ended after an answer (a call still going has no length yet).
    let calls = Query::select()
        .expr_as(Expr::cust(bucket_expr(spans, width)), "k")
        .expr_as(
            Expr::cust("CASE WHEN c.status IN ('answered', 'ended') THEN 1 ELSE 0 END"),
            "a",
        )
        .expr_as(
            Expr::cust("CASE WHEN c.status = 'ended' THEN 1 ELSE 0 END"),
            "e",
        )
        .expr_as(
            Expr::cust("CASE WHEN c.status = 'missed' THEN 1 ELSE 0 END"),
            "m",
        )
        .expr_as(
            Expr::cust(
                "CASE WHEN c.answer_unix IS NOT NULL THEN c.answer_unix - c.start_unix \
                 ELSE c.duration - c.billsec END",
            ),
            "w",
        )
        .expr_as(Expr::cust("c.billsec"), "t")
        .from_as("calls", "c")
        .cond_where(scope::tenants(scope, Expr::col(("c", "tenant_id"))))
        .cond_where(scope::own_calls(scope, Expr::col(("c", "id"))))
        .cond_where(conditions(filter, from, to))
        .take();
    let ranked = Query::select()
        .columns(["k", "a", "e", "m", "w", "t"])
        .expr_as(
            Expr::cust("ROW_NUMBER() OVER (PARTITION BY k, a ORDER BY w)"),
            "wr",
        )
        .expr_as(Expr::cust("COUNT(*) OVER (PARTITION BY k, a)"), "wn")
        .expr_as(
            Expr::cust("ROW_NUMBER() OVER (PARTITION BY k, e ORDER BY t)"),
            "tr",
        )
        .expr_as(Expr::cust("COUNT(*) OVER (PARTITION BY k, e)"), "tn")
        .from_subquery(calls, "x")
        .take();
    let summed = Query::select()
        .column("k")
        .expr_as(Expr::cust("COUNT(*)"), "total")
        .expr_as(Expr::cust("CAST(SUM(a) AS BIGINT)"), "answered")
        .expr_as(Expr::cust("CAST(SUM(m) AS BIGINT)"), "missed")
        .expr_as(Expr::cust("CAST(SUM(e) AS BIGINT)"), "ended")
        .expr_as(Expr::cust("CAST(SUM(a * w) AS BIGINT)"), "wait_sum")
        .expr_as(Expr::cust("CAST(SUM(e * t) AS BIGINT)"), "talk_sum")
        // Nearest rank: the value at rank ceil(0.9 n) = floor((9 n + 9) / 10).
        .expr_as(
            Expr::cust("MAX(CASE WHEN a = 1 AND wr = (9 * wn + 9) / 10 THEN w END)"),
            "wait_p90",
        )
        .expr_as(
            Expr::cust("MAX(CASE WHEN e = 1 AND tr = (9 * tn + 9) / 10 THEN t END)"),
            "talk_p90",
        )
        .from_subquery(ranked, "y")
        .group_by_col("k")
        .order_by("k", sea_query::Order::Asc)
        .take();
    let rows: Vec<BucketRow> = db.conn().fetch_all(&summed).await?;
    Ok(rows.into_iter().map(|r| (r.k, r.figures())).collect())
}
