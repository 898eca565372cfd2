//! Paging groups with their ordered extension members and intro media file.

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_declare::boxed;
use switchboard_domain::Scope;
use switchboard_domain::declare::OptionalRef;
use switchboard_domain::ids::{MediaFileId, PagingGroupId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::paging_group::{
    CheckInUse, CreatePagingGroup, IntroMessageMediaFile, PagingGroup, TwoWayAudio,
    UpdatePagingGroup,
};

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The members' list name.
const MEMBERS: &str = "members";

/// A paging group row before its members are attached.
#[derive(switchboard_domain::declare::FromRow)]
pub struct Row {
    id: PagingGroupId,
    tenant_id: TenantId,
    number: String,
    name: String,
    check_in_use: Option<CheckInUse>,
    two_way_audio: Option<TwoWayAudio>,
    intro_message_media_file_id: OptionalRef<MediaFileId>,
    intro_media_name: Option<String>,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .column(("g", "id"))
        .column(("g", "tenant_id"))
        .column(("g", "number"))
        .column(("g", "name"))
        .column(("g", "check_in_use"))
        .column(("g", "two_way_audio"))
        .expr_as(
            Expr::col(("g", "intro_media_file_id")),
            "intro_message_media_file_id",
        )
        .expr_as(Expr::col(("m", "name")), "intro_media_name")
        .from_as("paging_groups", "g")
        .left_join(
            TableRef::from("media_files").alias("m"),
            Expr::col(("m", "id")).equals(("g", "intro_media_file_id")),
        )
        .cond_where(scope::tenants(scope, Expr::col(("g", "tenant_id"))))
        .take()
}

/// A paging group's own row, its read rendered once per kind of scope.
static READ: crud::ScopedRead = crud::ScopedRead::new(select, "g.id");

/// Attaches the members of every group in `rows`, with one query.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<PagingGroup>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<PagingGroup>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut members = destinations::load_on(reader, Owner::PagingGroup, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| PagingGroup {
            id: row.id,
            tenant_id: row.tenant_id,
            number: Some(row.number),
            name: row.name,
            check_in_use: row.check_in_use,
            two_way_audio: row.two_way_audio,
            intro_message_media_file_id: row.intro_message_media_file_id,
            intro_message_media_file: row.intro_message_media_file_id.get().map(|id| {
                IntroMessageMediaFile {
                    id: Some(id),
                    name: row.intro_media_name,
                }
            }),
            routing_destinations: members
                .remove(&(row.id.get(), MEMBERS.to_owned()))
                .unwrap_or_default(),
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<PagingGroup>> {
    let row: Option<Row> = READ.find_on(tx, &Scope::Platform, id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the paging groups the caller reaches.
#[boxed]
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<PagingGroup>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("g", "tenant_id")).eq(tenant.get()));
    }
    list::run_completed(db, select, PagingGroup::SPEC, query, complete).await
}

/// One paging group with its members.
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: PagingGroupId) -> Result<PagingGroup> {
    // The row and its lists on one connection: one acquire and release, not two.
    let mut held = db.held().await?;
    let row: Row = READ
        .find_on(&mut held, scope, id.get())
        .await?
        .ok_or(Error::NotFound)?;
    complete_on(&mut held, vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// Creates a paging group of `tenant` with its members (checked by the caller to be the
/// tenant's extensions).
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreatePagingGroup) -> Result<PagingGroup> {
    let mut tx = db.begin().await?;
    let id = crud::insert_in(
        &mut tx,
        "paging_groups",
        changes::with_tenant(tenant, &body),
    )
    .await?;
    destinations::replace(
        &mut tx,
        tenant,
        Owner::PagingGroup,
        id,
        MEMBERS,
        &body.routing_destinations,
    )
    .await?;
    tx.commit().await?;
    get(db, &Scope::Platform, PagingGroupId(id)).await
}

/// Changes a paging group; a sent member list replaces the current one.
#[boxed]
pub async fn update(
    db: &Db,
    scope: &Scope,
    id: PagingGroupId,
    body: UpdatePagingGroup,
) -> Result<PagingGroup> {
    let current = get(db, scope, id).await?;
    let changes = changes::of(&body);
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "paging_groups", id.get(), changes).await?;
    if let Some(members) = &body.routing_destinations {
        destinations::replace(
            &mut tx,
            current.tenant_id,
            Owner::PagingGroup,
            id.get(),
            MEMBERS,
            members,
        )
        .await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes a paging group and its member list, unless another destination list routes to it.
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: PagingGroupId) -> Result<PagingGroup> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "paging_groups", Owner::PagingGroup, id.get()).await?;
    Ok(current)
}
