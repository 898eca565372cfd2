//! A campaign's records: listed, streamed for the export, added one by one or imported
//! in bulk (one per number, kept by a unique constraint so concurrent imports never both
//! create a number, checked against the opt-out lists), changed and deleted.

use std::collections::HashMap;
use switchboard_declare::boxed;

use futures::stream::BoxStream;
use sea_query::{Expr, ExprTrait, Query, SelectStatement};
use switchboard_domain::ids::{CallCampaignId, CampaignRecordId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::call_campaign::{CampaignRecord, RecordFilter, RecordStatus};
use switchboard_domain::validation::iso;

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::opt_outs;

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

pub(super) fn record_select(campaign: CallCampaignId) -> SelectStatement {
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
#[boxed]
pub async fn list_records(
    db: &Db,
    campaign: CallCampaignId,
    filter: &RecordFilter,
    query: &ListQuery,
) -> Result<Listing<CampaignRecord>> {
    list::run(db, filtered(campaign, filter), CampaignRecord::SPEC, query).await
}

/// How many records of `campaign` the filter and search of `query` match.
#[boxed]
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
#[boxed]
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
#[boxed]
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
#[boxed]
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
#[boxed]
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
