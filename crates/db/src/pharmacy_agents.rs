//! Pharmacy agents (their pharmacist fallback and after-hours destination in the shared
//! destination lists, owner `pharmacy_agent`) and the refill requests the engine reports
//! for them, each recorded once per (agent, requestId) with its REFILL_REQUESTED event.

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use serde_json::json;
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{
    BusinessHourId, ConduitId, MediaFileId, PharmacyAgentId, RefillRequestId, TenantId,
};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::pharmacy_agent::{
    AfterHours, CreatePharmacyAgent, IngestRefillRequest, PHARMACY_SYSTEM, PharmacyAgent,
    RefillFilter, RefillOutcome, RefillRequest, UpdatePharmacyAgent,
};
use switchboard_domain::records::traffic::time_or_now;
use switchboard_domain::validation::iso;

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud::{self, Changes, Recorded};
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::events;
use crate::list::{self, Listing};
use crate::scope;

/// The pharmacist fallback's list name.
const FALLBACK: &str = "fallback";
/// The after-hours destination's list name.
const AFTER_HOURS: &str = "afterHours";

/// An agent row before its destinations are attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: PharmacyAgentId,
    tenant_id: TenantId,
    name: String,
    number: String,
    ivr_bulk: i64,
    refill_loop_attempts: i64,
    rx_number_length: i64,
    greeting_media_file_id: Option<MediaFileId>,
    prompt_media_file_id: Option<MediaFileId>,
    after_hours_business_hour_id: Option<BusinessHourId>,
    business_hour_name: Option<String>,
    conduit_id: Option<ConduitId>,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            ("a", "id"),
            ("a", "tenant_id"),
            ("a", "name"),
            ("a", "number"),
            ("a", "ivr_bulk"),
            ("a", "refill_loop_attempts"),
            ("a", "rx_number_length"),
            ("a", "greeting_media_file_id"),
            ("a", "prompt_media_file_id"),
            ("a", "after_hours_business_hour_id"),
            ("a", "conduit_id"),
        ])
        .expr_as(Expr::col(("h", "name")), "business_hour_name")
        .from_as("pharmacy_agents", "a")
        .left_join(
            TableRef::from("business_hours").alias("h"),
            Expr::col(("h", "id")).equals(("a", "after_hours_business_hour_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("a", "tenant_id"))))
        .take()
}

/// Attaches the fallback and after-hours destinations of every agent in `rows`, with
/// one query.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<PharmacyAgent>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<PharmacyAgent>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut lists = destinations::load_on(reader, Owner::PharmacyAgent, &ids).await?;
    let mut take = |id: PharmacyAgentId, list: &str| {
        lists
            .remove(&(id.get(), list.to_owned()))
            .and_then(|list| list.into_iter().next())
    };
    Ok(rows
        .into_iter()
        .map(|row| {
            let fallback_destination = take(row.id, FALLBACK);
            let closed = take(row.id, AFTER_HOURS);
            PharmacyAgent {
                id: row.id,
                tenant_id: row.tenant_id,
                name: row.name,
                number: row.number,
                ivr_bulk: row.ivr_bulk,
                refill_loop_attempts: row.refill_loop_attempts,
                rx_number_length: row.rx_number_length,
                greeting_media_file_id: row.greeting_media_file_id,
                prompt_media_file_id: row.prompt_media_file_id,
                fallback_destination,
                after_hours: row
                    .after_hours_business_hour_id
                    .map(|business_hour_id| AfterHours {
                        business_hour_id,
                        business_hour_name: row.business_hour_name.unwrap_or_default(),
                        destination: closed,
                    }),
                conduit_id: row.conduit_id,
            }
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<PharmacyAgent>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "a.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the pharmacy agents the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<PharmacyAgent>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("a", "tenant_id")).eq(tenant.get()));
    }
    list::run_completed(db, select, PharmacyAgent::SPEC, query, complete).await
}

/// One pharmacy agent.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: PharmacyAgentId) -> Result<PharmacyAgent> {
    let row: Row = crud::get(db, select(scope), "a.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// The agent of `tenant` dialled at `number`, if any.
#[boxed]
pub async fn find_by_number(
    db: &Db,
    tenant: TenantId,
    number: &str,
) -> Result<Option<PharmacyAgent>> {
    let select = select(&Scope::Tenant(tenant))
        .and_where(Expr::col(("a", "number")).eq(number))
        .take();
    let Some(row) = db.conn().fetch_optional::<Row>(&select).await? else {
        return Ok(None);
    };
    Ok(complete(db.clone(), vec![row]).await?.pop())
}

/// Writes the after-hours rule's columns into `changes` and answers its destination list.
fn after_hours(
    rule: Option<switchboard_domain::records::pharmacy_agent::AfterHoursInput>,
    changes: &mut Changes,
) -> Vec<switchboard_domain::records::destination::DestinationInput> {
    match rule {
        Some(rule) => {
            changes.push((
                "after_hours_business_hour_id",
                rule.business_hour_id.get().into(),
            ));
            rule.destination.into_iter().collect()
        }
        None => {
            changes.push(("after_hours_business_hour_id", Option::<i64>::None.into()));
            Vec::new()
        }
    }
}

/// Holds conduit `id` of `tenant` for the rest of `tx` as the `pharmacy-system` an agent
/// needs: read under a share lock, so a change of its kind (which locks the row for
/// update, `in_use::RELIED_ON`) either committed before — and is seen here — or waits
/// for this write and then sees the agent using it. The caller checked it before (400
/// at the field); this refuses with 409 what changed since.
async fn hold_conduit(tx: &mut Tx, tenant: TenantId, id: ConduitId) -> Result<()> {
    let select = Query::select()
        .column("kind")
        .from("conduits")
        .and_where(Expr::col("id").eq(id.get()))
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .lock(sea_query::LockType::Share)
        .take();
    match tx.fetch_optional::<(String,)>(&select).await? {
        Some((kind,)) if kind == PHARMACY_SYSTEM.as_str() => Ok(()),
        Some((kind,)) => Err(Error::Conflict(format!(
            "conduitId names conduit {id}, now of kind {kind}, not {PHARMACY_SYSTEM}"
        ))),
        None => Err(Error::Conflict(format!(
            "conduitId names conduit {id} that no longer exists in the tenant"
        ))),
    }
}

/// Creates a pharmacy agent of `tenant` (references checked by the caller).
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreatePharmacyAgent) -> Result<PharmacyAgent> {
    let mut changes = changes::with_tenant(tenant, &body);
    changes.push(("created_at", chrono::Utc::now().timestamp().into()));
    let conduit = body.conduit_id;
    let closed = after_hours(body.after_hours, &mut changes);
    let mut tx = db.begin().await?;
    if let Some(conduit) = conduit {
        hold_conduit(&mut tx, tenant, conduit).await?;
    }
    let id = crud::insert_in(&mut tx, "pharmacy_agents", changes).await?;
    let fallback: Vec<_> = body.fallback_destination.into_iter().collect();
    destinations::replace(
        &mut tx,
        tenant,
        Owner::PharmacyAgent,
        id,
        FALLBACK,
        &fallback,
    )
    .await?;
    destinations::replace(
        &mut tx,
        tenant,
        Owner::PharmacyAgent,
        id,
        AFTER_HOURS,
        &closed,
    )
    .await?;
    tx.commit().await?;
    get(db, &Scope::Platform, PharmacyAgentId(id)).await
}

/// Changes a pharmacy agent: fields not sent stay unchanged, `null` clears.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: PharmacyAgentId,
    body: UpdatePharmacyAgent,
) -> Result<PharmacyAgent> {
    let current = get(db, scope, id).await?;
    let mut changes = changes::of(&body);
    let closed = body.after_hours.map(|rule| after_hours(rule, &mut changes));
    let mut tx = db.begin().await?;
    if let Some(Some(conduit)) = body.conduit_id {
        hold_conduit(&mut tx, current.tenant_id, conduit).await?;
    }
    crud::update_in(&mut tx, "pharmacy_agents", id.get(), changes).await?;
    if let Some(fallback) = body.fallback_destination {
        let fallback: Vec<_> = fallback.into_iter().collect();
        destinations::replace(
            &mut tx,
            current.tenant_id,
            Owner::PharmacyAgent,
            id.get(),
            FALLBACK,
            &fallback,
        )
        .await?;
    }
    if let Some(closed) = closed {
        destinations::replace(
            &mut tx,
            current.tenant_id,
            Owner::PharmacyAgent,
            id.get(),
            AFTER_HOURS,
            &closed,
        )
        .await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes a pharmacy agent with its destinations and refill requests, unless something
/// routes to it.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: PharmacyAgentId) -> Result<PharmacyAgent> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "pharmacy_agents", Owner::PharmacyAgent, id.get()).await?;
    Ok(current)
}

/// Records a refill request for `agent` unless one with its key (`requestId`, else the
/// call's `uniqueId`) was recorded for the agent before, emitting REFILL_REQUESTED for a
/// new one in the same transaction. The request was checked against the agent by the
/// caller.
#[boxed]
pub async fn record_refill(
    tx: &mut Tx,
    agent: &PharmacyAgent,
    request: &IngestRefillRequest,
    now: i64,
) -> Result<Recorded> {
    let time = time_or_now(request.time);
    let key = request.key();
    let rx_numbers = serde_json::Value::from(request.rx_numbers.clone()).to_string();
    let recorded = crud::insert_once(
        tx,
        "refill_requests",
        &["agent_id", "request_id"],
        vec![
            ("tenant_id", agent.tenant_id.get().into()),
            ("agent_id", agent.id.get().into()),
            ("request_id", key.clone().into()),
            ("unique_id", request.unique_id.clone().into()),
            ("caller_number", request.caller_number.clone().into()),
            ("rx_numbers", rx_numbers.into()),
            ("outcome", request.outcome.as_str().into()),
            ("time", time.clone().into()),
            ("created_at", now.into()),
        ],
    )
    .await?;
    if recorded.new {
        let data = json!({
            "id": recorded.id,
            "agentId": agent.id.get(),
            "agentName": agent.name,
            "agentNumber": agent.number,
            "requestId": key,
            "uniqueId": request.unique_id,
            "callerNumber": request.caller_number,
            "rxNumbers": request.rx_numbers,
            "outcome": request.outcome,
            "time": time,
        });
        events::emit(tx, agent.tenant_id, "REFILL_REQUESTED", data, now).await?;
    }
    Ok(recorded)
}

/// A refill request as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct RefillRow {
    id: RefillRequestId,
    agent_id: PharmacyAgentId,
    request_id: String,
    unique_id: Option<String>,
    caller_number: String,
    rx_numbers: String,
    outcome: RefillOutcome,
    time: String,
}

impl From<RefillRow> for RefillRequest {
    fn from(row: RefillRow) -> RefillRequest {
        RefillRequest {
            id: row.id,
            agent_id: row.agent_id,
            request_id: row.request_id,
            unique_id: row.unique_id,
            caller_number: row.caller_number,
            rx_numbers: serde_json::from_str(&row.rx_numbers).unwrap_or_default(),
            outcome: row.outcome,
            time: row.time,
        }
    }
}

/// Lists the refill requests of `agent` (already read in the caller's scope).
#[boxed]
pub async fn list_refills(
    db: &Db,
    agent: PharmacyAgentId,
    filter: &RefillFilter,
    query: &ListQuery,
) -> Result<Listing<RefillRow>> {
    let mut select = Query::select()
        .columns([
            ("r", "id"),
            ("r", "agent_id"),
            ("r", "request_id"),
            ("r", "unique_id"),
            ("r", "caller_number"),
            ("r", "rx_numbers"),
            ("r", "outcome"),
            ("r", "time"),
        ])
        .from_as("refill_requests", "r")
        .and_where(Expr::col(("r", "agent_id")).eq(agent.get()))
        .take();
    if let Some(outcome) = &filter.outcome {
        select.and_where(Expr::col(("r", "outcome")).eq(outcome.as_str()));
    }
    // Times are stored as ISO 8601 UTC with seconds, so they compare as text.
    if let Some(since) = filter.date_from {
        select.and_where(Expr::col(("r", "time")).gte(iso(since)));
    }
    if let Some(until) = filter.date_to {
        select.and_where(Expr::col(("r", "time")).lt(iso(until)));
    }
    list::run(db, select, <RefillRequest as Listed>::SPEC, query).await
}
