//! Campaign calls as engine work (`campaign-call`): the payload the engine is handed, the
//! scheduler that queues one job per record taken, and the engine queue's hooks (the
//! claim's last check, the recorded result, an abandoned job), and a record's calls read back
//! from its jobs.

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;
use switchboard_domain::ids::{CallCampaignId, CampaignRecordId, TenantId};
use switchboard_domain::records::call_campaign::{CallAttempt, CallingWindow};
use switchboard_domain::records::call_outcome;
use switchboard_domain::serde::{Deserialize, Serialize};
use switchboard_domain::validation::iso;

use super::dialling::record_result;
use super::dialling::take_due;
use crate::backend::{Db, Tx};
use crate::crud::Changes;
use crate::error::{Error, Result};
use crate::opt_outs;

/// The webhook event of a campaign call's recorded result.
pub const CAMPAIGN_CALL_COMPLETED: &str =
    switchboard_domain::records::webhook::CAMPAIGN_CALL_COMPLETED;

/// Campaign calls as engine work (`campaign-call`): the scheduler ([`schedule`]) queues
/// one job per record it takes; the claim checks the record once more (still wanted, not
/// opted out, campaign running, window open) and the result records the outcome. A
/// result names one of the tenant's call outcomes or a built-in one
/// ([`call_outcome::BUILT_IN`]); any other is refused.
pub const CALL_JOBS: crate::engine_jobs::Kind = crate::engine_jobs::Kind {
    name: switchboard_domain::records::engine_job::CAMPAIGN_CALL,
    outcomes: crate::engine_jobs::Outcomes::Checked(call_outcome_known),
    on_claim: call_claimed,
    on_result: call_reported,
    on_abandon: call_abandoned,
    objects: crate::engine_jobs::no_objects,
};

/// The payload of a campaign call's job: what the engine is handed to place the call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct CampaignCall {
    /// The campaign.
    pub campaign_id: CallCampaignId,
    /// The record called.
    pub record_id: CampaignRecordId,
    /// The number to call, E.164.
    pub number: String,
    /// The record's name, if it has one.
    pub name: Option<String>,
    /// The caller id to show, E.164.
    pub caller_id_number: String,
    /// The record's attempt this call is.
    pub attempt: i64,
    /// Where an answered call is connected (`null`: nowhere).
    pub destination: Option<CallDestination>,
}

/// Where an answered campaign call is connected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde", rename_all = "camelCase")]
pub struct CallDestination {
    /// The destination's type.
    pub dest_type: String,
    /// Its target's id.
    pub id: i64,
}

/// Why a campaign call's result may not name `outcome`: it is neither one of the job's
/// tenant's call outcomes nor a built-in one (a typo in the engine's configuration would
/// otherwise retry every number silently as if it were no answer).
fn call_outcome_known<'a>(
    tx: &'a mut Tx,
    job: &'a crate::engine_jobs::Job,
    outcome: &'a str,
) -> futures::future::BoxFuture<'a, Result<Option<String>>> {
    Box::pin(async move {
        if call_outcome::built_in(outcome).is_some() {
            return Ok(None);
        }
        let defined = Query::select()
            .column("id")
            .from("call_outcomes")
            .and_where(Expr::col("tenant_id").eq(job.tenant_id.get()))
            .and_where(Expr::col("name").eq(outcome))
            .take();
        if tx.fetch_optional::<(i64,)>(&defined).await?.is_some() {
            return Ok(None);
        }
        let built_in: Vec<&str> = call_outcome::BUILT_IN
            .iter()
            .map(|(name, _, _)| *name)
            .collect();
        Ok(Some(format!(
            "must name one of the tenant's call outcomes (/v2/admin/call-outcomes) or a built-in one: {}",
            built_in.join(", ")
        )))
    })
}

/// Runs the dial-time step at `now` for at most `limit` records and queues an engine job
/// for each record to call, in one transaction; answers how many were queued.
#[boxed]
pub async fn schedule(db: &Db, now: chrono::DateTime<chrono::Utc>, limit: usize) -> Result<usize> {
    let mut tx = db.begin().await?;
    let due = take_due(&mut tx, now, limit).await?;
    for dial in &due.dials {
        let payload = CampaignCall {
            campaign_id: dial.record.campaign_id,
            record_id: dial.record.id,
            number: dial.record.number.clone(),
            name: dial.record.name.clone(),
            caller_id_number: dial.caller_id.clone(),
            attempt: dial.record.attempts,
            destination: dial
                .destination
                .as_ref()
                .map(|(dest_type, id)| CallDestination {
                    dest_type: dest_type.clone(),
                    id: *id,
                }),
        };
        crate::engine_jobs::enqueue(
            &mut tx,
            dial.tenant,
            &CALL_JOBS,
            Some(dial.record.id.get()),
            &payload,
            now.timestamp(),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(due.dials.len())
}

#[derive(switchboard_domain::declare::FromRow)]
struct Claimed {
    status: String,
    number: String,
    campaign_id: CallCampaignId,
    tenant_id: TenantId,
    campaign_status: String,
    window_days: String,
    window_from: String,
    window_to: String,
    time_zone: String,
}

fn call_claimed<'a>(
    tx: &'a mut Tx,
    job: &'a crate::engine_jobs::Job,
    now: i64,
) -> futures::future::BoxFuture<'a, Result<bool>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(false);
        };
        let select = Query::select()
            .columns([
                ("r", "status"),
                ("r", "number"),
                ("r", "campaign_id"),
                ("r", "tenant_id"),
            ])
            .expr_as(Expr::col(("c", "status")), "campaign_status")
            .columns([
                ("c", "window_days"),
                ("c", "window_from"),
                ("c", "window_to"),
                ("c", "time_zone"),
            ])
            .from_as("campaign_records", "r")
            .inner_join(
                sea_query::TableRef::from("call_campaigns").alias("c"),
                Expr::col(("c", "id")).equals(("r", "campaign_id")),
            )
            .and_where(Expr::col(("r", "id")).eq(id))
            .take();
        let Some(record) = tx.fetch_optional::<Claimed>(&select).await? else {
            return Ok(false);
        };
        if record.status != "dialing" {
            return Ok(false);
        }
        let at = chrono::DateTime::from_timestamp(now, 0).unwrap_or_else(chrono::Utc::now);
        let listed = opt_outs::level_of(
            tx,
            record.tenant_id,
            Some(record.campaign_id),
            &record.number,
        )
        .await?;
        let window = CallingWindow {
            days: record
                .window_days
                .split(',')
                .filter_map(|d| d.parse().ok())
                .collect(),
            from: record.window_from,
            to: record.window_to,
            time_zone: record.time_zone,
        };
        let changes: Changes = if listed.is_some() {
            // Opted out since it was queued: never dialled.
            vec![
                ("status", "opted-out".into()),
                ("attempts", Expr::col("attempts").sub(1)),
            ]
        } else if record.campaign_status != "running" || !window.status(at).open {
            // Paused, or the window closed while the job waited: back to the list, its
            // attempt not counted; the scheduler queues it again when it may be called.
            vec![
                ("status", "pending".into()),
                ("attempts", Expr::col("attempts").sub(1)),
                ("next_attempt_at", iso(at).into()),
            ]
        } else {
            return Ok(true);
        };
        let update = Query::update()
            .table("campaign_records")
            .values(changes)
            .and_where(Expr::col("id").eq(id))
            .and_where(Expr::col("status").eq("dialing"))
            .take();
        tx.execute(&update).await?;
        Ok(false)
    })
}

fn call_reported<'a>(
    tx: &'a mut Tx,
    job: &'a crate::engine_jobs::Job,
    result: &'a switchboard_domain::records::engine_job::JobResult,
    now: i64,
) -> futures::future::BoxFuture<'a, Result<crate::engine_jobs::Next>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(crate::engine_jobs::Next::Done);
        };
        let at = chrono::DateTime::from_timestamp(now, 0).unwrap_or_else(chrono::Utc::now);
        let resulted = match record_result(tx, CampaignRecordId(id), &result.outcome, at).await {
            Ok(resulted) => resulted,
            // The record was deleted while the call was placed: nothing to record.
            Err(Error::NotFound) => return Ok(crate::engine_jobs::Next::Done),
            Err(e) => return Err(e),
        };
        // The tenant's webhooks hear of every call's outcome, in the result's
        // transaction: an event exactly when the result is recorded.
        let data = serde_json::json!({
            "id": id,
            "campaignId": resulted.campaign_id,
            "number": resulted.number,
            "outcome": result.outcome,
            "attempt": result.attempt,
            "status": resulted.status,
            "optedOut": resulted.opted_out,
        });
        crate::events::emit(tx, job.tenant(), CAMPAIGN_CALL_COMPLETED, data, now).await?;
        // A retry is a new job, queued by the scheduler when it is due: the window and
        // the opt-out lists are checked again then.
        Ok(if resulted.status == "failed" {
            crate::engine_jobs::Next::Failed
        } else {
            crate::engine_jobs::Next::Done
        })
    })
}

/// A call given up because its engine kept dying: the record ends `failed` with the
/// outcome `abandoned` (no further attempt: whatever kills the engine on this call would
/// again), and the tenant's webhooks hear of it like any other result.
fn call_abandoned<'a>(
    tx: &'a mut Tx,
    job: &'a crate::engine_jobs::Job,
    reason: &'a str,
    now: i64,
) -> futures::future::BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let Some(id) = job.subject_id else {
            return Ok(());
        };
        let update = Query::update()
            .table("campaign_records")
            .values([
                ("status", "failed".into()),
                ("outcome", crate::engine_jobs::ABANDONED.into()),
                ("next_attempt_at", Option::<String>::None.into()),
            ])
            .and_where(Expr::col("id").eq(id))
            .and_where(Expr::col("status").eq("dialing"))
            .returning(Query::returning().columns(["campaign_id", "number"]))
            .take();
        let Some((campaign, number)) = tx.fetch_optional::<(i64, String)>(&update).await? else {
            // Deleted, or moved by an admin meanwhile: nothing to report.
            return Ok(());
        };
        let data = serde_json::json!({
            "id": id,
            "campaignId": campaign,
            "number": number,
            "outcome": crate::engine_jobs::ABANDONED,
            "attempt": job.attempts,
            "status": "failed",
            "optedOut": false,
            "reason": reason,
        });
        crate::events::emit(tx, job.tenant(), CAMPAIGN_CALL_COMPLETED, data, now).await?;
        Ok(())
    })
}

/// The calls placed for record `id` whose results came, oldest first: the results of
/// its `campaign-call` jobs (one job per call; a job whose lease ran out is one call).
#[boxed]
pub async fn call_attempts(db: &Db, id: CampaignRecordId) -> Result<Vec<CallAttempt>> {
    let rows = crate::engine_jobs::attempts(db, &CALL_JOBS, id.get()).await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let details: serde_json::Value = serde_json::from_str(&row.details).unwrap_or_default();
            let text = |key: &str| details[key].as_str().map(str::to_owned);
            CallAttempt {
                outcome: row.outcome,
                started_at: crate::calls::iso_at(row.started_at),
                ended_at: crate::calls::iso_at(row.ended_at),
                recorded_at: crate::calls::iso_at(Some(row.recorded_at)).unwrap_or_default(),
                duration_seconds: details["durationSeconds"].as_i64(),
                result_code: text("resultCode"),
                reference: text("reference"),
                message: text("message"),
            }
        })
        .collect())
}
