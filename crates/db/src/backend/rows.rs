//! What a statement answers on either backend, and what it is decoded into: rows kept
//! undecoded until the statement has run ([`Rows`], [`Row`]), records ([`Record`]) and
//! single values ([`Scalar`]).

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Decode, FromRow, Postgres, Sqlite, Type};

use crate::error::Result;

/// A row type readable from both backends.
pub trait Record:
    for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + 'static
{
}
impl<T> Record for T where
    T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin + 'static
{
}

/// A single column value readable from both backends.
pub trait Scalar:
    for<'r> Decode<'r, Sqlite>
    + Type<Sqlite>
    + for<'r> Decode<'r, Postgres>
    + Type<Postgres>
    + Send
    + Unpin
    + 'static
{
}
impl<T> Scalar for T where
    T: for<'r> Decode<'r, Sqlite>
        + Type<Sqlite>
        + for<'r> Decode<'r, Postgres>
        + Type<Postgres>
        + Send
        + Unpin
        + 'static
{
}

/// Rows as a statement answered them, not yet decoded into records: what the statement
/// methods run, so that their async bodies are compiled once per statement type and only
/// this decoding once per record type (issue 33).
pub(crate) enum Rows {
    /// SQLite's.
    Sqlite(Vec<SqliteRow>),
    /// PostgreSQL's.
    Postgres(Vec<PgRow>),
}

impl From<Vec<SqliteRow>> for Rows {
    fn from(rows: Vec<SqliteRow>) -> Rows {
        Rows::Sqlite(rows)
    }
}

impl From<Vec<PgRow>> for Rows {
    fn from(rows: Vec<PgRow>) -> Rows {
        Rows::Postgres(rows)
    }
}

impl Rows {
    /// How many rows there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Rows::Sqlite(rows) => rows.len(),
            Rows::Postgres(rows) => rows.len(),
        }
    }

    /// Each row read as a `T`.
    pub(crate) fn decode<T: Record>(self) -> Result<Vec<T>> {
        // Each row dropped once decoded, as sqlx's own `query_as` does.
        let records: std::result::Result<Vec<T>, sqlx::Error> = match self {
            Rows::Sqlite(rows) => rows.into_iter().map(|row| T::from_row(&row)).collect(),
            Rows::Postgres(rows) => rows.into_iter().map(|row| T::from_row(&row)).collect(),
        };
        Ok(records?)
    }
}

/// One row as a statement answered it (see [`Rows`]).
pub(crate) enum Row {
    /// SQLite's.
    Sqlite(SqliteRow),
    /// PostgreSQL's.
    Postgres(PgRow),
}

impl From<SqliteRow> for Row {
    fn from(row: SqliteRow) -> Row {
        Row::Sqlite(row)
    }
}

impl From<PgRow> for Row {
    fn from(row: PgRow) -> Row {
        Row::Postgres(row)
    }
}

impl Row {
    /// The row read as a `T`.
    pub(crate) fn decode<T: Record>(self) -> Result<T> {
        let record = match &self {
            Row::Sqlite(row) => T::from_row(row),
            Row::Postgres(row) => T::from_row(row),
        };
        Ok(record?)
    }
}
