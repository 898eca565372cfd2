//! The shapes every record's create, read, update and delete share, so each repository
//! states only its table, its columns and its scope. Every write here also keeps the
//! shared mechanisms in its transaction: the dial plan's check (`dial_plan::check`; the
//! rows themselves are kept by triggers), what others use or rely on (`in_use`) and the
//! audit entry (`audit::begin`/`defer`, written at commit).

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};

use crate::audit;
use crate::backend::{Db, Record, Tx};
pub use crate::changes::Changes;
use crate::dial_plan;
use crate::error::{Error, Result};
use crate::scope::column;

fn insert_statement(table: &'static str, changes: Changes) -> sea_query::InsertStatement {
    let (columns, values): (Vec<_>, Vec<_>) = changes.into_iter().unzip();
    let mut insert = Query::insert();
    insert.into_table(table).columns(columns);
    // Columns and values come from the same pairs, so their counts always match.
    insert.values_panic(values).returning_col("id");
    insert
}

/// The secret columns `changes` sets (noted in the audit trail, never shown).
fn secrets(changes: &Changes) -> Vec<&'static str> {
    changes
        .iter()
        .map(|(column, _)| *column)
        .filter(|column| audit::is_secret(column))
        .collect()
}

/// Inserts a row into `table`, answering its new id.
pub async fn insert(db: &Db, table: &'static str, changes: Changes) -> Result<i64> {
    let mut tx = db.begin().await?;
    let id = insert_in(&mut tx, table, changes).await?;
    tx.commit().await?;
    Ok(id)
}

/// Inserts a row into `table` inside a transaction, answering its new id.
pub async fn insert_in(tx: &mut Tx, table: &'static str, changes: Changes) -> Result<i64> {
    dial_plan::check(tx, table, None, &changes).await?;
    let audit = audit::begin(tx, table, None).await?;
    let secrets = secrets(&changes);
    let id = tx.scalar(&insert_statement(table, changes)).await?;
    audit::defer(tx, table, audit, id, &secrets);
    Ok(id)
}

/// What recording a reported record did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The record's id.
    pub id: i64,
    /// Whether it is new (`false`: it was recorded before and nothing changed).
    pub new: bool,
}

/// Inserts a row into `table` inside a transaction unless one with the same values in
/// `identity` (the columns of a unique constraint) exists: reports from the engine and
/// imports may repeat, and a repeat changes nothing. Two concurrent first reports
/// resolve through the constraint (`ON CONFLICT DO NOTHING`): one inserts, the other
/// finds its row.
pub async fn insert_once(
    tx: &mut Tx,
    table: &'static str,
    identity: &[&'static str],
    changes: Changes,
) -> Result<Recorded> {
    let key = Condition::all();
    let key = changes
        .iter()
        .filter(|(column, _)| identity.contains(column))
        .fold(key, |key, (column, value)| {
            key.add(Expr::col(*column).eq(value.clone()))
        });
    let existing = Query::select()
        .column("id")
        .from(table)
        .cond_where(key)
        .take();
    if let Some((id,)) = tx.fetch_optional::<(i64,)>(&existing).await? {
        return Ok(Recorded { id, new: false });
    }
    // A new record is audited when someone is acting (an importer run from the command
    // line, a platform admin pushing); the engine's own token acts as no one.
    let audit = audit::begin(tx, table, None).await?;
    let mut insert = insert_statement(table, changes);
    insert.on_conflict(
        sea_query::OnConflict::columns(identity.iter().copied())
            .do_nothing()
            .to_owned(),
    );
    if let Some((id,)) = tx.fetch_optional::<(i64,)>(&insert).await? {
        audit::defer(tx, table, audit, id, &[]);
        return Ok(Recorded { id, new: true });
    }
    let (id,) = tx.fetch_one::<(i64,)>(&existing).await?;
    Ok(Recorded { id, new: false })
}

/// Changes row `id` of `table` inside a transaction. With no `changes` it writes
/// nothing but still snapshots the record for the audit trail: the lists it owns,
/// written next in the transaction, show as the record's update.
pub async fn update_in(tx: &mut Tx, table: &'static str, id: i64, changes: Changes) -> Result<()> {
    let audit = audit::begin(tx, table, Some(id)).await?;
    if changes.is_empty() {
        audit::defer(tx, table, audit, id, &[]);
        return Ok(());
    }
    dial_plan::check(tx, table, Some(id), &changes).await?;
    crate::in_use::check_change(tx, table, id, &changes).await?;
    let secrets = secrets(&changes);
    let update = Query::update()
        .table(table)
        .values(changes)
        .and_where(Expr::col("id").eq(id))
        .take();
    tx.execute(&update).await?;
    audit::defer(tx, table, audit, id, &secrets);
    Ok(())
}

/// Applies `changes` to row `id` of `table` in `tx` only while `condition` holds on the
/// row, answering whether it did. The condition is checked on the row as it is when
/// written (PostgreSQL re-checks it after waiting for a concurrent writer; SQLite writes
/// one at a time), so a check-then-write cannot be raced.
pub async fn update_if(
    tx: &mut Tx,
    table: &'static str,
    id: i64,
    condition: Condition,
    changes: Changes,
) -> Result<bool> {
    dial_plan::check(tx, table, Some(id), &changes).await?;
    crate::in_use::check_change(tx, table, id, &changes).await?;
    let audit = audit::begin(tx, table, Some(id)).await?;
    let secrets = secrets(&changes);
    let update = Query::update()
        .table(table)
        .values(changes)
        .and_where(Expr::col("id").eq(id))
        .cond_where(condition)
        .take();
    let done = tx.execute(&update).await? == 1;
    if done {
        audit::defer(tx, table, audit, id, &secrets);
    }
    Ok(done)
}

/// The record `id` from `select` read on `reader` (a transaction, for the audit trail),
/// `None` when there is none.
pub async fn find_on<T: Record>(
    reader: &mut impl crate::backend::Reader,
    mut select: SelectStatement,
    id_column: &'static str,
    id: i64,
) -> Result<Option<T>> {
    select.and_where(column(id_column).eq(id));
    Ok(reader.read_all(&select).await?.pop())
}

/// The record `id` from `select` (already confined to the caller's scope), or
/// [`Error::NotFound`].
pub async fn get<T: Record>(
    db: &Db,
    mut select: SelectStatement,
    id_column: &'static str,
    id: i64,
) -> Result<T> {
    select.and_where(column(id_column).eq(id));
    db.conn().fetch_one(&select).await
}

/// Applies `changes` to row `id` of `table` when `select` (the scoped read) finds it, and
/// answers the record as it now is.
pub async fn update<T: Record>(
    db: &Db,
    select: SelectStatement,
    id_column: &'static str,
    table: &'static str,
    id: i64,
    changes: Changes,
) -> Result<T> {
    let mut tx = db.begin().await?;
    let mut visible = select.clone();
    visible.and_where(column(id_column).eq(id));
    tx.fetch_one::<T>(&visible).await?;
    update_in(&mut tx, table, id, changes).await?;
    let record = tx.fetch_one(&visible).await?;
    tx.commit().await?;
    Ok(record)
}

/// Deletes row `id` of `table` when `select` (the scoped read) finds it, answering the
/// record as it was.
pub async fn delete<T: Record>(
    db: &Db,
    select: SelectStatement,
    id_column: &'static str,
    table: &'static str,
    id: i64,
) -> Result<T> {
    delete_owning(db, select, id_column, table, id, |_: &T| Vec::new()).await
}

/// Deletes row `id` of `table` like [`delete`], and in the same transaction queues the
/// deletion of the stored objects the record owns (`objects` answers their keys), so that
/// they go exactly when the record does, even if storage is away for a while.
pub async fn delete_owning<T: Record>(
    db: &Db,
    mut select: SelectStatement,
    id_column: &'static str,
    table: &'static str,
    id: i64,
    objects: fn(&T) -> Vec<&str>,
) -> Result<T> {
    let mut tx = db.begin().await?;
    // Locked before it is read: a write that gives the record another object meanwhile
    // (a rendition recorded by the backfill) waits for this delete and then finds no
    // row, rather than committing a key the read below missed — an object no queued
    // deletion would ever remove.
    crate::in_use::lock(&mut tx, table, id).await?;
    select.and_where(column(id_column).eq(id));
    let record = tx.fetch_one::<T>(&select).await?;
    for key in objects(&record) {
        crate::jobs::delete_object(&mut tx, key).await?;
    }
    let deleted = delete_in(&mut tx, table, id).await?;
    if deleted == 0 {
        // A concurrent delete got there between the read and this write (PostgreSQL
        // reads without locking): it deleted the record, this one did not.
        return Err(Error::NotFound);
    }
    tx.commit().await?;
    Ok(record)
}

/// Deletes row `id` of `table` inside a transaction, answering how many rows went (0 or
/// 1): refused with 409 while something uses the row (`in_use`, checked with the row
/// locked), audited like every write here.
pub async fn delete_in(tx: &mut Tx, table: &'static str, id: i64) -> Result<u64> {
    crate::in_use::check(tx, table, id).await?;
    let audit = audit::begin(tx, table, Some(id)).await?;
    let delete = Query::delete()
        .from_table(table)
        .and_where(Expr::col("id").eq(id))
        .take();
    // A use no declaration names is still refused by its foreign key.
    let deleted = tx.execute(&delete).await.map_err(|e| match e {
        Error::InUse(_) => Error::InUse(format!(
            "the {} is still used by other records",
            singular(table)
        )),
        other => other,
    })?;
    if deleted > 0 {
        audit::defer(tx, table, audit, id, &[]);
    }
    Ok(deleted)
}

/// Whether a row of `table` with `id` exists under `condition`.
pub async fn exists(db: &Db, table: &'static str, id: i64, condition: Condition) -> Result<bool> {
    let select = Query::select()
        .expr(Expr::cust("COUNT(*)"))
        .from(table)
        .and_where(Expr::col("id").eq(id))
        .cond_where(condition)
        .take();
    Ok(db.conn().scalar::<i64>(&select).await? > 0)
}

fn singular(table: &str) -> &str {
    match table {
        "branches" => "branch",
        other => other.strip_suffix('s').unwrap_or(other),
    }
}
