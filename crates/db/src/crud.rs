//! The shapes every record's create, read, update and delete share, so each repository
//! states only its table, its columns and its scope. Every write here also keeps the
//! shared mechanisms in its transaction: the dial plan's check (`dial_plan::check`; the
//! rows themselves are kept by triggers), what others use or rely on (`in_use`) and the
//! audit entry (`audit::begin`/`defer`, written at commit).

use std::sync::OnceLock;

use sea_query::{Condition, Expr, ExprTrait, Query, SelectStatement};
use sea_query_sqlx::SqlxBinder;
use switchboard_domain::Scope;
use switchboard_domain::declare::Stored;

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

/// The select of a stored record (`#[derive(Stored)]`): its table (under its alias, when
/// it has one) and every column it declares. A `#[stored(joined)]` field is the caller's
/// to select, with its join (a read without it fails on the missing column).
pub fn select_stored<T: Stored>() -> SelectStatement {
    let mut select = Query::select();
    if T::ALIAS == T::TABLE {
        select.from(T::TABLE);
    } else {
        select.from_as(T::TABLE, T::ALIAS);
    }
    for column in T::COLUMNS {
        select.column((T::ALIAS, *column));
    }
    select.take()
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

/// A record kind's read of one record by id, confined to the caller's scope, whose SQL is
/// rendered once per kind of scope and backend and kept (issue 32): building the
/// statement with sea-query and rendering it on every `GET` was two fifths of an
/// extension's read on SQLite (callgrind, debug build: 109,000 instructions a read, 66,000
/// kept; docs/benchmarks.md). The statement's text varies with the kind of scope only — a tenant
/// admin's read differs from a branch admin's by its conditions, not from another tenant
/// admin's — and the scope's ids are bound values. So the statement is rendered once for
/// a stand-in scope whose ids are marks no real id takes, and each read binds its own
/// scope's ids where the marks were. `select` must depend on the scope alone (the crate's
/// `select(scope)` functions do); a statement that wrote an id into its text rather than
/// binding it is noticed when rendered and then rendered on every read instead.
pub struct ScopedRead {
    select: fn(&Scope) -> SelectStatement,
    id_column: &'static str,
    /// Per kind of scope ([`scope_kind`]) and backend (SQLite, PostgreSQL): the rendered
    /// read, `None` when it cannot be kept.
    rendered: [OnceLock<Option<Rendered>>; 2 * SCOPE_KINDS],
}

/// How many kinds of scope [`scope_kind`] tells apart.
const SCOPE_KINDS: usize = 6;

/// The marks the stand-in scope's ids take (and the record id's), where a read binds its
/// own: far below any id a table hands out (they are positive).
const MARKS: [i64; 6] = [
    i64::MIN + 0x5_3b_01,
    i64::MIN + 0x5_3b_02,
    i64::MIN + 0x5_3b_03,
    i64::MIN + 0x5_3b_04,
    i64::MIN + 0x5_3b_05,
    i64::MIN + 0x5_3b_06,
];

/// What a read binds in one place of the rendered statement.
#[derive(Debug)]
enum Slot {
    /// A value of the statement's own, the same on every read.
    Fixed(sea_query::Value),
    /// The `n`th of [`MARKS`]: the scope's partner, tenant, branch, user, extension, or
    /// the record's id.
    Marked(usize),
}

/// A read rendered once: its SQL and what it binds, in order.
#[derive(Debug)]
struct Rendered {
    sql: String,
    slots: Vec<Slot>,
}

/// The kind of `scope`: which conditions its reads carry.
fn scope_kind(scope: &Scope) -> usize {
    match scope {
        Scope::Platform => 0,
        Scope::Partner(_) => 1,
        Scope::Tenant(_) => 2,
        Scope::Branch(_, _) => 3,
        Scope::User(_, _, Some(_)) => 4,
        Scope::User(_, _, None) => 5,
    }
}

/// The scope of `scope`'s kind whose ids are [`MARKS`].
fn stand_in(scope: &Scope) -> Scope {
    use switchboard_domain::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
    let tenant = TenantId(MARKS[1]);
    match scope {
        Scope::Platform => Scope::Platform,
        Scope::Partner(_) => Scope::Partner(PartnerId(MARKS[0])),
        Scope::Tenant(_) => Scope::Tenant(tenant),
        Scope::Branch(_, _) => Scope::Branch(tenant, BranchId(MARKS[2])),
        Scope::User(_, _, extension) => Scope::User(
            tenant,
            UserId(MARKS[3]),
            extension.map(|_| ExtensionId(MARKS[4])),
        ),
    }
}

/// The ids of `scope` and the record's `id`, in the order of [`MARKS`] (0 where the
/// scope has none: its kind's statement has no mark there).
fn marked(scope: &Scope, id: i64) -> [i64; 6] {
    let mut ids = [0, 0, 0, 0, 0, id];
    match *scope {
        Scope::Platform => {}
        Scope::Partner(partner) => ids[0] = partner.get(),
        Scope::Tenant(tenant) => ids[1] = tenant.get(),
        Scope::Branch(tenant, branch) => {
            ids[1] = tenant.get();
            ids[2] = branch.get();
        }
        Scope::User(tenant, user, extension) => {
            ids[1] = tenant.get();
            ids[3] = user.get();
            ids[4] = extension.map_or(0, |extension| extension.get());
        }
    }
    ids
}

impl ScopedRead {
    /// The read of the record whose `id_column` (`id`, `h.id`) is the id asked for, in
    /// `select(scope)`.
    pub const fn new(select: fn(&Scope) -> SelectStatement, id_column: &'static str) -> Self {
        ScopedRead {
            select,
            id_column,
            rendered: [const { OnceLock::new() }; 2 * SCOPE_KINDS],
        }
    }

    /// The statement for `scope` and record `id`, as sea-query builds it.
    fn statement(&self, scope: &Scope, id: i64) -> SelectStatement {
        let mut select = (self.select)(scope);
        select.and_where(column(self.id_column).eq(id));
        select
    }

    /// The record `id` the caller reaches, or [`Error::NotFound`].
    pub async fn get<T: Record>(&'static self, db: &Db, scope: &Scope, id: i64) -> Result<T> {
        db.conn().fetch_one(&self.bound(scope, id)).await
    }

    /// The record `id` the caller reaches read on `reader` (a transaction, for the audit
    /// trail), `None` when there is none.
    pub async fn find_on<T: Record>(
        &'static self,
        reader: &mut impl crate::backend::Reader,
        scope: &Scope,
        id: i64,
    ) -> Result<Option<T>> {
        Ok(reader.read_all(&self.bound(scope, id)).await?.pop())
    }

    fn bound<'a>(&'static self, scope: &'a Scope, id: i64) -> Bound<'a> {
        Bound {
            read: self,
            scope,
            id,
        }
    }
}

/// A [`ScopedRead`] for one scope and record, as the backend runs it.
struct Bound<'a> {
    read: &'static ScopedRead,
    scope: &'a Scope,
    id: i64,
}

impl Rendered {
    /// `statement` rendered by `builder`, its marks noted; `None` when a mark was written
    /// into the text rather than bound (the statement then cannot be kept).
    fn of<B: sea_query::QueryBuilder>(statement: &SelectStatement, builder: B) -> Option<Self> {
        let (sql, values) = statement.build_sqlx(builder);
        if MARKS.iter().any(|mark| sql.contains(&mark.to_string())) {
            return None;
        }
        let slots = values
            .0
            .0
            .into_iter()
            .map(|value| match value {
                sea_query::Value::BigInt(Some(v)) if MARKS.contains(&v) => {
                    Slot::Marked(MARKS.iter().position(|&mark| mark == v).unwrap_or(0))
                }
                other => Slot::Fixed(other),
            })
            .collect();
        Some(Rendered { sql, slots })
    }
}

impl SqlxBinder for Bound<'_> {
    fn build_sqlx<B: sea_query::QueryBuilder>(
        &self,
        builder: B,
    ) -> (String, sea_query_sqlx::SqlxValues) {
        let (_, numbered) = builder.placeholder();
        let kind = scope_kind(self.scope);
        let cell = &self.read.rendered[2 * kind + usize::from(numbered)];
        let rendered = cell.get_or_init(|| {
            let stand_in = stand_in(self.scope);
            Rendered::of(&self.read.statement(&stand_in, MARKS[5]), builder)
        });
        let Some(rendered) = rendered else {
            let statement = self.read.statement(self.scope, self.id);
            return if numbered {
                statement.build_sqlx(sea_query::PostgresQueryBuilder)
            } else {
                statement.build_sqlx(sea_query::SqliteQueryBuilder)
            };
        };
        let ids = marked(self.scope, self.id);
        let values = rendered
            .slots
            .iter()
            .map(|slot| match slot {
                Slot::Fixed(value) => value.clone(),
                Slot::Marked(n) => sea_query::Value::BigInt(Some(ids[*n])),
            })
            .collect();
        (
            rendered.sql.clone(),
            sea_query_sqlx::SqlxValues(sea_query::Values(values)),
        )
    }
}

/// The text of a statement's head — a read up to its `WHERE`, with no bound value —
/// rendered once per backend and kept, for reads whose head is the same on every call
/// and whose conditions (an `IN` list as long as the ids read) are written per read
/// ([`Placeholders`]): the destination lists', the holidays'.
pub(crate) struct KeptHead {
    build: fn() -> SelectStatement,
    /// As SQLite (`?`) and PostgreSQL (`$n`) write it.
    text: [OnceLock<String>; 2],
}

impl KeptHead {
    /// The head `build` makes (it must bind nothing).
    pub(crate) const fn new(build: fn() -> SelectStatement) -> Self {
        KeptHead {
            build,
            text: [const { OnceLock::new() }; 2],
        }
    }

    /// The head's text as `builder` writes it, and the placeholders that follow it.
    pub(crate) fn start<B: sea_query::QueryBuilder>(&self, builder: B) -> (String, Placeholders) {
        let (mark, numbered) = builder.placeholder();
        let head = self.text[usize::from(numbered)].get_or_init(|| {
            let (sql, values) = (self.build)().build_sqlx(builder);
            debug_assert!(values.0.0.is_empty(), "a kept head binds nothing");
            sql
        });
        let mut sql = String::with_capacity(head.len() + 200);
        sql.push_str(head);
        (
            sql,
            Placeholders {
                mark,
                numbered,
                next: 0,
            },
        )
    }
}

/// The placeholders of a statement written by hand after a [`KeptHead`], numbered where
/// the backend numbers them.
pub(crate) struct Placeholders {
    mark: &'static str,
    numbered: bool,
    next: usize,
}

impl Placeholders {
    /// Writes the next placeholder.
    pub(crate) fn push(&mut self, sql: &mut String) {
        use std::fmt::Write as _;
        self.next += 1;
        sql.push_str(self.mark);
        if self.numbered {
            let _ = write!(sql, "{}", self.next);
        }
    }

    /// Writes `(p1, p2, …)`, one placeholder per id.
    pub(crate) fn list(&mut self, sql: &mut String, ids: &[i64]) {
        sql.push('(');
        for index in 0..ids.len() {
            if index > 0 {
                sql.push_str(", ");
            }
            self.push(sql);
        }
        sql.push(')');
    }
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

#[cfg(test)]
mod tests {
    use sea_query::{PostgresQueryBuilder, SqliteQueryBuilder};
    use switchboard_domain::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};

    use super::*;

    /// A read confined by every kind of scope condition, with a value of its own.
    fn select(scope: &Scope) -> SelectStatement {
        Query::select()
            .columns(["id", "tenant_id"])
            .from("extensions")
            .cond_where(crate::scope::tenants(scope, Expr::col("tenant_id")))
            .cond_where(crate::scope::branch(scope, Expr::col("branch_id")))
            .cond_where(crate::scope::own_extension(scope, Expr::col("id")))
            .and_where(Expr::col("name").ne("kept"))
            .take()
    }

    static READ: ScopedRead = ScopedRead::new(select, "id");

    /// A read that writes the tenant into its text: it cannot be kept.
    fn inlined(scope: &Scope) -> SelectStatement {
        let tenant = scope.own_tenant().map_or(0, TenantId::get);
        Query::select()
            .column("id")
            .from("extensions")
            .and_where(Expr::cust(format!("tenant_id = {tenant}")))
            .take()
    }

    static INLINED: ScopedRead = ScopedRead::new(inlined, "id");

    #[test]
    fn a_kept_read_is_the_statement_sea_query_renders_for_its_scope() {
        let tenant = TenantId(3);
        let scopes = [
            Scope::Platform,
            Scope::Partner(PartnerId(7)),
            Scope::Tenant(tenant),
            Scope::Branch(tenant, BranchId(5)),
            Scope::User(tenant, UserId(11), Some(ExtensionId(13))),
            Scope::User(tenant, UserId(11), None),
            // The same kinds again with other ids: rendered once, bound per read.
            Scope::Partner(PartnerId(8)),
            Scope::Tenant(TenantId(4)),
            Scope::Branch(TenantId(4), BranchId(6)),
            Scope::User(TenantId(4), UserId(12), Some(ExtensionId(14))),
        ];
        for read in [&READ, &INLINED] {
            for scope in &scopes {
                for id in [42, 43] {
                    let kept = read.bound(scope, id);
                    let fresh = read.statement(scope, id);
                    assert_eq!(
                        kept.build_sqlx(SqliteQueryBuilder),
                        fresh.build_sqlx(SqliteQueryBuilder),
                        "{scope:?}"
                    );
                    assert_eq!(
                        kept.build_sqlx(PostgresQueryBuilder),
                        fresh.build_sqlx(PostgresQueryBuilder),
                        "{scope:?}"
                    );
                }
            }
        }
        // The kinds of scope with a tenant wrote it into the text: rendered per read.
        assert!(
            INLINED.rendered[2 * 2..]
                .iter()
                .all(|cell| matches!(cell.get(), Some(None))),
            "a read with an id in its text is not kept"
        );
    }
}
