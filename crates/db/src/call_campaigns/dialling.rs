//! The dialling schedule: the dial-time step that starts scheduled campaigns and turns
//! due records into calls within their calling window, and what a call's result does to
//! its record (the next attempt, the outcome, the opt-out a result asks for).

use sea_query::{Expr, ExprTrait, Query};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{CallCampaignId, CampaignRecordId, TenantId};
use switchboard_domain::records::call_campaign::{CallingWindow, CampaignRecord};
use switchboard_domain::records::call_outcome;
use switchboard_domain::validation::iso;

use super::records::record_select;
use super::{DESTINATION, Row, select};
use crate::backend::Tx;
use crate::crud::Changes;
use crate::error::Result;
use crate::opt_outs;

/// A record turned into a call to place.
#[derive(Clone, Debug)]
pub struct Dial {
    /// The record, now `dialing`, its attempt counted.
    pub record: CampaignRecord,
    /// The campaign's tenant.
    pub tenant: TenantId,
    /// The caller id to show, E.164.
    pub caller_id: String,
    /// Where an answered call is connected: its destination type and target id.
    pub destination: Option<(String, i64)>,
}

/// What the dial-time step did.
#[derive(Clone, Debug, Default)]
pub struct Due {
    /// Records to call now.
    pub dials: Vec<Dial>,
    /// Records found on an opt-out list when about to be dialled: marked `opted-out`, not
    /// dialled.
    pub blocked: Vec<CampaignRecordId>,
}

/// The dial-time step, in `tx` (the engine's claim, so the jobs are queued with it):
/// starts the scheduled campaigns whose `startAt` has come, then takes up to `limit`
/// due records (`pending`, `nextAttemptAt` reached) of running campaigns whose calling
/// window is open at `now`. Each is checked against the opt-out lists once more — a
/// number opted out after import is marked `opted-out` and never dialled — and the rest
/// move to `dialing` with their attempt counted. A record is taken by a conditional
/// update, so two engines claiming at once never take the same one.
#[boxed]
pub async fn take_due(
    tx: &mut Tx,
    now: chrono::DateTime<chrono::Utc>,
    limit: usize,
) -> Result<Due> {
    let at = iso(now);
    let start = Query::update()
        .table("call_campaigns")
        .value("status", "running")
        .and_where(Expr::col("status").eq("scheduled"))
        .and_where(Expr::col("start_at").is_not_null())
        .and_where(Expr::col("start_at").lte(at.as_str()))
        .take();
    tx.execute(&start).await?;
    let running = select(&Scope::Platform)
        .and_where(Expr::col(("c", "status")).eq("running"))
        .order_by(("c", "id"), sea_query::Order::Asc)
        .take();
    let rows: Vec<Row> = tx.fetch_all(&running).await?;
    let mut due = Due::default();
    for row in rows {
        if due.dials.len() >= limit {
            break;
        }
        let window = CallingWindow {
            days: row
                .window_days
                .split(',')
                .filter_map(|d| d.parse().ok())
                .collect(),
            from: row.window_from.clone(),
            to: row.window_to.clone(),
            time_zone: row.time_zone.clone(),
        };
        if !window.status(now).open {
            continue;
        }
        let campaign = row.id;
        let tenant = row.tenant_id;
        let remaining = (limit - due.dials.len()) as u64;
        let candidates: Vec<CampaignRecord> = tx
            .fetch_all(
                &record_select(campaign)
                    .and_where(Expr::col("status").eq("pending"))
                    .and_where(Expr::col("next_attempt_at").lte(at.as_str()))
                    .order_by("next_attempt_at", sea_query::Order::Asc)
                    .order_by("id", sea_query::Order::Asc)
                    .limit(remaining)
                    .take(),
            )
            .await?;
        let mut destination = None;
        for record in candidates {
            let listed = opt_outs::level_of(tx, tenant, Some(campaign), &record.number).await?;
            let changes: Changes = if listed.is_some() {
                vec![
                    ("status", "opted-out".into()),
                    ("next_attempt_at", Option::<String>::None.into()),
                ]
            } else {
                vec![
                    ("status", "dialing".into()),
                    ("attempts", Expr::col("attempts").add(1)),
                    ("last_attempt_at", at.clone().into()),
                    ("next_attempt_at", Option::<String>::None.into()),
                ]
            };
            let take = Query::update()
                .table("campaign_records")
                .values(changes)
                .and_where(Expr::col("id").eq(record.id.get()))
                .and_where(Expr::col("status").eq("pending"))
                .take();
            if tx.execute(&take).await? != 1 {
                continue;
            }
            if listed.is_some() {
                due.blocked.push(record.id);
                continue;
            }
            if destination.is_none() {
                let target = Query::select()
                    .columns(["dest_type", "target_id"])
                    .from("destinations")
                    .and_where(Expr::col("owner_type").eq("call_campaign"))
                    .and_where(Expr::col("owner_id").eq(row.id.get()))
                    .and_where(Expr::col("list").eq(DESTINATION))
                    .take();
                destination = Some(tx.fetch_optional::<(String, i64)>(&target).await?);
            }
            let record = tx
                .fetch_one(
                    &record_select(campaign)
                        .and_where(Expr::col("id").eq(record.id.get()))
                        .take(),
                )
                .await?;
            due.dials.push(Dial {
                record,
                tenant,
                caller_id: row.caller_id_number.clone(),
                destination: destination.clone().flatten(),
            });
        }
    }
    Ok(due)
}

/// What an engine's result did to a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resulted {
    /// The record's status after the result.
    pub status: String,
    /// Whether the number was added to the tenant's opt-out list.
    pub opted_out: bool,
    /// The record's campaign.
    pub campaign_id: CallCampaignId,
    /// The number called, E.164.
    pub number: String,
    /// Attempts made so far (this one included).
    pub attempts: i64,
}

/// Records the result of a call of record `id`, in `tx` (the engine's result, with its
/// event): the outcome named (one of the tenant's call outcomes, or a built-in one —
/// `opted-out` is the callee pressing the opt-out key). An outcome that opts out adds
/// the number to the tenant's list and ends the record; one that ends the record
/// completes it; otherwise the record waits `retryDelayMinutes` for its next attempt, or
/// fails once its attempts reach `maxAttempts`.
#[boxed]
pub async fn record_result(
    tx: &mut Tx,
    id: CampaignRecordId,
    outcome: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Resulted> {
    #[derive(switchboard_domain::declare::FromRow)]
    struct Context {
        campaign_id: CallCampaignId,
        tenant_id: TenantId,
        number: String,
        attempts: i64,
        max_attempts: i64,
        retry_delay_minutes: i64,
    }
    let context = Query::select()
        .columns([
            ("r", "campaign_id"),
            ("r", "tenant_id"),
            ("r", "number"),
            ("r", "attempts"),
        ])
        .columns([("c", "max_attempts"), ("c", "retry_delay_minutes")])
        .from_as("campaign_records", "r")
        .inner_join(
            sea_query::TableRef::from("call_campaigns").alias("c"),
            Expr::col(("c", "id")).equals(("r", "campaign_id")),
        )
        .and_where(Expr::col(("r", "id")).eq(id.get()))
        .take();
    let context: Context = tx.fetch_one(&context).await?;
    let defined: Option<(bool, bool)> = tx
        .fetch_optional(
            &Query::select()
                .columns(["ends_record", "opts_out"])
                .from("call_outcomes")
                .and_where(Expr::col("tenant_id").eq(context.tenant_id.get()))
                .and_where(Expr::col("name").eq(outcome))
                .take(),
        )
        .await?;
    let (ends, opts_out) = defined
        .or_else(|| call_outcome::built_in(outcome))
        .unwrap_or((false, false));
    let opts_out = opts_out || outcome == call_outcome::OPTED_OUT;
    let mut changes: Changes = vec![("outcome", outcome.into())];
    let status = if opts_out {
        opt_outs::add_in(
            tx,
            opt_outs::NewOptOut {
                level: "tenant".into(),
                tenant: Some(context.tenant_id),
                campaign: None,
                number: context.number.clone(),
                source: "engine".into(),
                reason: Some(format!(
                    "call outcome {outcome} (campaign {})",
                    context.campaign_id
                )),
                expires_at: None,
            },
        )
        .await?;
        "opted-out"
    } else if ends {
        "completed"
    } else if context.attempts >= context.max_attempts {
        "failed"
    } else {
        let next = now + chrono::Duration::minutes(context.retry_delay_minutes);
        changes.push(("next_attempt_at", iso(next).into()));
        "pending"
    };
    if status != "pending" {
        changes.push(("next_attempt_at", Option::<String>::None.into()));
    }
    changes.push(("status", status.into()));
    let update = Query::update()
        .table("campaign_records")
        .values(changes)
        .and_where(Expr::col("id").eq(id.get()))
        .take();
    tx.execute(&update).await?;
    Ok(Resulted {
        status: status.to_owned(),
        opted_out: opts_out,
        campaign_id: context.campaign_id,
        number: context.number,
        attempts: context.attempts,
    })
}
