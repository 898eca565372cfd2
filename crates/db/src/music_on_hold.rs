//! Music on hold: playlists of a tenant's media files (a destination list of MEDIA_FILE
//! entries), at most one the tenant's default (a partial unique index keeps it so).

use sea_query::{Expr, ExprTrait, LockType, Query, SelectStatement, TableRef};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::ids::{BranchId, MediaFileId, MusicOnHoldId, TenantId};
use switchboard_domain::list::{ListQuery, Listed};
use switchboard_domain::records::business_hour::BranchRef;
use switchboard_domain::records::music_on_hold::{
    CreateMusicOnHold, MusicOnHold, MusicOnHoldFilter, PlayMode, UpdateMusicOnHold,
};

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The playlist's list name.
const FILES: &str = "files";

/// A music-on-hold row before its playlist is attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: MusicOnHoldId,
    tenant_id: TenantId,
    branch_id: Option<BranchId>,
    branch_name: Option<String>,
    name: String,
    mode: PlayMode,
    is_default: i64,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .column(("h", "id"))
        .column(("h", "tenant_id"))
        .column(("h", "branch_id"))
        .expr_as(Expr::col(("b", "name")), "branch_name")
        .column(("h", "name"))
        .column(("h", "mode"))
        .column(("h", "is_default"))
        .from_as("music_on_hold", "h")
        .left_join(
            TableRef::from("branches").alias("b"),
            Expr::col(("b", "id")).equals(("h", "branch_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("h", "tenant_id"))))
        .cond_where(scope::branch_or_shared(
            scope,
            Expr::col(("h", "branch_id")),
        ))
        .take()
}

/// Attaches the playlists of every row, with one query.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<MusicOnHold>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<MusicOnHold>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut files = destinations::load_on(reader, Owner::MusicOnHold, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| MusicOnHold {
            id: row.id,
            tenant_id: row.tenant_id,
            branch_id: row.branch_id,
            branch: row
                .branch_id
                .zip(row.branch_name)
                .map(|(id, name)| BranchRef { id, name }),
            name: row.name,
            mode: row.mode,
            is_default: row.is_default != 0,
            routing_destinations: files
                .remove(&(row.id.get(), FILES.to_owned()))
                .unwrap_or_default(),
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<MusicOnHold>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "h.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the music on hold the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &MusicOnHoldFilter,
    query: &ListQuery,
) -> Result<Listing<MusicOnHold>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.place.tenant.tenant_id {
        select.and_where(Expr::col(("h", "tenant_id")).eq(tenant.get()));
    }
    if let Some(branch) = filter.place.branch_id {
        select.and_where(Expr::col(("h", "branch_id")).eq(branch.get()));
    }
    if let Some(default) = filter.is_default {
        select.and_where(Expr::col(("h", "is_default")).eq(i64::from(default)));
    }
    list::run_completed(db, select, MusicOnHold::SPEC, query, complete).await
}

/// One music on hold with its playlist.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: MusicOnHoldId) -> Result<MusicOnHold> {
    let row: Row = crud::get(db, select(scope), "h.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// Makes `id` the only default of `tenant`: the tenant's row is locked first (so two
/// such writes take turns on PostgreSQL; SQLite's write transactions already do), then
/// the current default, if another, stops being one — an audited update of its own.
async fn take_default(tx: &mut Tx, tenant: TenantId, id: Option<i64>) -> Result<()> {
    let lock = Query::select()
        .column("id")
        .from("tenants")
        .and_where(Expr::col("id").eq(tenant.get()))
        .lock(LockType::NoKeyUpdate)
        .take();
    tx.fetch_optional::<(i64,)>(&lock).await?;
    let mut current = Query::select();
    current
        .column("id")
        .from("music_on_hold")
        .and_where(Expr::col("tenant_id").eq(tenant.get()))
        .and_where(Expr::col("is_default").eq(1i64));
    if let Some(id) = id {
        current.and_where(Expr::col("id").ne(id));
    }
    let previous: Vec<(i64,)> = tx.fetch_all(&current).await?;
    for (previous,) in previous {
        crud::update_in(
            tx,
            "music_on_hold",
            previous,
            vec![("is_default", 0i64.into())],
        )
        .await?;
    }
    Ok(())
}

/// Creates a music on hold of `tenant` (its branch and files checked by the caller to be
/// the tenant's) with its playlist.
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateMusicOnHold) -> Result<MusicOnHold> {
    let mut tx = db.begin().await?;
    if body.is_default {
        take_default(&mut tx, tenant, None).await?;
    }
    let id = crud::insert_in(
        &mut tx,
        "music_on_hold",
        changes::with_tenant(tenant, &body),
    )
    .await?;
    destinations::replace(
        &mut tx,
        tenant,
        Owner::MusicOnHold,
        id,
        FILES,
        &body.routing_destinations,
    )
    .await?;
    tx.commit().await?;
    get(db, &Scope::Platform, MusicOnHoldId(id)).await
}

/// Changes a music on hold; a sent playlist replaces the current one.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: MusicOnHoldId,
    body: UpdateMusicOnHold,
) -> Result<MusicOnHold> {
    let current = get(db, scope, id).await?;
    let changes = changes::of(&body);
    let mut tx = db.begin().await?;
    if body.is_default == Some(true) {
        take_default(&mut tx, current.tenant_id, Some(id.get())).await?;
    }
    crud::update_in(&mut tx, "music_on_hold", id.get(), changes).await?;
    if let Some(files) = &body.routing_destinations {
        destinations::replace(
            &mut tx,
            current.tenant_id,
            Owner::MusicOnHold,
            id.get(),
            FILES,
            files,
        )
        .await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes a music on hold and its playlist (the media files stay).
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: MusicOnHoldId) -> Result<MusicOnHold> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "music_on_hold", Owner::MusicOnHold, id.get()).await?;
    Ok(current)
}

/// One file of a playlist, as stored.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct PlaylistRow {
    /// Position in the playlist.
    pub order: i64,
    /// The media file's id.
    pub media_file_id: MediaFileId,
    /// Its name.
    pub name: String,
    /// Its stored type.
    pub content_type: String,
    /// Its playing time in seconds.
    pub duration_seconds: f64,
    /// The original's object key.
    pub object_key: String,
    /// The telephony rendition's object key, if it has one.
    pub rendition_key: Option<String>,
}

/// The files of music on hold `id` (already read in the caller's scope), in order.
#[boxed]
pub async fn playlist(db: &Db, id: MusicOnHoldId) -> Result<Vec<PlaylistRow>> {
    let select = Query::select()
        .expr_as(Expr::col(("d", "sort_order")), "order")
        .expr_as(Expr::col(("m", "id")), "media_file_id")
        .column(("m", "name"))
        .column(("m", "content_type"))
        .column(("m", "duration_seconds"))
        .column(("m", "object_key"))
        .column(("m", "rendition_key"))
        .from_as("destinations", "d")
        .inner_join(
            TableRef::from("media_files").alias("m"),
            Expr::col(("m", "id"))
                .equals(("d", "target_id"))
                .and(Expr::col(("m", "tenant_id")).equals(("d", "tenant_id"))),
        )
        .and_where(Expr::col(("d", "owner_type")).eq(Owner::MusicOnHold.name()))
        .and_where(Expr::col(("d", "owner_id")).eq(id.get()))
        .and_where(Expr::col(("d", "list")).eq(FILES))
        .and_where(Expr::col(("d", "dest_type")).eq("MEDIA_FILE"))
        .order_by(("d", "sort_order"), sea_query::Order::Asc)
        .order_by(("d", "position"), sea_query::Order::Asc)
        .take();
    db.conn().fetch_all(&select).await
}
