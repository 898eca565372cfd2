//! Opt-out (do-not-call) lists at platform, tenant and campaign level, and the one check
//! every dialling path asks: is this number on a list that applies to this campaign?

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{CallCampaignId, OptOutId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::opt_out::{OptOut, OptOutFilter, UpdateOptOut};
use switchboard_domain::validation::iso;

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::error::Result;
use crate::list::{self, Listing};
use crate::scope;

/// Numbers per `IN (…)` list, well inside both backends' parameter limits.
pub const CHUNK: usize = 500;

/// The scoped read: platform entries are the platform admin's alone (a tenant never
/// learns what another tenant's or the platform's list holds, only that its number is
/// refused and by which level).
fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            "id",
            "level",
            "tenant_id",
            "campaign_id",
            "number",
            "source",
            "reason",
            "created_at",
            "expires_at",
        ])
        .from("opt_outs")
        .cond_where(scope::tenants(scope, Expr::col("tenant_id")))
        .take()
}

/// Lists the entries the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &OptOutFilter,
    query: &ListQuery,
) -> Result<Listing<OptOut>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col("tenant_id").eq(tenant.get()));
    }
    if let Some(level) = &filter.level {
        select.and_where(Expr::col("level").eq(level.as_str()));
    }
    if let Some(campaign) = filter.campaign_id {
        select.and_where(Expr::col("campaign_id").eq(campaign.get()));
    }
    list::run(db, select, OptOut::SPEC, query).await
}

/// One entry.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: OptOutId) -> Result<OptOut> {
    crud::get(db, select(scope), "id", id.get()).await
}

/// Row `id` as the API answers it, read in `tx` whatever its tenant (the audit trail's
/// snapshot of it).
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<OptOut>> {
    crud::find_on(tx, select(&Scope::Platform), "id", id).await
}

/// Rows `ids` as the API answers them, in one statement (an import's entries for the
/// audit trail).
pub(crate) async fn present_many(tx: &mut Tx, ids: &[i64]) -> Result<Vec<OptOut>> {
    let select = select(&Scope::Platform)
        .and_where(Expr::col("id").is_in(ids.iter().copied()))
        .take();
    tx.read_all(&select).await
}

/// A new entry, its number already E.164 and its level's owner checked.
#[derive(Clone, Debug)]
pub struct NewOptOut {
    /// `platform`, `tenant` or `campaign`.
    pub level: String,
    /// The tenant (none for the platform's list).
    pub tenant: Option<TenantId>,
    /// The campaign of a campaign entry.
    pub campaign: Option<CallCampaignId>,
    /// E.164.
    pub number: String,
    /// Where it came from.
    pub source: String,
    /// Why.
    pub reason: Option<String>,
    /// When it stops applying (ISO 8601 UTC).
    pub expires_at: Option<String>,
}

fn list_key(entry: &NewOptOut) -> String {
    match (entry.level.as_str(), entry.tenant, entry.campaign) {
        ("campaign", _, Some(campaign)) => format!("campaign:{}", campaign.get()),
        ("tenant", Some(tenant), _) => format!("tenant:{}", tenant.get()),
        _ => "platform".to_owned(),
    }
}

/// Adds `entry` in `tx` unless its list already holds the number, answering the entry's
/// id and whether it is new. A repeat changes nothing (the first reason stands).
#[boxed]
pub async fn add_in(tx: &mut Tx, entry: NewOptOut) -> Result<crud::Recorded> {
    let key = list_key(&entry);
    crud::insert_once(
        tx,
        "opt_outs",
        &["list_key", "number"],
        vec![
            ("level", entry.level.into()),
            ("tenant_id", entry.tenant.map(|t| t.get()).into()),
            ("campaign_id", entry.campaign.map(|c| c.get()).into()),
            ("list_key", key.into()),
            ("number", entry.number.into()),
            ("source", entry.source.into()),
            ("reason", entry.reason.into()),
            ("created_at", iso(chrono::Utc::now()).into()),
            ("expires_at", entry.expires_at.into()),
        ],
    )
    .await
}

/// Adds one entry; a number its list already holds is a conflict naming the entry.
#[boxed]
pub async fn create(db: &Db, entry: NewOptOut) -> Result<OptOut> {
    let mut tx = db.begin().await?;
    let recorded = add_in(&mut tx, entry).await?;
    tx.commit().await?;
    if !recorded.new {
        return Err(crate::Error::Conflict(format!(
            "the list already holds this number (opt-out {})",
            recorded.id
        )));
    }
    get(db, &Scope::Platform, OptOutId(recorded.id)).await
}

/// Adds many entries in one transaction, answering per entry, in order, its id and
/// whether it is new: bulk inserts of up to [`CHUNK`]` / 2` rows with `ON CONFLICT DO
/// NOTHING RETURNING` (so a concurrent import of one number creates it once), then one
/// read per list for the numbers already held, and one audit statement per chunk — a
/// handful of statements per 250 rows, not two per row. A number its list holds, or an
/// earlier row of the import added, is `new: false` with that entry's id (the first
/// reason stands).
#[boxed]
pub async fn import(db: &Db, entries: Vec<NewOptOut>) -> Result<Vec<crud::Recorded>> {
    use std::collections::{HashMap, HashSet};
    let keys: Vec<(String, String)> = entries
        .iter()
        .map(|e| (list_key(e), e.number.clone()))
        .collect();
    let mut seen = HashSet::new();
    let first: Vec<usize> = (0..entries.len())
        .filter(|&i| seen.insert(&keys[i]))
        .collect();
    let created_at = iso(chrono::Utc::now());
    let mut tx = db.begin().await?;
    let mut ids: HashMap<(String, String), i64> = HashMap::new();
    let mut created: HashSet<(String, String)> = HashSet::new();
    for chunk in first.chunks(CHUNK / 2) {
        let mut insert = Query::insert();
        insert.into_table("opt_outs").columns([
            "level",
            "tenant_id",
            "campaign_id",
            "list_key",
            "number",
            "source",
            "reason",
            "created_at",
            "expires_at",
        ]);
        for &i in chunk {
            let entry = &entries[i];
            insert.values_panic([
                entry.level.clone().into(),
                entry.tenant.map(|t| t.get()).into(),
                entry.campaign.map(|c| c.get()).into(),
                keys[i].0.clone().into(),
                entry.number.clone().into(),
                entry.source.clone().into(),
                entry.reason.clone().into(),
                created_at.clone().into(),
                entry.expires_at.clone().into(),
            ]);
        }
        insert
            .on_conflict(
                sea_query::OnConflict::columns(["list_key", "number"])
                    .do_nothing()
                    .to_owned(),
            )
            .returning(Query::returning().columns(["id", "list_key", "number"]));
        let rows: Vec<(i64, String, String)> = tx.fetch_all(&insert).await?;
        let new_ids: Vec<i64> = rows.iter().map(|(id, _, _)| *id).collect();
        crate::audit::created_many(&mut tx, "opt_outs", &new_ids, None).await?;
        for (id, key, number) in rows {
            created.insert((key.clone(), number.clone()));
            ids.insert((key, number), id);
        }
    }
    // The numbers their lists held already, read list by list.
    let mut held: HashMap<&str, Vec<String>> = HashMap::new();
    for &i in &first {
        if !ids.contains_key(&keys[i]) {
            held.entry(keys[i].0.as_str())
                .or_default()
                .push(keys[i].1.clone());
        }
    }
    for (key, numbers) in held {
        for chunk in numbers.chunks(CHUNK) {
            let select = Query::select()
                .columns(["id", "number"])
                .from("opt_outs")
                .and_where(Expr::col("list_key").eq(key))
                .and_where(Expr::col("number").is_in(chunk.iter().cloned()))
                .take();
            let rows: Vec<(i64, String)> = tx.fetch_all(&select).await?;
            for (id, number) in rows {
                ids.insert((key.to_owned(), number), id);
            }
        }
    }
    tx.commit().await?;
    keys.into_iter()
        .map(|key| {
            let id = *ids.get(&key).ok_or(crate::Error::NotFound)?;
            // Only the first row of a number is the one that created it.
            let new = created.remove(&key);
            Ok(crud::Recorded { id, new })
        })
        .collect()
}

/// Changes an entry's reason or expiry.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: OptOutId, body: UpdateOptOut) -> Result<OptOut> {
    let mut changes: Changes = Vec::new();
    if let Some(reason) = body.reason {
        changes.push(("reason", reason.into()));
    }
    if let Some(expires) = body.expires_at {
        changes.push(("expires_at", expires.map(iso).into()));
    }
    crud::update(db, select(scope), "id", "opt_outs", id.get(), changes).await
}

/// Removes an entry.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: OptOutId) -> Result<OptOut> {
    crud::delete(db, select(scope), "id", "opt_outs", id.get()).await
}

/// The entries of `numbers` that apply to a campaign of `tenant` (`campaign`, when named)
/// now: the platform's, the tenant's and the campaign's own, unexpired; answers
/// `(number, level)`, the platform's first, then the tenant's, then the campaign's.
pub fn applying(
    tenant: TenantId,
    campaign: Option<CallCampaignId>,
    numbers: &[String],
) -> SelectStatement {
    let now = iso(chrono::Utc::now());
    let mut lists = Condition::any()
        .add(Expr::col("list_key").eq("platform"))
        .add(Expr::col("list_key").eq(format!("tenant:{}", tenant.get())));
    if let Some(campaign) = campaign {
        lists = lists.add(Expr::col("list_key").eq(format!("campaign:{}", campaign.get())));
    }
    Query::select()
        .columns(["number", "level"])
        .from("opt_outs")
        .and_where(Expr::col("number").is_in(numbers.iter().cloned()))
        .cond_where(lists)
        .cond_where(
            Condition::any()
                .add(Expr::col("expires_at").is_null())
                .add(Expr::col("expires_at").gt(now)),
        )
        .order_by("id", sea_query::Order::Asc)
        .take()
}

/// Orders levels as a refusal names them: the widest list first.
pub fn rank(level: &str) -> u8 {
    match level {
        "platform" => 0,
        "tenant" => 1,
        _ => 2,
    }
}

/// The level of the widest list holding `number` for a campaign of `tenant`, if any.
#[boxed]
pub async fn level_of(
    tx: &mut Tx,
    tenant: TenantId,
    campaign: Option<CallCampaignId>,
    number: &str,
) -> Result<Option<String>> {
    let rows: Vec<(String, String)> = tx
        .fetch_all(&applying(tenant, campaign, &[number.to_owned()]))
        .await?;
    Ok(rows
        .into_iter()
        .map(|(_, level)| level)
        .min_by_key(|level| rank(level)))
}
