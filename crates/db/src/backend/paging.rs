//! Keyset paging: a list read in batches, each continuing after the last row's sort key
//! and id (see [`crate::list`]), with the key read back by each backend's own types.

use sea_query::{PostgresQueryBuilder, SqliteQueryBuilder};
use sea_query_sqlx::SqlxBinder;
use sqlx::AssertSqlSafe;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;

use super::{Db, Pool, Rows};
use crate::error::Result;

impl Db {
    /// Runs a query on one connection, released before this answers, answering its rows
    /// and, for the last row, the values of the selected columns aliased `key` and `id`
    /// (the sort key and the id a list continues after). The key is `None` when its type
    /// is one this cannot carry into the next query (the caller then continues by offset).
    pub(crate) async fn fetch_keyed(
        &self,
        stmt: &impl SqlxBinder,
        key: &str,
        id: &str,
    ) -> Result<Keyed> {
        let result = self
            .circuit
            .guard(true, self.fetch_keyed_rows(stmt, key, id))
            .await;
        let (rows, last) = self.circuit.observe(result)?;
        Ok(Keyed { rows, last })
    }

    /// [`Db::fetch_keyed`] but for the circuit.
    async fn fetch_keyed_rows(
        &self,
        stmt: &impl SqlxBinder,
        key: &str,
        id: &str,
    ) -> Result<(Rows, Option<(Option<SortKey>, i64)>)> {
        use sqlx::Row;
        match &self.pool {
            Pool::Sqlite(pool) => {
                let (sql, values) = stmt.build_sqlx(SqliteQueryBuilder);
                let rows = sqlx::query_with(AssertSqlSafe(sql), values)
                    .fetch_all(pool)
                    .await?;
                let last = match rows.last() {
                    Some(row) => Some((sqlite_key(row, key), row.try_get::<i64, _>(id)?)),
                    None => None,
                };
                Ok((Rows::from(rows), last))
            }
            Pool::Postgres(pool) => {
                let (sql, values) = stmt.build_sqlx(PostgresQueryBuilder);
                let rows = sqlx::query_with(AssertSqlSafe(sql), values)
                    .fetch_all(pool)
                    .await?;
                let last = match rows.last() {
                    Some(row) => Some((postgres_key(row, key), row.try_get::<i64, _>(id)?)),
                    None => None,
                };
                Ok((Rows::from(rows), last))
            }
        }
    }

    /// Whether `NULL` sorts before every value in ascending order (SQLite) rather than
    /// after them (PostgreSQL).
    pub fn nulls_sort_first(&self) -> bool {
        match self.pool {
            Pool::Sqlite(_) => true,
            Pool::Postgres(_) => false,
        }
    }
}

/// A batch of rows read by [`Db::fetch_keyed`], with where the next batch starts.
pub(crate) struct Keyed {
    /// The rows, as read (decoded by the caller: see [`Rows`]).
    pub(crate) rows: Rows,
    /// The last row's sort key (when carried) and id; `None` for an empty batch.
    pub(crate) last: Option<(Option<SortKey>, i64)>,
}

/// A sort key read back from a row, to ask for the rows after it.
#[derive(Clone, Debug)]
pub enum SortKey {
    /// The row's sort column is `NULL`.
    Null,
    /// Its value, ready to bind.
    Value(sea_query::Value),
}

/// The sort key of a SQLite row, by the value's storage class.
fn sqlite_key(row: &SqliteRow, key: &str) -> Option<SortKey> {
    use sqlx::{Row, TypeInfo, ValueRef};
    let raw = row.try_get_raw(key).ok()?;
    if raw.is_null() {
        return Some(SortKey::Null);
    }
    let value = match raw.type_info().name() {
        "INTEGER" => sea_query::Value::from(row.try_get_unchecked::<i64, _>(key).ok()?),
        "REAL" => sea_query::Value::from(row.try_get_unchecked::<f64, _>(key).ok()?),
        "TEXT" => sea_query::Value::from(row.try_get_unchecked::<String, _>(key).ok()?),
        _ => return None,
    };
    Some(SortKey::Value(value))
}

/// The sort key of a PostgreSQL row, by the column's type.
fn postgres_key(row: &PgRow, key: &str) -> Option<SortKey> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
    use sqlx::{Row, TypeInfo, ValueRef};
    let raw = row.try_get_raw(key).ok()?;
    if raw.is_null() {
        return Some(SortKey::Null);
    }
    let value = match raw.type_info().name() {
        "INT2" => sea_query::Value::from(row.try_get::<i16, _>(key).ok()?),
        "INT4" => sea_query::Value::from(row.try_get::<i32, _>(key).ok()?),
        "INT8" => sea_query::Value::from(row.try_get::<i64, _>(key).ok()?),
        "FLOAT4" => sea_query::Value::from(row.try_get::<f32, _>(key).ok()?),
        "FLOAT8" => sea_query::Value::from(row.try_get::<f64, _>(key).ok()?),
        "BOOL" => sea_query::Value::from(row.try_get::<bool, _>(key).ok()?),
        "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" => {
            sea_query::Value::from(row.try_get::<String, _>(key).ok()?)
        }
        "TIMESTAMPTZ" => sea_query::Value::from(row.try_get::<DateTime<Utc>, _>(key).ok()?),
        "TIMESTAMP" => sea_query::Value::from(row.try_get::<NaiveDateTime, _>(key).ok()?),
        "DATE" => sea_query::Value::from(row.try_get::<NaiveDate, _>(key).ok()?),
        _ => return None,
    };
    Some(SortKey::Value(value))
}
