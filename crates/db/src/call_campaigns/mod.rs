//! Call campaigns and their records: the campaign with its answered-call destination
//! (the shared destination lists), its status moves checked against the row as written,
//! records added one by one or imported in bulk (one per number, kept by a unique
//! constraint so concurrent imports never both create a number), the CSV export, and the
//! dial-time step that turns due records into calls.

mod dialling;
mod engine;
mod records;

pub use dialling::{Dial, Due, Resulted, record_result, take_due};
pub use engine::{
    CALL_JOBS, CAMPAIGN_CALL_COMPLETED, CallDestination, CampaignCall, call_attempts, schedule,
};
pub use records::{
    Added, NewRecord, add_records, count_records, delete_record, get_record, list_records,
    stream_records, update_record,
};
pub(crate) use records::{present_record, present_records};

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, CallCampaignId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::call_campaign::{
    CallCampaign, CallingWindow, CampaignFilter, CampaignStatus, CreateCallCampaign,
    UpdateCallCampaign, may_move,
};
use switchboard_domain::validation::iso;

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The destination list's name.
pub(super) const DESTINATION: &str = "destination";

/// A campaign row before its destination is attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: CallCampaignId,
    tenant_id: TenantId,
    branch_id: Option<i64>,
    name: String,
    caller_id_number: String,
    window_days: String,
    window_from: String,
    window_to: String,
    time_zone: String,
    max_attempts: i64,
    retry_delay_minutes: i64,
    status: CampaignStatus,
    start_at: Option<String>,
    created_at: String,
}

pub(super) fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns(
            [
                "id",
                "tenant_id",
                "branch_id",
                "name",
                "caller_id_number",
                "window_days",
                "window_from",
                "window_to",
                "time_zone",
                "max_attempts",
                "retry_delay_minutes",
                "status",
                "start_at",
                "created_at",
            ]
            .map(|c| ("c", c)),
        )
        .from_as("call_campaigns", "c")
        .cond_where(scope::tenants(scope, Expr::col(("c", "tenant_id"))))
        .take()
}

fn days_text(days: &[i64]) -> String {
    days.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Attaches the destination of every campaign in `rows`, with one query.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<CallCampaign>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<CallCampaign>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut lists = destinations::load_on(reader, Owner::CallCampaign, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| CallCampaign {
            id: row.id,
            tenant_id: row.tenant_id,
            branch_id: row.branch_id.map(BranchId),
            name: row.name,
            caller_id_number: row.caller_id_number,
            destination: lists
                .remove(&(row.id.get(), DESTINATION.to_owned()))
                .and_then(|list| list.into_iter().next()),
            calling_window: CallingWindow {
                days: row
                    .window_days
                    .split(',')
                    .filter_map(|d| d.parse().ok())
                    .collect(),
                from: row.window_from,
                to: row.window_to,
                time_zone: row.time_zone,
            },
            max_attempts: row.max_attempts,
            retry_delay_minutes: row.retry_delay_minutes,
            status: row.status,
            start_at: row.start_at,
            created_at: row.created_at,
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<CallCampaign>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "c.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the campaigns the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &CampaignFilter,
    query: &ListQuery,
) -> Result<Listing<CallCampaign>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant.tenant_id {
        select.and_where(Expr::col(("c", "tenant_id")).eq(tenant.get()));
    }
    if let Some(status) = &filter.status {
        select.and_where(Expr::col(("c", "status")).eq(status.as_str()));
    }
    list::run_completed(db, select, CallCampaign::SPEC, query, complete).await
}

/// One campaign.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: CallCampaignId) -> Result<CallCampaign> {
    let row: Row = crud::get(db, select(scope), "c.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// The country `tenant` reads national numbers in.
#[boxed]
pub async fn tenant_country(db: &Db, tenant: TenantId) -> Result<String> {
    let select = Query::select()
        .column("default_country")
        .from("tenants")
        .and_where(Expr::col("id").eq(tenant.get()))
        .take();
    db.conn().scalar(&select).await
}

/// Whether `tenant` holds a phone number written as any of `spellings`
/// (`phone::spellings`: the same number however it was written).
#[boxed]
pub async fn tenant_has_number(db: &Db, tenant: TenantId, spellings: &[String]) -> Result<bool> {
    let select = Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from("phone_numbers")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("number").is_in(spellings.iter().cloned()))
        .take();
    Ok(db.conn().scalar::<i64>(&select).await? > 0)
}

/// Creates a campaign of `tenant` (its caller id normalised and checked, its destination
/// checked against the tenant by the caller).
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    caller_id: String,
    body: CreateCallCampaign,
) -> Result<CallCampaign> {
    let window = body.calling_window.answer();
    let mut tx = db.begin().await?;
    let id = crud::insert_in(
        &mut tx,
        "call_campaigns",
        vec![
            ("tenant_id", tenant.get().into()),
            ("branch_id", body.branch_id.map(|b| b.get()).into()),
            ("name", body.name.into()),
            ("caller_id_number", caller_id.into()),
            ("window_days", days_text(&window.days).into()),
            ("window_from", window.from.into()),
            ("window_to", window.to.into()),
            ("time_zone", window.time_zone.into()),
            ("max_attempts", body.max_attempts.into()),
            ("retry_delay_minutes", body.retry_delay_minutes.into()),
            ("status", body.status.as_str().into()),
            ("start_at", body.start_at.map(iso).into()),
            ("created_at", iso(chrono::Utc::now()).into()),
        ],
    )
    .await?;
    destinations::replace(
        &mut tx,
        tenant,
        Owner::CallCampaign,
        id,
        DESTINATION,
        &body.destination,
    )
    .await?;
    tx.commit().await?;
    get(db, &Scope::Platform, CallCampaignId(id)).await
}

/// Changes a campaign. A new status must be a step the campaign may take from the status
/// it has when written (409 otherwise, and when another change moved it meanwhile).
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: CallCampaignId,
    caller_id: Option<String>,
    body: UpdateCallCampaign,
) -> Result<CallCampaign> {
    let current = get(db, scope, id).await?;
    let mut changes: Changes = Vec::new();
    if let Some(branch) = body.branch_id {
        changes.push(("branch_id", branch.map(|b| b.get()).into()));
    }
    if let Some(name) = body.name {
        changes.push(("name", name.into()));
    }
    if let Some(caller_id) = caller_id {
        changes.push(("caller_id_number", caller_id.into()));
    }
    if let Some(window) = &body.calling_window {
        let window = window.answer();
        changes.push(("window_days", days_text(&window.days).into()));
        changes.push(("window_from", window.from.into()));
        changes.push(("window_to", window.to.into()));
        changes.push(("time_zone", window.time_zone.into()));
    }
    if let Some(max) = body.max_attempts {
        changes.push(("max_attempts", max.into()));
    }
    if let Some(delay) = body.retry_delay_minutes {
        changes.push(("retry_delay_minutes", delay.into()));
    }
    if let Some(start) = body.start_at {
        changes.push(("start_at", start.map(iso).into()));
    }
    let mut condition = Condition::all();
    if let Some(status) = body.status {
        if !may_move(current.status, status) {
            return Err(Error::Conflict(format!(
                "a {} campaign cannot become {status}",
                current.status
            )));
        }
        changes.push(("status", status.as_str().into()));
        // Written only while the status is still the one the step was judged from.
        condition = condition.add(Expr::col("status").eq(current.status.as_str()));
    }
    let mut tx = db.begin().await?;
    // A change of nothing but its destination (or of nothing: `{}`) writes no row of its
    // own; an UPDATE with nothing to set is no statement.
    if !changes.is_empty()
        && !crud::update_if(&mut tx, "call_campaigns", id.get(), condition, changes).await?
    {
        return Err(Error::Conflict(
            "the campaign's status changed meanwhile; read it again".into(),
        ));
    }
    if let Some(destination) = &body.destination {
        destinations::replace(
            &mut tx,
            current.tenant_id,
            Owner::CallCampaign,
            id.get(),
            DESTINATION,
            destination,
        )
        .await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes a campaign that is not running, with its records, its own opt-out list and
/// its destination.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: CallCampaignId) -> Result<CallCampaign> {
    let current = get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    // Judged on the row as deleted: a campaign started meanwhile is not deleted.
    let lock = Query::select()
        .column("status")
        .from("call_campaigns")
        .and_where(Expr::col("id").eq(id.get()))
        .lock(sea_query::LockType::Update)
        .take();
    let (status,): (String,) = tx.fetch_one(&lock).await?;
    if status == "running" {
        return Err(Error::Conflict(
            "a running campaign cannot be deleted; pause or cancel it first".into(),
        ));
    }
    for table in ["campaign_records", "opt_outs"] {
        let children = Query::delete()
            .from_table(table)
            .and_where(Expr::col("campaign_id").eq(id.get()))
            .take();
        tx.execute(&children).await?;
    }
    if crud::delete_in(&mut tx, "call_campaigns", id.get()).await? == 0 {
        return Err(Error::NotFound);
    }
    destinations::delete_all(&mut tx, Owner::CallCampaign, id.get()).await?;
    tx.commit().await?;
    Ok(current)
}
