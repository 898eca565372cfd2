//! Destination lists (interface §2), shared by every record that routes calls: stored in one
//! table keyed by owner, checked against the tenant's records on write, and answered with
//! their targets' names and numbers resolved.

use std::collections::HashMap;
use switchboard_declare::boxed;

use sea_query::{Expr, ExprTrait, Func, Query};
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::destination::{DestType, Destination, DestinationInput};

use crate::backend::{Db, Reader, Tx};
use crate::crud::KeptHead;
use crate::error::Result;
pub use crate::owner::Owner;

/// A kind of record destinations name.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The destination types naming it.
    pub types: &'static [&'static str],
    /// Its table (every one has `id`, `tenant_id` and `name`).
    pub table: &'static str,
    /// Its alias in the subquery that resolves a name.
    alias: &'static str,
    /// How a refusal names one (`an extension`).
    pub what: &'static str,
    /// Whether it has a dialled `number` to answer.
    numbered: bool,
}

/// The records a destination can name, one line each: a new destination type joins here
/// (and in `in_use::IN_USE`, so what it names cannot be deleted from under it).
pub const TARGETS: &[Target] = &[
    Target {
        types: &["EXT", "VOICEMAIL"],
        table: "extensions",
        alias: "e",
        what: "an extension",
        numbered: true,
    },
    Target {
        types: &["IVR"],
        table: "ivrs",
        alias: "i",
        what: "an IVR",
        numbered: true,
    },
    Target {
        types: &["PAGING_GROUP"],
        table: "paging_groups",
        alias: "p",
        what: "a paging group",
        numbered: true,
    },
    Target {
        types: &["QUEUE"],
        table: "queues",
        alias: "q",
        what: "a queue",
        numbered: true,
    },
    Target {
        types: &["PHARMACY_AGENT"],
        table: "pharmacy_agents",
        alias: "pa",
        what: "a pharmacy agent",
        numbered: true,
    },
    Target {
        types: &["BUSINESS_HOUR"],
        table: "business_hours",
        alias: "h",
        what: "a business hour",
        numbered: false,
    },
    Target {
        types: &["MEDIA_FILE"],
        table: "media_files",
        alias: "mf",
        what: "a media file",
        numbered: false,
    },
];

/// The kind of record a destination type names; `None` for EXTERNAL and HANGUP.
pub fn target(dest_type: DestType) -> Option<&'static Target> {
    TARGETS
        .iter()
        .find(|target| target.types.contains(&dest_type.name()))
}

/// The positions (in `items`) of destinations whose target is not a record of `tenant`,
/// with what was expected.
#[boxed]
pub async fn foreign_targets(
    db: &Db,
    tenant: TenantId,
    items: &[DestinationInput],
) -> Result<Vec<(usize, String)>> {
    let mut problems = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Some(target) = target(item.dest_type) else {
            continue;
        };
        let condition = Expr::col("tenant_id").eq(tenant.get()).into();
        if !crate::crud::exists(db, target.table, item.id, condition).await? {
            problems.push((index, format!("must name {} of the tenant", target.what)));
        }
    }
    Ok(problems)
}

/// Replaces the `list` of `owner_id` with `items`.
#[boxed]
pub async fn replace(
    tx: &mut Tx,
    tenant: TenantId,
    owner: Owner,
    owner_id: i64,
    list: &'static str,
    items: &[DestinationInput],
) -> Result<()> {
    let delete = Query::delete()
        .from_table("destinations")
        .and_where(Expr::col("owner_type").eq(owner.name()))
        .and_where(Expr::col("owner_id").eq(owner_id))
        .and_where(Expr::col("list").eq(list))
        .take();
    tx.execute(&delete).await?;
    for (position, item) in items.iter().enumerate() {
        if let Some(&Target { table, .. }) = target(item.dest_type) {
            // The target is read with a share lock in this transaction: a delete of it
            // (which locks it for update before its in-use check) either finished before
            // — the target is gone and this write is refused — or waits for this one
            // and then sees the list routing to it (`in_use`).
            let target = Query::select()
                .column("id")
                .from(table)
                .and_where(Expr::col("id").eq(item.id))
                .and_where(Expr::col("tenant_id").eq(tenant.get()))
                .lock(sea_query::LockType::Share)
                .take();
            if tx.fetch_optional::<(i64,)>(&target).await?.is_none() {
                return Err(crate::Error::Conflict(format!(
                    "{list}[{position}] names {} {} that no longer exists in the tenant",
                    item.dest_type.name(),
                    item.id
                )));
            }
        }
        let insert = Query::insert()
            .into_table("destinations")
            .columns([
                "tenant_id",
                "owner_type",
                "owner_id",
                "list",
                "position",
                "sort_order",
                "dest_type",
                "target_id",
                "number",
                "type_src",
            ])
            .values_panic([
                tenant.get().into(),
                owner.name().into(),
                owner_id.into(),
                list.into(),
                (position as i64).into(),
                item.order.into(),
                item.dest_type.name().into(),
                item.id.into(),
                item.number.clone().into(),
                item.type_src.clone().into(),
            ])
            .take();
        tx.execute(&insert).await?;
    }
    Ok(())
}

/// Deletes row `id` of `table`, which owns destination lists as `owner`, and then those
/// lists, in one transaction: the row first (through `crud::delete_in`: refused while
/// something uses it, audited), so its audit entry still shows the lists it had.
#[boxed]
pub async fn delete_owner(db: &Db, table: &'static str, owner: Owner, id: i64) -> Result<()> {
    let mut tx = db.begin().await?;
    if crate::crud::delete_in(&mut tx, table, id).await? == 0 {
        return Err(crate::Error::NotFound);
    }
    delete_all(&mut tx, owner, id).await?;
    tx.commit().await?;
    Ok(())
}

/// Deletes every list of `owner_id`.
#[boxed]
pub async fn delete_all(tx: &mut Tx, owner: Owner, owner_id: i64) -> Result<()> {
    let delete = Query::delete()
        .from_table("destinations")
        .and_where(Expr::col("owner_type").eq(owner.name()))
        .and_where(Expr::col("owner_id").eq(owner_id))
        .take();
    tx.execute(&delete).await?;
    Ok(())
}

#[derive(switchboard_domain::declare::FromRow)]
struct Row {
    owner_id: i64,
    list: String,
    #[sqlx(flatten)]
    destination: Destination,
}

/// One resolved column of a destination (`column` of its target: `name` or `number`):
/// `CASE` on the destination's type, each branch a subquery of the one table that type
/// names, so a row costs one index probe however many kinds of target there are (issue
/// 32: a join to every kind was planned — 3 ms a custom plan on PostgreSQL — and probed
/// on every read); null for a type no table of [`TARGETS`] answers. The types are written
/// into the statement as constants: they are the code's own, and a statement without
/// bound values in its columns is text that can be rendered once ([`ListsOf`]).
fn resolved(column: &'static str) -> sea_query::Expr {
    let mut case = sea_query::CaseStatement::new();
    for target in TARGETS {
        if column == "number" && !target.numbered {
            continue;
        }
        let lookup = Query::select()
            .column((target.alias, column))
            .from_as(target.table, target.alias)
            .and_where(Expr::col((target.alias, "id")).equals(("d", "target_id")))
            .take();
        case = case.case(
            Expr::col(("d", "dest_type")).is_in(
                target
                    .types
                    .iter()
                    .map(|name| Expr::Constant((*name).into())),
            ),
            lookup,
        );
    }
    case.finally(Expr::null()).into()
}

/// The lists' statement up to its owner condition: every destination with its target's
/// name and number resolved ([`resolved`]), no bound value.
fn lists_head() -> sea_query::SelectStatement {
    Query::select()
        .expr_as(Expr::col(("d", "owner_id")), "owner_id")
        .expr_as(Expr::col(("d", "list")), "list")
        .expr_as(Expr::col(("d", "target_id")), "id")
        .expr_as(Expr::col(("d", "dest_type")), "dest_type")
        .expr_as(Expr::col(("d", "sort_order")), "order")
        .expr_as(Expr::col(("d", "type_src")), "type_src")
        .expr_as(resolved("name"), "name")
        // The number the destination keeps (EXTERNAL's dialled one) before its target's.
        .expr_as(
            Func::coalesce([Expr::col(("d", "number")), resolved("number")]),
            "number",
        )
        .from_as("destinations", "d")
        .take()
}

/// The statement reading the lists of `owner`'s records `ids`, in order. Its head — two
/// `CASE`s of fifteen subqueries — is the same text on every read, so it is rendered once
/// per backend and kept ([`KeptHead`]): building and rendering it with sea-query on every
/// read was over a third of a paging group's `GET` (callgrind, issue 32). Only the owner condition,
/// whose placeholders follow the number of ids, is written per read.
struct ListsOf<'a> {
    owner: Owner,
    ids: &'a [i64],
}

impl sea_query_sqlx::SqlxBinder for ListsOf<'_> {
    fn build_sqlx<T: sea_query::QueryBuilder>(
        &self,
        builder: T,
    ) -> (String, sea_query_sqlx::SqlxValues) {
        static HEAD: KeptHead = KeptHead::new(lists_head);
        let (mut sql, mut placeholders) = HEAD.start(builder);
        sql.push_str(r#" WHERE "d"."owner_type" = "#);
        placeholders.push(&mut sql);
        sql.push_str(r#" AND "d"."owner_id" IN "#);
        placeholders.list(&mut sql, self.ids);
        sql.push_str(
            r#" ORDER BY "d"."owner_id" ASC, "d"."list" ASC, "d"."sort_order" ASC, "d"."position" ASC"#,
        );
        let mut values = Vec::with_capacity(1 + self.ids.len());
        values.push(sea_query::Value::from(self.owner.name()));
        values.extend(self.ids.iter().map(|&id| sea_query::Value::from(id)));
        (sql, sea_query_sqlx::SqlxValues(sea_query::Values(values)))
    }
}

/// The lists of the owners `ids`, keyed by (owner id, list name), each in order.
#[boxed]
pub async fn load(
    db: &Db,
    owner: Owner,
    ids: &[i64],
) -> Result<HashMap<(i64, String), Vec<Destination>>> {
    load_on(&mut db.conn(), owner, ids).await
}

/// [`load`] on `reader` (a transaction, for the audit trail).
#[boxed]
pub async fn load_on(
    reader: &mut impl Reader,
    owner: Owner,
    ids: &[i64],
) -> Result<HashMap<(i64, String), Vec<Destination>>> {
    let mut lists: HashMap<(i64, String), Vec<Destination>> = HashMap::new();
    if ids.is_empty() {
        return Ok(lists);
    }
    let select = ListsOf { owner, ids };
    let rows: Vec<Row> = reader.read_all(&select).await?;
    for row in rows {
        lists
            .entry((row.owner_id, row.list))
            .or_default()
            .push(row.destination);
    }
    Ok(lists)
}
