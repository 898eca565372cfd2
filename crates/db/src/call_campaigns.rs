//! Call campaigns and their records: the campaign with its answered-call destination
//! (the shared destination lists), its status moves checked against the row as written,
//! records added one by one or imported in bulk (one per number, kept by a unique
//! constraint so concurrent imports never both create a number), the CSV export, and the
//! dial-time step that turns due records into calls.

use std::collections::HashMap;

use futures::stream::BoxStream;
use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, CallCampaignId, CampaignRecordId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::call_campaign::{
    CallAttempt, CallCampaign, CallingWindow, CampaignFilter, CampaignRecord, CampaignStatus,
    CreateCallCampaign, RecordFilter, RecordStatus, UpdateCallCampaign, may_move,
};
use switchboard_domain::records::call_outcome;
use switchboard_domain::serde::{Deserialize, Serialize};
use switchboard_domain::validation::iso;

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::opt_outs;
use crate::scope;

/// The destination list's name.
const DESTINATION: &str = "destination";

/// A campaign row before its destination is attached.
#[derive(sqlx::FromRow)]
pub struct Row {
    id: i64,
    tenant_id: i64,
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

fn select(scope: &Scope) -> SelectStatement {
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
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut lists = destinations::load_on(reader, Owner::CallCampaign, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| CallCampaign {
            id: CallCampaignId(row.id),
            tenant_id: TenantId(row.tenant_id),
            branch_id: row.branch_id.map(BranchId),
            name: row.name,
            caller_id_number: row.caller_id_number,
            destination: lists
                .remove(&(row.id, DESTINATION.to_owned()))
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
pub async fn get(db: &Db, scope: &Scope, id: CallCampaignId) -> Result<CallCampaign> {
    let row: Row = crud::get(db, select(scope), "c.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// The country `tenant` reads national numbers in.
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

/// The columns of a campaign record as the API answers it.
const RECORD_COLUMNS: [&str; 10] = [
    "id",
    "campaign_id",
    "number",
    "name",
    "status",
    "outcome",
    "attempts",
    "last_attempt_at",
    "next_attempt_at",
    "created_at",
];

fn record_select(campaign: CallCampaignId) -> SelectStatement {
    Query::select()
        .columns(RECORD_COLUMNS)
        .from("campaign_records")
        .and_where(Expr::col("campaign_id").eq(campaign.get()))
        .take()
}

fn filtered(campaign: CallCampaignId, filter: &RecordFilter) -> SelectStatement {
    let mut select = record_select(campaign);
    if let Some(status) = &filter.status {
        select.and_where(Expr::col("status").eq(status.as_str()));
    }
    if let Some(outcome) = &filter.outcome {
        select.and_where(Expr::col("outcome").eq(outcome.as_str()));
    }
    select
}

/// Lists the records of `campaign` (already found in the caller's scope).
pub async fn list_records(
    db: &Db,
    campaign: CallCampaignId,
    filter: &RecordFilter,
    query: &ListQuery,
) -> Result<Listing<CampaignRecord>> {
    list::run(db, filtered(campaign, filter), CampaignRecord::SPEC, query).await
}

/// How many records of `campaign` the filter and search of `query` match.
pub async fn count_records(
    db: &Db,
    campaign: CallCampaignId,
    filter: &RecordFilter,
    query: &ListQuery,
) -> Result<i64> {
    let mut select = filtered(campaign, filter);
    if let Some(search) = list::search(db, CampaignRecord::SPEC, query) {
        select.cond_where(search);
    }
    let count = Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from_subquery(select, "matching")
        .take();
    db.conn().scalar(&count).await
}

/// Every record the export of `query` matches, sorted, read in rounds (flat memory).
pub fn stream_records(
    db: &Db,
    campaign: CallCampaignId,
    filter: &RecordFilter,
    query: &ListQuery,
) -> BoxStream<'static, Result<CampaignRecord>> {
    list::stream(db, filtered(campaign, filter), CampaignRecord::SPEC, query)
}

/// One record of `campaign`.
pub async fn get_record(
    db: &Db,
    campaign: CallCampaignId,
    id: CampaignRecordId,
) -> Result<CampaignRecord> {
    crud::get(db, record_select(campaign), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it) (its calls are not the record's: an entry would
/// grow with every attempt the engine reports).
pub(crate) async fn present_record(tx: &mut Tx, id: i64) -> Result<Option<CampaignRecord>> {
    let select = Query::select()
        .columns(RECORD_COLUMNS)
        .from("campaign_records")
        .take();
    crud::find_on(tx, select, "id", id).await
}

/// Records `ids` as [`present_record`] reads one, in one statement (an import's records
/// for the audit trail).
pub(crate) async fn present_records(tx: &mut Tx, ids: &[i64]) -> Result<Vec<CampaignRecord>> {
    let select = Query::select()
        .columns(RECORD_COLUMNS)
        .from("campaign_records")
        .and_where(Expr::col("id").is_in(ids.iter().copied()))
        .take();
    tx.read_all(&select).await
}

/// What adding one number to a campaign did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Added {
    /// A new record, by id.
    Created(i64),
    /// The campaign already holds the number: the existing record's id.
    Duplicate(i64),
    /// The number is on an opt-out list of this level.
    OptedOut(String),
}

/// A number to add, already E.164.
#[derive(Clone, Debug)]
pub struct NewRecord {
    /// E.164.
    pub number: String,
    /// Who is called.
    pub name: Option<String>,
}

/// Adds `records` to `campaign` of `tenant` in one transaction, answering per record what
/// happened, in order: the opt-out lists are read first (a listed number is never
/// added), then every other number is inserted unless the campaign holds it — decided by
/// the unique constraint (`ON CONFLICT DO NOTHING`), so two concurrent imports of one
/// number create it once and the other reports the duplicate with its id.
pub async fn add_records(
    db: &Db,
    tenant: TenantId,
    campaign: CallCampaignId,
    records: Vec<NewRecord>,
) -> Result<Vec<Added>> {
    let mut tx = db.begin().await?;
    let mut listed: HashMap<String, String> = HashMap::new();
    let numbers: Vec<String> = records.iter().map(|r| r.number.clone()).collect();
    for chunk in numbers.chunks(opt_outs::CHUNK) {
        let rows: Vec<(String, String)> = tx
            .fetch_all(&opt_outs::applying(tenant, Some(campaign), chunk))
            .await?;
        for (number, level) in rows {
            let widest = match listed.get(&number) {
                Some(known) if opt_outs::rank(known) <= opt_outs::rank(&level) => known.clone(),
                _ => level,
            };
            listed.insert(number, widest);
        }
    }
    let now = iso(chrono::Utc::now());
    let mut created: HashMap<String, i64> = HashMap::new();
    let mut fresh: Vec<&NewRecord> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for record in &records {
        if !listed.contains_key(&record.number) && seen.insert(record.number.as_str()) {
            fresh.push(record);
        }
    }
    for chunk in fresh.chunks(opt_outs::CHUNK / 2) {
        let mut insert = Query::insert();
        insert.into_table("campaign_records").columns([
            "campaign_id",
            "tenant_id",
            "number",
            "name",
            "status",
            "attempts",
            "next_attempt_at",
            "created_at",
        ]);
        for record in chunk {
            insert.values_panic([
                campaign.get().into(),
                tenant.get().into(),
                record.number.clone().into(),
                record.name.clone().into(),
                "pending".into(),
                0i64.into(),
                now.clone().into(),
                now.clone().into(),
            ]);
        }
        insert
            .on_conflict(
                sea_query::OnConflict::columns(["campaign_id", "number"])
                    .do_nothing()
                    .to_owned(),
            )
            .returning(Query::returning().columns(["id", "number"]));
        let rows: Vec<(i64, String)> = tx.fetch_all(&insert).await?;
        // Each new record is audited on its own, in two statements per chunk.
        let ids: Vec<i64> = rows.iter().map(|(id, _)| *id).collect();
        crate::audit::created_many(&mut tx, "campaign_records", &ids, Some(tenant)).await?;
        created.extend(rows.into_iter().map(|(id, number)| (number, id)));
    }
    let others: Vec<String> = fresh
        .iter()
        .filter(|r| !created.contains_key(&r.number))
        .map(|r| r.number.clone())
        .collect();
    let mut existing: HashMap<String, i64> = HashMap::new();
    for chunk in others.chunks(opt_outs::CHUNK) {
        let select = Query::select()
            .columns(["id", "number"])
            .from("campaign_records")
            .and_where(Expr::col("campaign_id").eq(campaign.get()))
            .and_where(Expr::col("number").is_in(chunk.iter().cloned()))
            .take();
        let rows: Vec<(i64, String)> = tx.fetch_all(&select).await?;
        existing.extend(rows.into_iter().map(|(id, number)| (number, id)));
    }
    tx.commit().await?;
    let mut reported = std::collections::HashSet::new();
    Ok(records
        .iter()
        .map(|record| {
            if let Some(level) = listed.get(&record.number) {
                return Added::OptedOut(level.clone());
            }
            match created.get(&record.number) {
                // The first row of a number in this request created it; a repeat is its duplicate.
                Some(&id) if reported.insert(record.number.clone()) => Added::Created(id),
                Some(&id) => Added::Duplicate(id),
                None => existing
                    .get(&record.number)
                    .map_or(Added::Duplicate(0), |&id| Added::Duplicate(id)),
            }
        })
        .collect())
}

/// Changes a record: a new number (E.164, checked against the opt-out lists here, in
/// the writing transaction), a name, or `pending` (its attempts start over) / `skipped`.
pub async fn update_record(
    db: &Db,
    tenant: TenantId,
    campaign: CallCampaignId,
    id: CampaignRecordId,
    number: Option<String>,
    name: Option<Option<String>>,
    status: Option<RecordStatus>,
) -> Result<std::result::Result<CampaignRecord, String>> {
    let mut tx = db.begin().await?;
    let mut visible = record_select(campaign);
    visible.and_where(Expr::col("id").eq(id.get()));
    let current = tx.fetch_one::<CampaignRecord>(&visible).await?;
    let mut changes: Changes = Vec::new();
    if let Some(number) = number {
        if let Some(level) = opt_outs::level_of(&mut tx, tenant, Some(campaign), &number).await? {
            return Ok(Err(level));
        }
        changes.push(("number", number.into()));
    }
    if let Some(name) = name {
        changes.push(("name", name.into()));
    }
    // The status it has already is no step: a record sent back as it was read is not
    // dialled again (interface §2).
    if let Some(status) = status.filter(|status| *status != current.status) {
        if status == RecordStatus::Pending {
            changes.push(("attempts", 0i64.into()));
            changes.push(("outcome", Option::<String>::None.into()));
            changes.push(("next_attempt_at", iso(chrono::Utc::now()).into()));
        } else {
            changes.push(("next_attempt_at", Option::<String>::None.into()));
        }
        changes.push(("status", status.as_str().into()));
    }
    if !changes.is_empty() {
        // Through `crud`: the change is audited (`call-campaign-record`).
        crud::update_in(&mut tx, "campaign_records", id.get(), changes).await?;
    }
    let record = tx.fetch_one(&visible).await?;
    tx.commit().await?;
    Ok(Ok(record))
}

/// Deletes a record of `campaign`, answering it as it was.
pub async fn delete_record(
    db: &Db,
    campaign: CallCampaignId,
    id: CampaignRecordId,
) -> Result<CampaignRecord> {
    let record = get_record(db, campaign, id).await?;
    let mut tx = db.begin().await?;
    // Through `crud`: the deletion is audited (`call-campaign-record`).
    if crud::delete_in(&mut tx, "campaign_records", id.get()).await? == 0 {
        return Err(Error::NotFound);
    }
    tx.commit().await?;
    Ok(record)
}

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
        let campaign = CallCampaignId(row.id);
        let tenant = TenantId(row.tenant_id);
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
                    .and_where(Expr::col("owner_id").eq(row.id))
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
    pub campaign_id: i64,
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
pub async fn record_result(
    tx: &mut Tx,
    id: CampaignRecordId,
    outcome: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Resulted> {
    #[derive(sqlx::FromRow)]
    struct Context {
        campaign_id: i64,
        tenant_id: i64,
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
                .and_where(Expr::col("tenant_id").eq(context.tenant_id))
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
                tenant: Some(TenantId(context.tenant_id)),
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

/// The calls placed for record `id` whose results came, oldest first: the results of
/// its `campaign-call` jobs (one job per call; a job whose lease ran out is one call).
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
            .and_where(Expr::col("tenant_id").eq(job.tenant_id))
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

#[derive(sqlx::FromRow)]
struct Claimed {
    status: String,
    number: String,
    campaign_id: i64,
    tenant_id: i64,
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
            TenantId(record.tenant_id),
            Some(CallCampaignId(record.campaign_id)),
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
