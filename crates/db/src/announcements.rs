//! Announcements with their media file, branch and ordered IVRs.

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{AnnouncementId, BranchId, MediaFileId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::announcement::{
    Announcement, AnnouncementFilter, AnnouncementIvr, AnnouncementMediaFile, IvrLink,
    UpdateAnnouncement,
};
use switchboard_domain::records::business_hour::BranchRef;

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// An announcement row before its IVRs are attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: AnnouncementId,
    tenant_id: TenantId,
    name: String,
    description: String,
    media_file_id: MediaFileId,
    media_file_name: String,
    media_file_tenant_id: TenantId,
    active: i64,
    start_date: String,
    end_date: String,
    branch_id: BranchId,
    branch_name: String,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .column(("a", "id"))
        .column(("a", "tenant_id"))
        .column(("a", "name"))
        .column(("a", "description"))
        .column(("a", "media_file_id"))
        .expr_as(Expr::col(("m", "name")), "media_file_name")
        .expr_as(Expr::col(("m", "tenant_id")), "media_file_tenant_id")
        .column(("a", "active"))
        .column(("a", "start_date"))
        .column(("a", "end_date"))
        .column(("a", "branch_id"))
        .expr_as(Expr::col(("b", "name")), "branch_name")
        .from_as("announcements", "a")
        .inner_join(
            TableRef::from("media_files").alias("m"),
            Expr::col(("m", "id")).equals(("a", "media_file_id")),
        )
        .inner_join(
            TableRef::from("branches").alias("b"),
            Expr::col(("b", "id")).equals(("a", "branch_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("a", "tenant_id"))))
        .cond_where(scope::branch(scope, Expr::col(("a", "branch_id"))))
        .take()
}

#[derive(switchboard_domain::declare::FromRow)]
struct IvrRow {
    announcement_id: AnnouncementId,
    #[sqlx(flatten)]
    ivr: AnnouncementIvr,
}

async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<Announcement>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<Announcement>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut ivrs: HashMap<AnnouncementId, Vec<AnnouncementIvr>> = HashMap::new();
    if !ids.is_empty() {
        let select = Query::select()
            .column(("l", "announcement_id"))
            .column(("i", "id"))
            .column(("i", "name"))
            .column(("i", "tenant_id"))
            .expr_as(Expr::col(("l", "position")), "order")
            .from_as("announcement_ivrs", "l")
            .inner_join(
                TableRef::from("ivrs").alias("i"),
                Expr::col(("i", "id")).equals(("l", "ivr_id")),
            )
            .and_where(Expr::col(("l", "announcement_id")).is_in(ids.iter().copied()))
            .order_by(("l", "announcement_id"), sea_query::Order::Asc)
            .order_by(("l", "position"), sea_query::Order::Asc)
            .order_by(("i", "id"), sea_query::Order::Asc)
            .take();
        let rows: Vec<IvrRow> = reader.read_all(&select).await?;
        for row in rows {
            ivrs.entry(row.announcement_id).or_default().push(row.ivr);
        }
    }
    Ok(rows
        .into_iter()
        .map(|row| Announcement {
            id: row.id,
            tenant_id: row.tenant_id,
            name: row.name,
            description: row.description,
            media_file: AnnouncementMediaFile {
                id: row.media_file_id,
                name: row.media_file_name,
                tenant_id: row.media_file_tenant_id,
            },
            active: row.active,
            start_date: row.start_date,
            end_date: row.end_date,
            ivrs: ivrs.remove(&row.id).unwrap_or_default(),
            branch: BranchRef {
                id: row.branch_id,
                name: row.branch_name,
            },
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Announcement>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "a.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the announcements the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &AnnouncementFilter,
    query: &ListQuery,
) -> Result<Listing<Announcement>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.place.tenant.tenant_id {
        select.and_where(Expr::col(("a", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        select.and_where(Expr::col(("a", "branch_id")).eq(branch.get()));
    }
    if let Some(active) = filter.active {
        select.and_where(Expr::col(("a", "active")).eq(i64::from(active)));
    }
    list::run_completed(db, select, Announcement::SPEC, query, complete).await
}

/// One announcement.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: AnnouncementId) -> Result<Announcement> {
    let row: Row = crud::get(db, select(scope), "a.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

async fn replace_ivrs(tx: &mut Tx, id: i64, links: &[IvrLink]) -> Result<()> {
    let delete = Query::delete()
        .from_table("announcement_ivrs")
        .and_where(Expr::col("announcement_id").eq(id))
        .take();
    tx.execute(&delete).await?;
    for (index, link) in links.iter().enumerate() {
        let insert = Query::insert()
            .into_table("announcement_ivrs")
            .columns(["announcement_id", "ivr_id", "position"])
            .values_panic([id.into(), link.id.get().into(), link.position(index).into()])
            .take();
        tx.execute(&insert).await?;
    }
    Ok(())
}

/// Creates an announcement of `tenant` in `branch` (media file and IVRs checked by the caller).
#[boxed]
pub async fn create(
    db: &Db,
    tenant: TenantId,
    branch: BranchId,
    mut fields: UpdateAnnouncement,
) -> Result<Announcement> {
    fields.branch_id = Some(branch);
    let values = changes::with_tenant(tenant, &fields);
    let mut tx = db.begin().await?;
    let id = crud::insert_in(&mut tx, "announcements", values).await?;
    replace_ivrs(&mut tx, id, fields.ivrs.as_deref().unwrap_or_default()).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, AnnouncementId(id)).await
}

/// Changes an announcement; a sent `ivrs` list replaces the current one.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: AnnouncementId,
    fields: UpdateAnnouncement,
) -> Result<Announcement> {
    get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "announcements", id.get(), changes::of(&fields)).await?;
    if let Some(links) = &fields.ivrs {
        replace_ivrs(&mut tx, id.get(), links).await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes an announcement and its IVR links, answering it as it was.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: AnnouncementId) -> Result<Announcement> {
    let current = get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    // The IVR links go with it (ON DELETE CASCADE), after its audit entry's snapshot.
    if crud::delete_in(&mut tx, "announcements", id.get()).await? == 0 {
        return Err(crate::Error::NotFound);
    }
    tx.commit().await?;
    Ok(current)
}
