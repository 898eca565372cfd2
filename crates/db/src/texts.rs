//! Text messages: those the engine reports ([`record_sms`]: each recorded once, with its
//! SMS_RECEIVED or SMS_SENT event in the same transaction) and those sent here, whose
//! sending is an outbound message of the engine queue ([`TextSending`], [`SMS_JOBS`]).

use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use serde_json::{Value, json};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{TenantId, TextMessageId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::engine_job::{self, JobResult};
use switchboard_domain::records::traffic::{
    IngestSms, TextFilter, TextMessage, TrafficDirection, time_or_now,
};
use switchboard_domain::serde::{Deserialize, Serialize};

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes, Recorded};
use crate::engine_jobs::{Job, Kind, Objects};
use crate::error::Result;
use crate::events;
use crate::list::{self, Listing};
use crate::outbound::{self, OutboundMessage};
use crate::scope;

/// Records a text message unless its id was recorded before, emitting SMS_RECEIVED
/// (inbound) or SMS_SENT (outbound) for a new one.
#[boxed]
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
            ("direction", sms.direction.as_str().into()),
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
        let kind = if sms.direction == TrafficDirection::Inbound {
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

/// Texts sent through the engine queue (`POST /v2/messaging/messages`): a text sent
/// emits SMS_SENT; a failed one is not retried.
pub const SMS_JOBS: Kind = outbound::kind::<TextSending>();

/// The payload of a text's sending job: what the engine is handed, with links to its
/// media signed when it claims the job (`mediaUrls`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct TextSending {
    /// Our id of the text.
    pub message_id: String,
    /// The sending number.
    pub from: String,
    /// The recipient.
    pub to: String,
    /// The text.
    pub body: String,
    /// The object keys of its media.
    pub media_keys: Vec<String>,
}

#[derive(switchboard_domain::declare::FromRow)]
struct SentText {
    message_id: String,
    direction: String,
    from_number: String,
    to_number: String,
    body: String,
    media_urls: String,
}

impl OutboundMessage for TextSending {
    const KIND: &'static str = engine_job::SMS;
    const TABLE: &'static str = "sms_messages";
    const SENT_EVENT: &'static str = "SMS_SENT";

    fn objects(&self) -> Objects {
        Objects {
            document: None,
            media: Some(self.media_keys.clone()),
        }
    }

    async fn record_sent(
        tx: &mut Tx,
        id: i64,
        result: &JobResult,
        _now: i64,
    ) -> Result<Option<Value>> {
        let time = time_or_now(result.ended_at);
        let update = Query::update()
            .table("sms_messages")
            .value("status", "sent")
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
            return Ok(None);
        };
        let media: Value = serde_json::from_str(&text.media_urls).unwrap_or_else(|_| json!([]));
        Ok(Some(json!({
            "id": id,
            "messageId": text.message_id,
            "direction": text.direction,
            "from": text.from_number,
            "to": text.to_number,
            "body": text.body,
            "mediaUrls": media,
            "time": time,
            "reference": result.reference,
        })))
    }

    async fn retry_at(
        _tx: &mut Tx,
        _job: &Job,
        _result: &JobResult,
        _now: i64,
    ) -> Result<Option<i64>> {
        Ok(None)
    }

    fn failure_changes(result: &JobResult) -> Changes {
        vec![("time", time_or_now(result.ended_at).into())]
    }
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
#[boxed]
pub async fn queue_sms(tx: &mut Tx, sms: &OutgoingSms, now: i64) -> Result<TextMessageId> {
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
    let sending = TextSending {
        message_id,
        from: sms.from.clone(),
        to: sms.to.clone(),
        body: sms.body.clone(),
        media_keys: sms.media_keys.clone(),
    };
    outbound::enqueue(tx, sms.tenant, id, &sending, now).await?;
    Ok(TextMessageId(id))
}

/// A text message as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct TextRow {
    /// Id.
    pub id: TextMessageId,
    /// Tenant.
    pub tenant_id: TenantId,
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
#[boxed]
pub async fn list_texts(
    db: &Db,
    scope: &Scope,
    filter: &TextFilter,
    query: &ListQuery,
) -> Result<Listing<TextRow>> {
    let mut select = texts(scope);
    let traffic = outbound::Filter {
        tenant: filter.tenant_id,
        direction: filter.direction,
        from: filter.from.as_deref(),
        to: filter.to.as_deref(),
        since: filter.date_from,
        until: filter.date_to,
    };
    traffic.narrow(&mut select, "s");
    list::run(db, select, <TextMessage as Listed>::SPEC, query).await
}

/// The text `id` in the caller's reach.
#[boxed]
pub async fn get_text(db: &Db, scope: &Scope, id: TextMessageId) -> Result<TextRow> {
    let select = texts(scope)
        .and_where(Expr::col(("s", "id")).eq(id.get()))
        .take();
    db.conn().fetch_one(&select).await
}

/// The number of `tenant` stored under one of `spellings` (`phone::spellings`: the same
/// number however it was written) that takes texts (its texts reach an extension) and
/// that the caller may send from — one whose texts reach an extension in the caller's
/// reach (a branch admin's branch, a user's own; any, tenant-wide) — as stored.
#[boxed]
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
