//! Text messages and faxes the engine reports: each recorded once, with its SMS_* or
//! FAX_* event in the same transaction.

use futures::future::BoxFuture;
use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use serde_json::json;
use switchboard_domain::Scope;
use switchboard_domain::ids::TenantId;
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::engine_job::{self, JobResult};
use switchboard_domain::records::traffic::{
    IngestFax, IngestSms, TextFilter, TextMessage, time_or_now,
};
use switchboard_domain::validation::iso;

use crate::backend::{Db, Tx};
use crate::crud::{self, Recorded};
use crate::engine_jobs::{Job, Kind, Next, Outcomes};
use crate::error::Result;
use crate::events;
use crate::list::{self, Listing};
use crate::scope;

/// Records a text message unless its id was recorded before, emitting SMS_RECEIVED
/// (inbound) or SMS_SENT (outbound) for a new one.
pub async fn record_sms(tx: &mut Tx, sms: IngestSms, now: i64) -> Result<Recorded> {
    let media = serde_json::Value::from(sms.media_urls.clone()).to_string();
    let time = time_or_now(sms.time);
    let recorded = crud::insert_once(
        tx,
        "sms_messages",
        &["tenant_id", "message_id"],
        vec![
            ("tenant_id", sms.tenant.get().into()),
            ("message_id", sms.message_id.clone().into()),
            ("direction", sms.direction.clone().into()),
            ("from_number", sms.from.clone().into()),
            ("to_number", sms.to.clone().into()),
            ("body", sms.body.clone().into()),
            ("media_urls", media.into()),
            ("time", time.clone().into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    if recorded.new {
        let kind = if sms.direction == "inbound" {
            "SMS_RECEIVED"
        } else {
            "SMS_SENT"
        };
        let data = json!({
            "id": recorded.id,
            "messageId": sms.message_id,
            "direction": sms.direction,
            "from": sms.from,
            "to": sms.to,
            "body": sms.body,
            "mediaUrls": sms.media_urls,
            "time": time,
        });
        events::emit(tx, sms.tenant, kind, data, now).await?;
    }
    Ok(recorded)
}

/// A reported fax's document, stored before the fax is recorded.
#[derive(Clone, Debug)]
pub struct FaxDocument {
    /// Where it is stored.
    pub key: String,
    /// Its content type (`application/pdf`, `image/tiff`).
    pub content_type: &'static str,
    /// Its size in bytes.
    pub bytes: i64,
    /// The pledged deletion of the object: cancelled when the fax is recorded with it.
    pub pledge: i64,
}

/// Whether `tenant` has a fax the engine reported as `fax_id`.
pub async fn fax_exists(db: &Db, tenant: TenantId, fax_id: &str) -> Result<bool> {
    let select = Query::select()
        .column("id")
        .from("faxes")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("fax_id").eq(fax_id))
        .take();
    Ok(db.conn().fetch_optional::<(i64,)>(&select).await?.is_some())
}

/// Records a fax unless its id was recorded before, emitting FAX_RECEIVED (inbound) or
/// FAX_SENT (outbound) for a new one. A new fax keeps `document` (its pledged deletion
/// cancelled in `tx`); a repeat leaves it to its pledge, which the caller hastens.
pub async fn record_fax(
    tx: &mut Tx,
    fax: IngestFax,
    document: Option<&FaxDocument>,
    now: i64,
) -> Result<Recorded> {
    let time = time_or_now(fax.time);
    let mut columns: crud::Changes = vec![
        ("tenant_id", fax.tenant.get().into()),
        ("fax_id", fax.fax_id.clone().into()),
        ("direction", fax.direction.clone().into()),
        ("from_number", fax.from.clone().into()),
        ("to_number", fax.to.clone().into()),
        ("pages", fax.pages.into()),
        ("status", fax.status.clone().into()),
        ("time", time.clone().into()),
        ("created_at", now.into()),
    ];
    if let Some(document) = document {
        columns.extend([
            ("document_key", document.key.clone().into()),
            ("document_type", document.content_type.into()),
            ("document_bytes", document.bytes.into()),
        ]);
    }
    let recorded = crud::insert_once(tx, "faxes", &["tenant_id", "fax_id"], columns).await?;
    if recorded.new
        && let Some(document) = document
    {
        crate::jobs::keep_object(tx, document.pledge).await?;
    }
    if recorded.new {
        let kind = if fax.direction == "inbound" {
            "FAX_RECEIVED"
        } else {
            "FAX_SENT"
        };
        let data = json!({
            "id": recorded.id,
            "faxId": fax.fax_id,
            "direction": fax.direction,
            "from": fax.from,
            "to": fax.to,
            "pages": fax.pages,
            "status": fax.status,
            "time": time,
        });
        events::emit(tx, fax.tenant, kind, data, now).await?;
    }
    Ok(recorded)
}

/// Texts sent through the engine queue (`POST /v2/messaging/messages`): claimed, the
/// text is `sending`; `sent` records it so and emits SMS_SENT, `failed` ends it `failed`.
pub const SMS_JOBS: Kind = Kind {
    name: engine_job::SMS,
    outcomes: Outcomes::Listed(&["sent", "failed"]),
    on_claim: sms_claimed,
    on_result: sms_reported,
    on_abandon: sms_abandoned,
};

/// A text whose sending was given up (its engine kept dying) is `failed`, as a
/// reported failure leaves it (no event: SMS_SENT is for texts that went out).
fn sms_abandoned<'a>(
    tx: &'a mut Tx,
    job: &'a Job,
    _reason: &'a str,
    _now: i64,
) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(());
        };
        let update = Query::update()
            .table("sms_messages")
            .value("status", "failed")
            .and_where(Expr::col("id").eq(id))
            .and_where(Expr::col("status").is_in(["queued", "sending"]))
            .take();
        tx.execute(&update).await?;
        Ok(())
    })
}

fn sms_claimed<'a>(tx: &'a mut Tx, job: &'a Job, _now: i64) -> BoxFuture<'a, Result<bool>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(false);
        };
        let update = Query::update()
            .table("sms_messages")
            .value("status", "sending")
            .and_where(Expr::col("id").eq(id))
            .and_where(Expr::col("status").is_in(["queued", "sending"]))
            .take();
        Ok(tx.execute(&update).await? > 0)
    })
}

#[derive(sqlx::FromRow)]
struct SentText {
    message_id: String,
    direction: String,
    from_number: String,
    to_number: String,
    body: String,
    media_urls: String,
}

fn sms_reported<'a>(
    tx: &'a mut Tx,
    job: &'a Job,
    result: &'a JobResult,
    now: i64,
) -> BoxFuture<'a, Result<Next>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(Next::Done);
        };
        let sent = result.outcome == "sent";
        let time = time_or_now(result.ended_at);
        let update = Query::update()
            .table("sms_messages")
            .value("status", if sent { "sent" } else { "failed" })
            .value("time", time.clone())
            .and_where(Expr::col("id").eq(id))
            .returning(Query::returning().columns([
                "message_id",
                "direction",
                "from_number",
                "to_number",
                "body",
                "media_urls",
            ]))
            .take();
        let Some(text) = tx.fetch_optional::<SentText>(&update).await? else {
            return Ok(Next::Done);
        };
        if !sent {
            return Ok(Next::Failed);
        }
        let media: serde_json::Value =
            serde_json::from_str(&text.media_urls).unwrap_or_else(|_| json!([]));
        let data = json!({
            "id": id,
            "messageId": text.message_id,
            "direction": text.direction,
            "from": text.from_number,
            "to": text.to_number,
            "body": text.body,
            "mediaUrls": media,
            "time": time,
            "reference": result.reference,
        });
        events::emit(tx, job.tenant(), "SMS_SENT", data, now).await?;
        Ok(Next::Done)
    })
}

/// A text to send through the engine.
#[derive(Clone, Debug)]
pub struct OutgoingSms {
    /// The tenant sending it.
    pub tenant: TenantId,
    /// One of the tenant's numbers.
    pub from: String,
    /// The recipient.
    pub to: String,
    /// The text.
    pub body: String,
    /// The object keys of its media: the engine's claim and the text's answers sign
    /// them afresh.
    pub media_keys: Vec<String>,
    /// Links to its media signed now, for its SMS_SENT event.
    pub media_urls: Vec<String>,
}

/// Records an outbound text as `queued` and queues its engine job in `tx`, due now;
/// answers the text's id. The job's payload names the media by key (`mediaKeys`), so
/// the claim hands the engine links signed then, however long the text waited.
pub async fn queue_sms(tx: &mut Tx, sms: &OutgoingSms, now: i64) -> Result<i64> {
    let message_id = format!("sb-{}", uuid::Uuid::now_v7().simple());
    let media = serde_json::Value::from(sms.media_urls.clone());
    let keys = serde_json::Value::from(sms.media_keys.clone());
    let time = time_or_now(chrono::DateTime::from_timestamp(now, 0));
    let insert = Query::insert()
        .into_table("sms_messages")
        .columns([
            "tenant_id",
            "message_id",
            "direction",
            "from_number",
            "to_number",
            "body",
            "media_urls",
            "media_keys",
            "time",
            "status",
            "created_at",
        ])
        .values_panic([
            sms.tenant.get().into(),
            message_id.clone().into(),
            "outbound".into(),
            sms.from.clone().into(),
            sms.to.clone().into(),
            sms.body.clone().into(),
            media.to_string().into(),
            keys.to_string().into(),
            time.into(),
            "queued".into(),
            now.into(),
        ])
        .returning_col("id")
        .take();
    let id: i64 = tx.scalar(&insert).await?;
    let payload = json!({
        "messageId": message_id,
        "from": sms.from,
        "to": sms.to,
        "body": sms.body,
        "mediaKeys": keys,
    });
    crate::engine_jobs::enqueue(tx, sms.tenant, &SMS_JOBS, Some(id), &payload, now).await?;
    Ok(id)
}

/// A text message as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TextRow {
    /// Id.
    pub id: i64,
    /// Tenant.
    pub tenant_id: i64,
    /// The carrier's, engine's or our own id.
    pub message_id: String,
    /// inbound or outbound.
    pub direction: String,
    /// Sender.
    pub from_number: String,
    /// Recipient.
    pub to_number: String,
    /// The text.
    pub body: String,
    /// Media URLs as reported or signed when it was queued, a JSON array.
    pub media_urls: String,
    /// Object keys of the media of a text sent here, a JSON array.
    pub media_keys: String,
    /// queued, sending, sent, failed, or '' when the engine reported it.
    pub status: String,
    /// ISO 8601.
    pub time: String,
}

const TEXT_COLUMNS: [&str; 11] = [
    "id",
    "tenant_id",
    "message_id",
    "direction",
    "from_number",
    "to_number",
    "body",
    "media_urls",
    "media_keys",
    "status",
    "time",
];

fn texts(scope: &Scope) -> SelectStatement {
    let mut select = Query::select();
    select.from_as("sms_messages", "s");
    for column in TEXT_COLUMNS {
        select.column(("s", column));
    }
    select
        .cond_where(scope::tenants(scope, Expr::col(("s", "tenant_id"))))
        .take()
}

/// Lists the texts the caller reaches.
pub async fn list_texts(
    db: &Db,
    scope: &Scope,
    filter: &TextFilter,
    query: &ListQuery,
) -> Result<Listing<TextRow>> {
    let mut select = texts(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("s", "tenant_id")).eq(tenant.get()));
    }
    if let Some(direction) = &filter.direction {
        select.and_where(Expr::col(("s", "direction")).eq(direction.as_str()));
    }
    // A number matches however either side wrote it.
    for (column, value) in [("from_number", &filter.from), ("to_number", &filter.to)] {
        if let Some(value) = value {
            let spellings = switchboard_domain::phone::spellings(value, None);
            select.and_where(Expr::col(("s", column)).is_in(spellings));
        }
    }
    // Times are stored as ISO 8601 UTC with seconds, so they compare as text.
    if let Some(since) = filter.date_from {
        select.and_where(Expr::col(("s", "time")).gte(iso(since)));
    }
    if let Some(until) = filter.date_to {
        select.and_where(Expr::col(("s", "time")).lt(iso(until)));
    }
    list::run(db, select, <TextMessage as Listed>::SPEC, query).await
}

/// The text `id` in the caller's reach.
pub async fn get_text(db: &Db, scope: &Scope, id: i64) -> Result<TextRow> {
    let select = texts(scope).and_where(Expr::col(("s", "id")).eq(id)).take();
    db.conn().fetch_one(&select).await
}

/// The number of `tenant` stored under one of `spellings` (`phone::spellings`: the same
/// number however it was written) that takes texts (its texts reach an extension) and
/// that the caller may send from — one whose texts reach an extension in the caller's
/// reach (a branch admin's branch, a user's own; any, tenant-wide) — as stored.
pub async fn sms_line(
    db: &Db,
    scope: &Scope,
    tenant: TenantId,
    spellings: &[String],
) -> Result<Option<String>> {
    let select = Query::select()
        .column("number")
        .from("phone_numbers")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("number").is_in(spellings.iter().cloned()))
        .and_where(Expr::col("sms_ext_id").is_not_null())
        .cond_where(scope::own_extension(scope, Expr::col("sms_ext_id")))
        .order_by("id", sea_query::Order::Asc)
        .limit(1)
        .take();
    Ok(db
        .conn()
        .fetch_optional::<(String,)>(&select)
        .await?
        .map(|(number,)| number))
}
