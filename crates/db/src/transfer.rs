//! Copying a SQLite installation's database into an empty PostgreSQL one
//! (`switchboard migrate-data`). Generic over tables: the list comes from SQLite's own
//! schema (every table but SQLite's internals, sqlx's migration log and the full-text
//! search tables, which PostgreSQL replaces with trigram indexes), and rows are copied by
//! column name, so a table added by a later migration is copied without a change here —
//! and a table or column PostgreSQL lacks stops the copy instead of being dropped.
//!
//! All or nothing: the whole copy is one PostgreSQL transaction, with triggers off
//! (`session_replication_role = replica`: the counters and the dial plan are copied as
//! they are, not counted again), ids kept, sequences set past the largest id, and row
//! counts compared before the commit.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use switchboard_declare::boxed;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{AssertSqlSafe, Connection, Row};

/// Why a copy stopped.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The source or the target is not fit for the copy (said for the operator).
    #[error("{0}")]
    Refused(String),
    /// A database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

type Result<T> = std::result::Result<T, TransferError>;

/// A table copied and its rows, counted on both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    /// The table.
    pub table: String,
    /// Rows in the source.
    pub source_rows: i64,
    /// Rows in the target after the copy (equal, or the copy fails).
    pub target_rows: i64,
}

/// How a column is read from SQLite and written to PostgreSQL.
#[derive(Clone, Debug)]
enum Kind {
    Integer,
    Real,
    Boolean,
    /// Anything else: read as text, cast by PostgreSQL to the column's type (named).
    Text(String),
}

/// A failure of the copy, said for the operator.
fn refuse(message: String) -> TransferError {
    TransferError::Refused(message)
}

/// The tables of a SQLite database that hold data: not SQLite's own, not sqlx's migration
/// log, not full-text search tables (virtual ones and their shadow tables).
#[boxed]
pub async fn sqlite_tables(source: &mut SqliteConnection) -> Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT name, COALESCE(sql, '') AS sql FROM sqlite_master WHERE type = 'table' ORDER BY name",
    )
    .fetch_all(&mut *source)
    .await?;
    let all: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.get::<String, _>("name"), r.get::<String, _>("sql")))
        .collect();
    let virtual_tables: Vec<&str> = all
        .iter()
        .filter(|(_, sql)| sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL TABLE"))
        .map(|(name, _)| name.as_str())
        .collect();
    Ok(all
        .iter()
        .map(|(name, _)| name)
        .filter(|name| !name.starts_with("sqlite_") && *name != "_sqlx_migrations")
        .filter(|name| {
            !virtual_tables
                .iter()
                .any(|v| *name == v || name.starts_with(&format!("{v}_")))
        })
        .cloned()
        .collect())
}

/// PostgreSQL's tables in the public schema (without sqlx's migration log).
#[boxed]
pub async fn postgres_tables(target: &mut PgConnection) -> Result<BTreeSet<String>> {
    let rows = sqlx::query(
        "SELECT table_name::text AS name FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' \
         AND table_name <> '_sqlx_migrations'",
    )
    .fetch_all(&mut *target)
    .await?;
    Ok(rows.iter().map(|r| r.get::<String, _>("name")).collect())
}

/// Refuses a target that holds rows in any table the copy would fill (checked again
/// inside the copy's transaction; this early check lets the caller refuse before copying
/// objects).
#[boxed]
pub async fn check_target_empty(source_url: &str, target_url: &str) -> Result<()> {
    let mut source = SqliteConnection::connect_with(
        &SqliteConnectOptions::from_str(source_url)?.read_only(true),
    )
    .await?;
    let mut target = PgConnection::connect_with(&PgConnectOptions::from_str(target_url)?).await?;
    // The role must be allowed to turn triggers off: said now, before any object is copied.
    let mut probe = target.begin().await?;
    replica_role(&mut probe).await?;
    probe.rollback().await?;
    let pg_tables = postgres_tables(&mut target).await?;
    for table in sqlite_tables(&mut source).await? {
        if !pg_tables.contains(&table) {
            continue;
        }
        let rows: i64 =
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT COUNT(*) FROM \"{table}\"")))
                .fetch_one(&mut target)
                .await?;
        if rows > 0 {
            return Err(refuse(format!(
                "the target database is not empty: {table} has {rows} rows"
            )));
        }
    }
    Ok(())
}

/// What an operator must do when the target's role may not set `session_replication_role`.
pub const REPLICA_ROLE_HINT: &str = "migrate-data turns the target's triggers off for the copy (SET session_replication_role = replica), which this role may not do: run it as a superuser, or on PostgreSQL 15 and later `GRANT SET ON PARAMETER session_replication_role TO <role>` (docs/operations.md)";

/// Turns triggers off for the rest of `tx` (`session_replication_role = replica`), or
/// refuses with [`REPLICA_ROLE_HINT`] when the role may not: PostgreSQL's own message
/// ("permission denied to set parameter") does not say what to do.
async fn replica_role(tx: &mut PgConnection) -> Result<()> {
    match sqlx::query("SET LOCAL session_replication_role = replica")
        .execute(&mut *tx)
        .await
    {
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42501") => {
            Err(refuse(format!("{REPLICA_ROLE_HINT}: {}", e.message())))
        }
        Err(e) => Err(e.into()),
    }
}

/// Copies every table of the SQLite database at `source_url` into the PostgreSQL database
/// at `target_url` (already migrated to the same version, and empty), in one transaction.
#[boxed]
pub async fn sqlite_to_postgres(source_url: &str, target_url: &str) -> Result<Vec<Copied>> {
    let mut source = SqliteConnection::connect_with(
        &SqliteConnectOptions::from_str(source_url)?.read_only(true),
    )
    .await?;
    // One read transaction: every table is read from the same moment.
    sqlx::query("BEGIN").execute(&mut source).await?;
    let mut target = PgConnection::connect_with(&PgConnectOptions::from_str(target_url)?).await?;
    let tables = sqlite_tables(&mut source).await?;
    let pg_tables = postgres_tables(&mut target).await?;
    if let Some(missing) = tables.iter().find(|t| !pg_tables.contains(*t)) {
        return Err(refuse(format!(
            "the table {missing} of the SQLite database has no PostgreSQL counterpart: are both at the same version?"
        )));
    }
    let mut tx = target.begin().await?;
    for table in &tables {
        let rows: i64 =
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT COUNT(*) FROM \"{table}\"")))
                .fetch_one(&mut *tx)
                .await?;
        if rows > 0 {
            return Err(refuse(format!(
                "the target database is not empty: {table} has {rows} rows"
            )));
        }
    }
    // Triggers (counters, the dial plan, foreign keys) off for this transaction: the
    // rows are copied as they are, in any table order.
    replica_role(&mut tx).await?;
    sqlx::query("SET LOCAL TIME ZONE 'UTC'")
        .execute(&mut *tx)
        .await?;
    let mut copied = Vec::new();
    for table in &tables {
        let columns = columns(&mut source, &mut tx, table).await?;
        let source_rows = copy_table(&mut source, &mut tx, table, &columns).await?;
        reset_sequences(&mut tx, table, &columns).await?;
        let target_rows: i64 =
            sqlx::query_scalar(AssertSqlSafe(format!("SELECT COUNT(*) FROM \"{table}\"")))
                .fetch_one(&mut *tx)
                .await?;
        if source_rows != target_rows {
            return Err(refuse(format!(
                "{table}: {source_rows} rows read, {target_rows} in the target"
            )));
        }
        copied.push(Copied {
            table: table.clone(),
            source_rows,
            target_rows,
        });
    }
    tx.commit().await?;
    sqlx::query("COMMIT").execute(&mut source).await?;
    Ok(copied)
}

/// The columns of `table` to copy with how each is carried: SQLite's, each of which
/// PostgreSQL must have (columns PostgreSQL generates itself are left to it).
async fn columns(
    source: &mut SqliteConnection,
    target: &mut PgConnection,
    table: &str,
) -> Result<Vec<(String, Kind)>> {
    let sqlite: Vec<String> = sqlx::query("SELECT name FROM pragma_table_info($1) ORDER BY cid")
        .bind(table)
        .fetch_all(&mut *source)
        .await?
        .iter()
        .map(|r| r.get::<String, _>("name"))
        .collect();
    let pg: BTreeMap<String, (String, bool)> = sqlx::query(
        "SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, \
         a.attgenerated <> '' AS generated FROM pg_attribute a \
         WHERE a.attrelid = ('public.' || quote_ident($1))::regclass AND a.attnum > 0 \
         AND NOT a.attisdropped",
    )
    .bind(table)
    .fetch_all(&mut *target)
    .await?
    .iter()
    .map(|r| {
        (
            r.get::<String, _>("name"),
            (r.get::<String, _>("type"), r.get::<bool, _>("generated")),
        )
    })
    .collect();
    let mut columns = Vec::new();
    for name in sqlite {
        let Some((data_type, generated)) = pg.get(&name) else {
            return Err(refuse(format!(
                "the column {table}.{name} of the SQLite database has no PostgreSQL counterpart"
            )));
        };
        if *generated {
            continue;
        }
        let kind = match data_type.as_str() {
            "bigint" | "integer" | "smallint" => Kind::Integer,
            "double precision" | "real" => Kind::Real,
            "boolean" => Kind::Boolean,
            other => Kind::Text(other.to_owned()),
        };
        columns.push((name, kind));
    }
    Ok(columns)
}

/// Rows per INSERT: PostgreSQL takes at most 65,535 parameters a statement.
fn batch_rows(columns: usize) -> usize {
    (60_000 / columns.max(1)).clamp(1, 1000)
}

/// Copies `table`'s rows in id order (rowid order for tables without one), in batches;
/// answers how many were read.
async fn copy_table(
    source: &mut SqliteConnection,
    target: &mut PgConnection,
    table: &str,
    columns: &[(String, Kind)],
) -> Result<i64> {
    if columns.is_empty() {
        return Ok(0);
    }
    let select_list: Vec<String> = columns
        .iter()
        .map(|(name, kind)| match kind {
            Kind::Integer | Kind::Boolean => format!("CAST(\"{name}\" AS INTEGER)"),
            Kind::Real => format!("CAST(\"{name}\" AS REAL)"),
            Kind::Text(_) => format!("CAST(\"{name}\" AS TEXT)"),
        })
        .collect();
    let column_list: Vec<String> = columns.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    let per_batch = batch_rows(columns.len());
    let mut offset: i64 = 0;
    loop {
        // Keyset paging would need a key per table; LIMIT/OFFSET inside one read
        // transaction sees the same rows in the same (rowid) order at every step.
        let select = format!(
            "SELECT {} FROM \"{table}\" ORDER BY rowid LIMIT {per_batch} OFFSET {offset}",
            select_list.join(", ")
        );
        let rows = match sqlx::query(AssertSqlSafe(select))
            .fetch_all(&mut *source)
            .await
        {
            Ok(rows) => rows,
            // A WITHOUT ROWID table: its primary key orders it.
            Err(_) => {
                let select = format!(
                    "SELECT {} FROM \"{table}\" ORDER BY 1 LIMIT {per_batch} OFFSET {offset}",
                    select_list.join(", ")
                );
                sqlx::query(AssertSqlSafe(select))
                    .fetch_all(&mut *source)
                    .await?
            }
        };
        if rows.is_empty() {
            break;
        }
        let mut placeholders = Vec::with_capacity(rows.len());
        let mut n = 0;
        for _ in &rows {
            let values: Vec<String> = columns
                .iter()
                .map(|(_, kind)| {
                    n += 1;
                    match kind {
                        Kind::Integer => format!("${n}::bigint"),
                        Kind::Real => format!("${n}::double precision"),
                        Kind::Boolean => format!("(${n}::bigint <> 0)"),
                        Kind::Text(pg_type) => format!("CAST(${n}::text AS {pg_type})"),
                    }
                })
                .collect();
            placeholders.push(format!("({})", values.join(", ")));
        }
        // Text is cast by PostgreSQL to the column's own type (JSON, timestamps), as a
        // literal of that type would be.
        let insert = format!(
            "INSERT INTO \"{table}\" ({}) OVERRIDING SYSTEM VALUE VALUES {}",
            column_list.join(", "),
            placeholders.join(", ")
        );
        let mut query = sqlx::query(AssertSqlSafe(insert));
        for row in &rows {
            for (i, (_, kind)) in columns.iter().enumerate() {
                query = match kind {
                    Kind::Integer | Kind::Boolean => query.bind(row.get::<Option<i64>, _>(i)),
                    Kind::Real => query.bind(row.get::<Option<f64>, _>(i)),
                    Kind::Text(_) => query.bind(row.get::<Option<String>, _>(i)),
                };
            }
        }
        query.execute(&mut *target).await?;
        offset += i64::try_from(rows.len()).unwrap_or(i64::MAX);
    }
    Ok(offset)
}

/// Sets every sequence of `table` (serial and identity columns) past the largest value
/// copied, so the next insert does not collide with a kept id.
async fn reset_sequences(
    target: &mut PgConnection,
    table: &str,
    columns: &[(String, Kind)],
) -> Result<()> {
    for (column, _) in columns {
        let sequence: Option<String> = sqlx::query_scalar("SELECT pg_get_serial_sequence($1, $2)")
            .bind(format!("public.\"{table}\""))
            .bind(column)
            .fetch_one(&mut *target)
            .await?;
        if let Some(sequence) = sequence {
            sqlx::query(AssertSqlSafe(format!(
                "SELECT setval($1, COALESCE((SELECT MAX(\"{column}\") FROM \"{table}\"), 0) + 1, false)"
            )))
            .bind(sequence)
            .execute(&mut *target)
            .await?;
        }
    }
    Ok(())
}
