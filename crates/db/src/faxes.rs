//! Faxes: those the engine reports ([`record_fax`]) and those sent here, whose document
//! is kept in object storage and whose sending is an outbound message of the engine
//! queue ([`FaxSending`], [`FAX_JOBS`]): a `failed` result is retried under the tenant's
//! policy, and a fax sent emits FAX_SENT.

use sea_query::{Expr, ExprTrait, OnConflict, Query, SelectStatement};
use serde_json::{Value, json};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{FaxId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::engine_job::{self, JobResult};
use switchboard_domain::records::fax::{Fax, FaxAttempt, FaxFilter, FaxRetryPolicy};
use switchboard_domain::records::traffic::{IngestFax, TrafficDirection, time_or_now};
use switchboard_domain::serde::{Deserialize, Serialize};
use switchboard_domain::validation::iso;

use crate::backend::{Db, Tx};
use crate::crud::{self, Changes, Recorded};
use crate::engine_jobs::{self, Job, Kind, Objects};
use crate::error::{Error, Result};
use crate::events;
use crate::jobs;
use crate::list::{self, Listing};
use crate::outbound::{self, OutboundMessage};
use crate::scope;

/// Faxes sent through the engine queue.
pub const FAX_JOBS: Kind = outbound::kind::<FaxSending>();

/// The payload of a fax's sending job: what the engine is handed, with a link to its
/// document signed when it claims the job (`documentURL`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct FaxSending {
    /// Our id of the fax.
    pub fax_id: String,
    /// The sending number.
    pub from: String,
    /// The recipient.
    pub to: String,
    /// The document's pages (0 when unknown).
    pub pages: i64,
    /// The document's content type.
    pub document_type: String,
    /// Where the document is stored.
    pub document_key: String,
}

impl OutboundMessage for FaxSending {
    const KIND: &'static str = engine_job::FAX;
    const TABLE: &'static str = "faxes";
    const SENT_EVENT: &'static str = "FAX_SENT";

    fn objects(&self) -> Objects {
        Objects {
            document: Some(self.document_key.clone()),
            media: None,
        }
    }

    async fn record_sent(
        tx: &mut Tx,
        id: i64,
        result: &JobResult,
        now: i64,
    ) -> Result<Option<Value>> {
        let select = select(&Scope::Platform)
            .and_where(Expr::col(("f", "id")).eq(id))
            .take();
        let Some(fax) = tx.fetch_optional::<FaxRow>(&select).await? else {
            return Ok(None);
        };
        let pages = result.pages.unwrap_or(fax.pages);
        let time = iso(result
            .ended_at
            .unwrap_or_else(|| chrono::DateTime::from_timestamp(now, 0).unwrap_or_default()));
        let update = Query::update()
            .table("faxes")
            .values([
                ("status", "sent".into()),
                ("pages", pages.into()),
                ("time", time.clone().into()),
            ])
            .and_where(Expr::col("id").eq(id))
            .take();
        tx.execute(&update).await?;
        Ok(Some(json!({
            "id": id,
            "faxId": fax.fax_id,
            "direction": fax.direction,
            "from": fax.from_number,
            "to": fax.to_number,
            "pages": pages,
            "status": "sent",
            "time": time,
            "attempt": result.attempt,
        })))
    }

    async fn retry_at(tx: &mut Tx, job: &Job, result: &JobResult, now: i64) -> Result<Option<i64>> {
        let policy = policy_in(tx, job.tenant()).await?;
        Ok(policy.retry_at(job.attempts, result.result_code.as_deref(), now))
    }

    fn failure_changes(_result: &JobResult) -> Changes {
        Changes::new()
    }
}

/// A fax as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct FaxRow {
    /// Id.
    pub id: FaxId,
    /// Tenant.
    pub tenant_id: TenantId,
    /// The engine's id, or ours.
    pub fax_id: String,
    /// inbound or outbound.
    pub direction: String,
    /// Sender.
    pub from_number: String,
    /// Recipient.
    pub to_number: String,
    /// Pages.
    pub pages: i64,
    /// queued, sending, sent, failed, or the engine's outcome.
    pub status: String,
    /// ISO 8601.
    pub time: String,
    /// The document's object key.
    pub document_key: Option<String>,
    /// Its content type.
    pub document_type: Option<String>,
    /// Its size.
    pub document_bytes: Option<i64>,
}

impl FaxRow {
    /// The fax as the API answers it, with the link to its document and its attempts
    /// that the caller read.
    pub fn into_fax(self, document_url: Option<String>, attempts: Vec<FaxAttempt>) -> Fax {
        Fax {
            id: self.id,
            tenant_id: self.tenant_id,
            fax_id: self.fax_id,
            direction: self.direction,
            from: self.from_number,
            to: self.to_number,
            pages: self.pages,
            status: self.status,
            time: self.time,
            document_type: self.document_type,
            document_url,
            attempts,
        }
    }
}

const COLUMNS: [&str; 12] = [
    "id",
    "tenant_id",
    "fax_id",
    "direction",
    "from_number",
    "to_number",
    "pages",
    "status",
    "time",
    "document_key",
    "document_type",
    "document_bytes",
];

fn select(scope: &Scope) -> SelectStatement {
    let mut select = Query::select();
    select.from_as("faxes", "f");
    for column in COLUMNS {
        select.column(("f", column));
    }
    select
        .cond_where(scope::tenants(scope, Expr::col(("f", "tenant_id"))))
        .take()
}

/// Lists the faxes the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &FaxFilter,
    query: &ListQuery,
) -> Result<Listing<FaxRow>> {
    let mut select = select(scope);
    let traffic = outbound::Filter {
        tenant: filter.tenant_id,
        direction: filter.direction,
        from: filter.from.as_deref(),
        to: filter.to.as_deref(),
        since: filter.date_from,
        until: filter.date_to,
    };
    traffic.narrow(&mut select, "f");
    if let Some(status) = &filter.status {
        select.and_where(Expr::col(("f", "status")).eq(status.as_str()));
    }
    list::run(db, select, <Fax as Listed>::SPEC, query).await
}

/// The fax `id` in the caller's reach.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: FaxId) -> Result<FaxRow> {
    let select = select(scope)
        .and_where(Expr::col(("f", "id")).eq(id.get()))
        .take();
    db.conn().fetch_one(&select).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it), without the link to its document (signed for one reader) and its
/// attempts (the engine's reports, not the fax's fields).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Fax>> {
    let row: Option<FaxRow> = crud::find_on(tx, select(&Scope::Platform), "f.id", id).await?;
    Ok(row.map(|row| row.into_fax(None, Vec::new())))
}

/// The fax-enabled number of `tenant` stored under one of `spellings`
/// (`phone::spellings`: the same number however it was written), as stored.
#[boxed]
pub async fn fax_line(db: &Db, tenant: TenantId, spellings: &[String]) -> Result<Option<String>> {
    let select = Query::select()
        .column("number")
        .from("phone_numbers")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("number").is_in(spellings.iter().cloned()))
        .and_where(Expr::col("fax").eq("yes"))
        .order_by("id", sea_query::Order::Asc)
        .limit(1)
        .take();
    Ok(db
        .conn()
        .fetch_optional::<(String,)>(&select)
        .await?
        .map(|(number,)| number))
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
#[boxed]
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
#[boxed]
pub async fn record_fax(
    tx: &mut Tx,
    fax: IngestFax,
    document: Option<&FaxDocument>,
    now: i64,
) -> Result<Recorded> {
    let time = time_or_now(fax.time);
    let mut columns: Changes = vec![
        ("tenant_id", fax.tenant.get().into()),
        ("fax_id", fax.fax_id.clone().into()),
        ("direction", fax.direction.as_str().into()),
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
        let kind = if fax.direction == TrafficDirection::Inbound {
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

/// A fax to send, its document already stored.
#[derive(Clone, Debug)]
pub struct NewFax {
    /// The sending tenant.
    pub tenant: TenantId,
    /// One of its fax-enabled numbers.
    pub from: String,
    /// The recipient.
    pub to: String,
    /// The document's pages (0 when unknown: a TIFF).
    pub pages: i64,
    /// Where the document is stored.
    pub document_key: String,
    /// Its content type.
    pub document_type: &'static str,
    /// Its size.
    pub document_bytes: i64,
}

/// Records a fax to send as `queued` and queues its engine job, keeping its document
/// (pledged for deletion until now: `pledge`), in one transaction; answers its id.
#[boxed]
pub async fn create(db: &Db, fax: &NewFax, pledge: i64, now: i64) -> Result<FaxId> {
    let fax_id = format!("sb-{}", uuid::Uuid::now_v7().simple());
    let time = iso(chrono::DateTime::from_timestamp(now, 0).unwrap_or_default());
    let mut tx = db.begin().await?;
    let id = crud::insert_in(
        &mut tx,
        "faxes",
        vec![
            ("tenant_id", fax.tenant.get().into()),
            ("fax_id", fax_id.clone().into()),
            ("direction", "outbound".into()),
            ("from_number", fax.from.clone().into()),
            ("to_number", fax.to.clone().into()),
            ("pages", fax.pages.into()),
            ("status", "queued".into()),
            ("time", time.into()),
            ("document_key", fax.document_key.clone().into()),
            ("document_type", fax.document_type.into()),
            ("document_bytes", fax.document_bytes.into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    jobs::keep_object(&mut tx, pledge).await?;
    // The engine gets a fresh signed link to `documentKey` when it claims the job.
    let sending = FaxSending {
        fax_id,
        from: fax.from.clone(),
        to: fax.to.clone(),
        pages: fax.pages,
        document_type: fax.document_type.to_owned(),
        document_key: fax.document_key.clone(),
    };
    outbound::enqueue(&mut tx, fax.tenant, id, &sending, now).await?;
    tx.commit().await?;
    Ok(FaxId(id))
}

/// Deletes the fax `id` in the caller's reach, with its document and any sending still
/// queued; answers what it was.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: FaxId, now: i64) -> Result<FaxRow> {
    let row = get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    if crud::delete_in(&mut tx, "faxes", id.get()).await? == 0 {
        return Err(Error::NotFound);
    }
    engine_jobs::cancel(&mut tx, &FAX_JOBS, id.get(), now).await?;
    if let Some(key) = &row.document_key {
        jobs::delete_object(&mut tx, key).await?;
    }
    tx.commit().await?;
    Ok(row)
}

/// Requeues the failed fax `id` as a new attempt of its engine job; a fax that is not
/// failed is a conflict.
#[boxed]
pub async fn retry(db: &Db, fax: &FaxRow, now: i64) -> Result<()> {
    let mut tx = db.begin().await?;
    let update = Query::update()
        .table("faxes")
        .value("status", "queued")
        .and_where(Expr::col("id").eq(fax.id.get()))
        .and_where(Expr::col("status").eq("failed"))
        .and_where(Expr::col("document_key").is_not_null())
        .take();
    if tx.execute(&update).await? == 0 {
        return Err(Error::Conflict(format!(
            "fax {} is not failed: only a failed fax is retried",
            fax.id
        )));
    }
    if !engine_jobs::requeue(&mut tx, &FAX_JOBS, fax.id.get(), now).await? {
        return Err(Error::Conflict(format!(
            "fax {} has no sending to retry",
            fax.id
        )));
    }
    tx.commit().await?;
    Ok(())
}

/// The attempts made to send fax `id`, oldest first.
#[boxed]
pub async fn attempts(db: &Db, id: FaxId) -> Result<Vec<FaxAttempt>> {
    let rows = engine_jobs::attempts(db, &FAX_JOBS, id.get()).await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let details: serde_json::Value = serde_json::from_str(&row.details).unwrap_or_default();
            FaxAttempt {
                attempt: row.attempt,
                outcome: row.outcome,
                started_at: crate::calls::iso_at(row.started_at),
                ended_at: crate::calls::iso_at(row.ended_at),
                result_code: details["resultCode"].as_str().map(str::to_owned),
                pages: details["pages"].as_i64(),
                speed: details["speed"].as_i64(),
                message: details["message"].as_str().map(str::to_owned),
            }
        })
        .collect())
}

#[derive(switchboard_domain::declare::FromRow)]
struct PolicyRow {
    max_attempts: i64,
    delay_seconds: i64,
    retry_codes: String,
}

async fn policy_in(tx: &mut Tx, tenant: TenantId) -> Result<FaxRetryPolicy> {
    let select = Query::select()
        .columns(["max_attempts", "delay_seconds", "retry_codes"])
        .from("fax_retry_policies")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .take();
    Ok(match tx.fetch_optional::<PolicyRow>(&select).await? {
        Some(row) => FaxRetryPolicy {
            tenant_id: tenant,
            max_attempts: row.max_attempts,
            delay_seconds: row.delay_seconds,
            retry_codes: serde_json::from_str(&row.retry_codes).unwrap_or_default(),
        },
        None => FaxRetryPolicy::default_for(tenant),
    })
}

/// The retry policy of `tenant` (the default when it set none).
#[boxed]
pub async fn policy(db: &Db, tenant: TenantId) -> Result<FaxRetryPolicy> {
    let mut tx = db.begin().await?;
    let policy = policy_in(&mut tx, tenant).await?;
    tx.commit().await?;
    Ok(policy)
}

/// Sets the retry policy of its tenant.
#[boxed]
pub async fn set_policy(db: &Db, policy: &FaxRetryPolicy, now: i64) -> Result<()> {
    let insert = Query::insert()
        .into_table("fax_retry_policies")
        .columns([
            "tenant_id",
            "max_attempts",
            "delay_seconds",
            "retry_codes",
            "updated_at",
        ])
        .values_panic([
            policy.tenant_id.get().into(),
            policy.max_attempts.into(),
            policy.delay_seconds.into(),
            serde_json::Value::from(policy.retry_codes.clone())
                .to_string()
                .into(),
            now.into(),
        ])
        .on_conflict(
            OnConflict::column("tenant_id")
                .update_columns(["max_attempts", "delay_seconds", "retry_codes", "updated_at"])
                .to_owned(),
        )
        .take();
    let tenant = policy.tenant_id;
    let mut tx = db.begin().await?;
    // Concurrent writes of one tenant's policy are taken one after the other, so each
    // audit entry's before is the policy the write replaced.
    tx.lock_keys(&[&format!("fax-retry-policy:{}", tenant.get())])
        .await?;
    let before = stored_policy(&mut tx, tenant).await?;
    tx.execute(&insert).await?;
    let after = stored_policy(&mut tx, tenant).await?;
    crate::audit::change_in(
        &mut tx,
        "fax-retry-policy",
        tenant.get(),
        Some(tenant),
        before,
        after,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The policy `tenant` stored (none while it keeps the default), as the audit trail
/// shows it.
async fn stored_policy(tx: &mut Tx, tenant: TenantId) -> Result<Option<crate::audit::Snapshot>> {
    let select = Query::select()
        .columns(["max_attempts", "delay_seconds", "retry_codes"])
        .from("fax_retry_policies")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .take();
    Ok(tx.fetch_optional::<PolicyRow>(&select).await?.map(|row| {
        let codes: serde_json::Value = serde_json::from_str(&row.retry_codes).unwrap_or_default();
        let mut map = crate::audit::Snapshot::new();
        map.insert("tenant_id".into(), tenant.get().into());
        map.insert("max_attempts".into(), row.max_attempts.into());
        map.insert("delay_seconds".into(), row.delay_seconds.into());
        map.insert("retry_codes".into(), codes);
        map
    }))
}
