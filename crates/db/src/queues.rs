//! Call queues with their ordered members (`queue_members`, each with a penalty) and
//! their timeout destination (the shared destination lists, owner `queue`).

use std::collections::HashMap;

use sea_query::{Expr, ExprTrait, Func, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{QueueId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::queue::{
    CreateQueue, Queue, QueueMember, QueueMemberInput, QueueStrategy, UpdateQueue,
};

use crate::backend::{Db, Reader, Tx};
use crate::crud::{self, Changes};
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The timeout destination's list name.
const TIMEOUT: &str = "timeout";

/// A queue row before its members and timeout destination are attached.
#[derive(sqlx::FromRow)]
pub struct Row {
    id: i64,
    tenant_id: i64,
    name: String,
    number: String,
    strategy: QueueStrategy,
    max_wait_seconds: i64,
    max_callers: i64,
    hold_media_file_id: i64,
    music_on_hold_id: Option<i64>,
    announce_position: i64,
}

fn select(scope: &Scope) -> SelectStatement {
    Query::select()
        .columns([
            ("q", "id"),
            ("q", "tenant_id"),
            ("q", "name"),
            ("q", "number"),
            ("q", "strategy"),
            ("q", "max_wait_seconds"),
            ("q", "max_callers"),
            ("q", "music_on_hold_id"),
            ("q", "announce_position"),
        ])
        .expr_as(
            Func::coalesce([Expr::col(("q", "hold_media_file_id")), Expr::val(0i64)]),
            "hold_media_file_id",
        )
        .from_as("queues", "q")
        .cond_where(scope::tenants(scope, Expr::col(("q", "tenant_id"))))
        .take()
}

#[derive(sqlx::FromRow)]
struct MemberRow {
    queue_id: i64,
    id: i64,
    name: String,
    number: String,
    order: i64,
    penalty: i64,
}

/// The members of the queues `ids`, each list in order, with one query on `reader`.
async fn members_on(
    reader: &mut impl Reader,
    ids: &[i64],
) -> Result<HashMap<i64, Vec<QueueMember>>> {
    let mut out: HashMap<i64, Vec<QueueMember>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let select = Query::select()
        .expr_as(Expr::col(("m", "queue_id")), "queue_id")
        .expr_as(Expr::col(("e", "id")), "id")
        .expr_as(Expr::col(("e", "name")), "name")
        .expr_as(Expr::col(("e", "number")), "number")
        .expr_as(Expr::col(("m", "position")), "order")
        .expr_as(Expr::col(("m", "penalty")), "penalty")
        .from_as("queue_members", "m")
        .inner_join(
            TableRef::from("extensions").alias("e"),
            Expr::col(("e", "id")).equals(("m", "extension_id")),
        )
        .and_where(Expr::col(("m", "queue_id")).is_in(ids.iter().copied()))
        .order_by(("m", "queue_id"), sea_query::Order::Asc)
        .order_by(("m", "position"), sea_query::Order::Asc)
        .order_by(("e", "id"), sea_query::Order::Asc)
        .take();
    let rows: Vec<MemberRow> = reader.read_all(&select).await?;
    for row in rows {
        out.entry(row.queue_id).or_default().push(QueueMember {
            id: row.id,
            name: row.name,
            number: row.number,
            order: row.order,
            penalty: row.penalty,
        });
    }
    Ok(out)
}

/// Attaches members and timeout destinations of every queue in `rows`, with two queries.
async fn complete(db: Db, rows: Vec<Row>) -> Result<Vec<Queue>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`.
async fn complete_on(reader: &mut impl Reader, rows: Vec<Row>) -> Result<Vec<Queue>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut members = members_on(reader, &ids).await?;
    let mut lists = destinations::load_on(reader, Owner::Queue, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|row| Queue {
            id: QueueId(row.id),
            tenant_id: TenantId(row.tenant_id),
            name: row.name,
            number: row.number,
            strategy: row.strategy,
            members: members.remove(&row.id).unwrap_or_default(),
            max_wait_seconds: row.max_wait_seconds,
            max_callers: row.max_callers,
            hold_media_file_id: row.hold_media_file_id,
            music_on_hold_id: row.music_on_hold_id,
            announce_position: row.announce_position,
            timeout_destination: lists
                .remove(&(row.id, TIMEOUT.to_owned()))
                .and_then(|list| list.into_iter().next()),
        })
        .collect())
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Queue>> {
    let row: Option<Row> = crud::find_on(tx, select(&Scope::Platform), "q.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the queues the caller reaches.
pub async fn list(
    db: &Db,
    scope: &Scope,
    filter: &TenantFilter,
    query: &ListQuery,
) -> Result<Listing<Queue>> {
    let mut select = select(scope);
    if let Some(tenant) = filter.tenant_id {
        select.and_where(Expr::col(("q", "tenant_id")).eq(tenant.get()));
    }
    list::run_completed(db, select, Queue::SPEC, query, complete).await
}

/// One queue with its members.
pub async fn get(db: &Db, scope: &Scope, id: QueueId) -> Result<Queue> {
    let row: Row = crud::get(db, select(scope), "q.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

fn media(id: i64) -> Expr {
    (id > 0).then_some(id).into()
}

/// Replaces the members of queue `id` with `members` (checked by the caller to be the
/// tenant's extensions). Each extension is read with a share lock first, like
/// `destinations::replace`: a delete of it racing this write either finished (this write
/// is refused) or waits and then sees the queue using it.
async fn replace_members(
    tx: &mut Tx,
    tenant: TenantId,
    id: i64,
    members: &[QueueMemberInput],
) -> Result<()> {
    let delete = Query::delete()
        .from_table("queue_members")
        .and_where(Expr::col("queue_id").eq(id))
        .take();
    tx.execute(&delete).await?;
    for (index, member) in members.iter().enumerate() {
        let target = Query::select()
            .column("id")
            .from("extensions")
            .and_where(Expr::col("id").eq(member.id))
            .and_where(Expr::col("tenant_id").eq(tenant.get()))
            .lock(sea_query::LockType::Share)
            .take();
        if tx.fetch_optional::<(i64,)>(&target).await?.is_none() {
            return Err(Error::Conflict(format!(
                "members[{index}] names extension {} that no longer exists in the tenant",
                member.id
            )));
        }
        let insert = Query::insert()
            .into_table("queue_members")
            .columns([
                "queue_id",
                "tenant_id",
                "extension_id",
                "position",
                "penalty",
            ])
            .values_panic([
                id.into(),
                tenant.get().into(),
                member.id.into(),
                member.position(index).into(),
                member.penalty.into(),
            ])
            .take();
        tx.execute(&insert).await?;
    }
    Ok(())
}

/// Creates a queue of `tenant` (references checked by the caller).
pub async fn create(db: &Db, tenant: TenantId, body: CreateQueue) -> Result<Queue> {
    let mut tx = db.begin().await?;
    let id = crud::insert_in(
        &mut tx,
        "queues",
        vec![
            ("tenant_id", tenant.get().into()),
            ("name", body.name.into()),
            ("number", body.number.into()),
            ("strategy", body.strategy.as_str().into()),
            ("max_wait_seconds", body.max_wait_seconds.into()),
            ("max_callers", body.max_callers.into()),
            ("hold_media_file_id", media(body.hold_media_file_id)),
            ("music_on_hold_id", body.music_on_hold_id.into()),
            ("announce_position", body.announce_position.into()),
        ],
    )
    .await?;
    replace_members(&mut tx, tenant, id, &body.members).await?;
    let timeout: Vec<_> = body.timeout_destination.into_iter().collect();
    destinations::replace(&mut tx, tenant, Owner::Queue, id, TIMEOUT, &timeout).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, QueueId(id)).await
}

/// Changes a queue; a sent `members` replaces the members.
pub async fn update(db: &Db, scope: &Scope, id: QueueId, body: UpdateQueue) -> Result<Queue> {
    let current = get(db, scope, id).await?;
    let mut changes: Changes = Vec::new();
    if let Some(name) = body.name {
        changes.push(("name", name.into()));
    }
    if let Some(number) = body.number {
        changes.push(("number", number.into()));
    }
    if let Some(strategy) = body.strategy {
        changes.push(("strategy", strategy.as_str().into()));
    }
    if let Some(seconds) = body.max_wait_seconds {
        changes.push(("max_wait_seconds", seconds.into()));
    }
    if let Some(callers) = body.max_callers {
        changes.push(("max_callers", callers.into()));
    }
    if let Some(file) = body.hold_media_file_id {
        changes.push(("hold_media_file_id", media(file)));
    }
    if let Some(music) = body.music_on_hold_id {
        changes.push(("music_on_hold_id", music.into()));
    }
    if let Some(announce) = body.announce_position {
        changes.push(("announce_position", announce.into()));
    }
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "queues", id.get(), changes).await?;
    if let Some(members) = &body.members {
        replace_members(&mut tx, current.tenant_id, id.get(), members).await?;
    }
    if let Some(timeout) = body.timeout_destination {
        let timeout: Vec<_> = timeout.into_iter().collect();
        destinations::replace(
            &mut tx,
            current.tenant_id,
            Owner::Queue,
            id.get(),
            TIMEOUT,
            &timeout,
        )
        .await?;
    }
    tx.commit().await?;
    get(db, scope, id).await
}

/// Deletes a queue with its members and timeout destination, unless something routes to it.
pub async fn delete(db: &Db, scope: &Scope, id: QueueId) -> Result<Queue> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "queues", Owner::Queue, id.get()).await?;
    Ok(current)
}
