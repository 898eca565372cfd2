//! Call queues with their ordered members (`queue_members`, each with a penalty) and
//! their timeout destination (the shared destination lists, owner `queue`).

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Expr, ExprTrait, Query, SelectStatement, TableRef};
use switchboard_domain::Scope;
use switchboard_domain::ids::{ExtensionId, QueueId, TenantId};
use switchboard_domain::list::{ListQuery, Listed, TenantFilter};
use switchboard_domain::records::queue::{
    CreateQueue, Queue, QueueMember, QueueMemberInput, UpdateQueue,
};

use crate::backend::{Db, Reader, Tx};
use crate::changes;
use crate::crud;
use crate::destinations::{self, Owner};
use crate::error::{Error, Result};
use crate::list::{self, Listing};
use crate::scope;

/// The timeout destination's list name.
const TIMEOUT: &str = "timeout";

fn select(scope: &Scope) -> SelectStatement {
    crud::select_stored::<Queue>()
        .cond_where(scope::tenants(scope, Expr::col(("q", "tenant_id"))))
        .take()
}

#[derive(switchboard_domain::declare::FromRow)]
struct MemberRow {
    queue_id: QueueId,
    id: ExtensionId,
    name: String,
    number: String,
    order: i64,
    penalty: i64,
}

/// The members of the queues `ids`, each list in order, with one query on `reader`.
async fn members_on(
    reader: &mut impl Reader,
    ids: &[i64],
) -> Result<HashMap<QueueId, Vec<QueueMember>>> {
    let mut out: HashMap<QueueId, Vec<QueueMember>> = HashMap::new();
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
async fn complete(db: Db, rows: Vec<Queue>) -> Result<Vec<Queue>> {
    complete_on(&mut db.conn(), rows).await
}

/// [`complete`] on `reader`: the queues are read from their rows, the rest is attached.
async fn complete_on(reader: &mut impl Reader, mut rows: Vec<Queue>) -> Result<Vec<Queue>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id.get()).collect();
    let mut members = members_on(reader, &ids).await?;
    let mut lists = destinations::load_on(reader, Owner::Queue, &ids).await?;
    for queue in &mut rows {
        let id = queue.id.get();
        queue.members = members.remove(&queue.id).unwrap_or_default();
        queue.timeout_destination = lists
            .remove(&(id, TIMEOUT.to_owned()))
            .and_then(|list| list.into_iter().next());
    }
    Ok(rows)
}

/// Record `id` as the API answers it, read in `tx` (the audit trail's snapshot: one
/// serialiser for both); `None` when there is none.
pub(crate) async fn present(tx: &mut Tx, id: i64) -> Result<Option<Queue>> {
    let row: Option<Queue> = crud::find_on(tx, select(&Scope::Platform), "q.id", id).await?;
    Ok(complete_on(tx, row.into_iter().collect()).await?.pop())
}

/// Lists the queues the caller reaches.
#[boxed]
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
#[boxed]
pub async fn get(db: &Db, scope: &Scope, id: QueueId) -> Result<Queue> {
    let row: Queue = crud::get(db, select(scope), "q.id", id.get()).await?;
    complete(db.clone(), vec![row])
        .await?
        .pop()
        .ok_or(Error::NotFound)
}

/// Replaces the members of queue `id` with `members` (checked by the caller to be the
/// tenant's extensions). Each extension is read with a share lock first, like
/// `destinations::replace`: a delete of it racing this write either finished (this write
/// is refused) or waits and then sees the queue using it.
async fn replace_members(
    tx: &mut Tx,
    tenant: TenantId,
    id: QueueId,
    members: &[QueueMemberInput],
) -> Result<()> {
    let delete = Query::delete()
        .from_table("queue_members")
        .and_where(Expr::col("queue_id").eq(id.get()))
        .take();
    tx.execute(&delete).await?;
    for (index, member) in members.iter().enumerate() {
        let target = Query::select()
            .column("id")
            .from("extensions")
            .and_where(Expr::col("id").eq(member.id.get()))
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
                id.get().into(),
                tenant.get().into(),
                member.id.get().into(),
                member.position(index).into(),
                member.penalty.into(),
            ])
            .take();
        tx.execute(&insert).await?;
    }
    Ok(())
}

/// Creates a queue of `tenant` (references checked by the caller).
#[boxed]
pub async fn create(db: &Db, tenant: TenantId, body: CreateQueue) -> Result<Queue> {
    let mut tx = db.begin().await?;
    let id = crud::insert_in(&mut tx, "queues", changes::with_tenant(tenant, &body)).await?;
    replace_members(&mut tx, tenant, QueueId(id), &body.members).await?;
    let timeout: Vec<_> = body.timeout_destination.into_iter().collect();
    destinations::replace(&mut tx, tenant, Owner::Queue, id, TIMEOUT, &timeout).await?;
    tx.commit().await?;
    get(db, &Scope::Platform, QueueId(id)).await
}

/// Changes a queue; a sent `members` replaces the members.
#[boxed]
pub async fn update(db: &Db, scope: &Scope, id: QueueId, body: UpdateQueue) -> Result<Queue> {
    let current = get(db, scope, id).await?;
    let mut tx = db.begin().await?;
    crud::update_in(&mut tx, "queues", id.get(), changes::of(&body)).await?;
    if let Some(members) = &body.members {
        replace_members(&mut tx, current.tenant_id, id, members).await?;
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
#[boxed]
pub async fn delete(db: &Db, scope: &Scope, id: QueueId) -> Result<Queue> {
    let current = get(db, scope, id).await?;
    destinations::delete_owner(db, "queues", Owner::Queue, id.get()).await?;
    Ok(current)
}
