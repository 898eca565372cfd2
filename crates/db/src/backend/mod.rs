//! The one place that knows which database is in use: connecting, migrating, and running
//! a sea-query statement on SQLite or PostgreSQL, on the pool or inside a transaction.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sea_query::{PostgresQueryBuilder, SqliteQueryBuilder};
use sea_query_sqlx::SqlxBinder;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, Decode, FromRow, Postgres, Sqlite, Transaction, Type};

use crate::circuit::Circuit;
use crate::error::Result;
use crate::session_cache::{SessionCache, touches_accounts};
use crate::wakeups::{self, Wakeups, Worker};

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

/// Which engine a database URL selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// SQLite, the embedded default.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A connection pool to the configured database.
#[derive(Clone, Debug)]
pub struct Db {
    pool: Pool,
    /// Open while the database is known to be down.
    circuit: Arc<Circuit>,
    /// Transactions waiting for a connection right now (the pool does not count them).
    waiting: Arc<std::sync::atomic::AtomicU64>,
    /// Verified sessions, invalidated by this pool's account writes.
    sessions: Arc<SessionCache>,
    /// The bells of this process's workers, rung by the commits that queue their work.
    wakeups: Arc<Wakeups>,
}

/// The pool's figures at one moment, for the metrics.
#[derive(Clone, Copy, Debug)]
pub struct PoolFigures {
    /// Open connections.
    pub size: u32,
    /// Open connections not checked out.
    pub idle: u32,
    /// Transactions waiting for a connection.
    pub waiting: u64,
    /// The largest pool.
    pub max: u32,
}

/// An open transaction; dropped without [`Tx::commit`], it rolls back.
pub struct Tx {
    inner: TxInner,
    circuit: Arc<Circuit>,
    /// The audited writes of this transaction, written to the trail at [`Tx::commit`]
    /// (when the record and its child lists are final).
    pub(crate) audits: Vec<crate::audit::Pending>,
    sessions: Arc<SessionCache>,
    /// Whether a statement changed an account or a session: the cache is invalidated
    /// once the change is committed.
    accounts_touched: bool,
    /// The workers this transaction queued work for, woken once it has committed.
    wake: wakeups::Pending,
    wakeups: Arc<Wakeups>,
}

enum TxInner {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

/// Runs `$body` with `$q` bound to the statement rendered for the pool's backend and
/// `$conn` to the executor.
macro_rules! on_pool {
    ($pool:expr, $stmt:expr, |$sql:ident, $values:ident, $conn:ident| $body:expr) => {
        match $pool {
            Pool::Sqlite($conn) => {
                let ($sql, $values) = $stmt.build_sqlx(SqliteQueryBuilder);
                $body
            }
            Pool::Postgres($conn) => {
                let ($sql, $values) = $stmt.build_sqlx(PostgresQueryBuilder);
                $body
            }
        }
    };
}

macro_rules! on_tx {
    ($tx:expr, $stmt:expr, |$sql:ident, $values:ident, $conn:ident| $body:expr) => {
        match $tx {
            TxInner::Sqlite(tx) => {
                let ($sql, $values) = $stmt.build_sqlx(SqliteQueryBuilder);
                let $conn = &mut **tx;
                $body
            }
            TxInner::Postgres(tx) => {
                let ($sql, $values) = $stmt.build_sqlx(PostgresQueryBuilder);
                let $conn = &mut **tx;
                $body
            }
        }
    };
}

/// The statement-running methods, shared by the pool and a transaction.
macro_rules! statement_methods {
    ($on:ident, $target:ident) => {
        /// Runs a statement, answering the rows it affected.
        pub async fn execute(&mut self, stmt: &impl SqlxBinder) -> Result<u64> {
            let circuit = self.circuit();
            let mut touched = false;
            let result: Result<u64> = circuit
                .guard(true, async {
                    Ok($on!(self.$target(), stmt, |sql, values, conn| {
                        touched = touches_accounts(&sql);
                        sqlx::query_with(AssertSqlSafe(sql), values)
                            .execute(conn)
                            .await?
                            .rows_affected()
                    }))
                })
                .await;
            self.accounts_written(touched);
            circuit.observe(result)
        }

        /// Runs a query answering every row.
        pub async fn fetch_all<T: Record>(&mut self, stmt: &impl SqlxBinder) -> Result<Vec<T>> {
            let circuit = self.circuit();
            let mut touched = false;
            let result: Result<Vec<T>> = circuit
                .guard(true, async {
                    Ok($on!(self.$target(), stmt, |sql, values, conn| {
                        touched = touches_accounts(&sql);
                        sqlx::query_as_with(AssertSqlSafe(sql), values)
                            .fetch_all(conn)
                            .await?
                    }))
                })
                .await;
            self.accounts_written(touched);
            circuit.observe(result)
        }

        /// Runs a query answering at most one row.
        pub async fn fetch_optional<T: Record>(
            &mut self,
            stmt: &impl SqlxBinder,
        ) -> Result<Option<T>> {
            let circuit = self.circuit();
            let mut touched = false;
            let result: Result<Option<T>> = circuit
                .guard(true, async {
                    Ok($on!(self.$target(), stmt, |sql, values, conn| {
                        touched = touches_accounts(&sql);
                        sqlx::query_as_with(AssertSqlSafe(sql), values)
                            .fetch_optional(conn)
                            .await?
                    }))
                })
                .await;
            self.accounts_written(touched);
            circuit.observe(result)
        }

        /// Runs a query answering exactly one row; none is [`Error::NotFound`](crate::Error::NotFound).
        pub async fn fetch_one<T: Record>(&mut self, stmt: &impl SqlxBinder) -> Result<T> {
            self.fetch_optional(stmt)
                .await?
                .ok_or(crate::Error::NotFound)
        }

        /// Runs a query answering one value (a count, an inserted id).
        pub async fn scalar<T: Scalar>(&mut self, stmt: &impl SqlxBinder) -> Result<T> {
            let circuit = self.circuit();
            let mut touched = false;
            let result: Result<T> = circuit
                .guard(true, async {
                    Ok($on!(self.$target(), stmt, |sql, values, conn| {
                        touched = touches_accounts(&sql);
                        sqlx::query_scalar_with(AssertSqlSafe(sql), values)
                            .fetch_one(conn)
                            .await?
                    }))
                })
                .await;
            self.accounts_written(touched);
            circuit.observe(result)
        }
    };
}

/// What read statements run on: the pool, or a transaction, which sees its own writes —
/// so a record is read the one way the API answers it both for the API and, inside the
/// write, for the audit trail's snapshots.
pub trait Reader: Send {
    /// Runs a query answering every row.
    fn read_all<T: Record>(
        &mut self,
        stmt: &(impl SqlxBinder + Sync),
    ) -> impl std::future::Future<Output = Result<Vec<T>>> + Send;
}

impl Reader for PoolConn<'_> {
    fn read_all<T: Record>(
        &mut self,
        stmt: &(impl SqlxBinder + Sync),
    ) -> impl std::future::Future<Output = Result<Vec<T>>> + Send {
        self.fetch_all(stmt)
    }
}

impl Reader for Tx {
    fn read_all<T: Record>(
        &mut self,
        stmt: &(impl SqlxBinder + Sync),
    ) -> impl std::future::Future<Output = Result<Vec<T>>> + Send {
        self.fetch_all(stmt)
    }
}

/// Settings for opening the database.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// `sqlite://path` or `postgres://…`.
    pub url: String,
    /// Largest pool size.
    pub max_connections: u32,
    /// Longest a PostgreSQL statement may wait for its answer (see [`crate::circuit`]);
    /// `None`: as long as it takes (offline commands copying whole tables).
    pub statement_timeout: Option<Duration>,
}

impl Db {
    /// Opens a pool on `url`: `sqlite://…` (created if missing, WAL, busy timeout,
    /// foreign keys on) or `postgres://…`.
    pub async fn connect(options: &ConnectOptions) -> Result<Db> {
        let circuit;
        let sessions;
        let pool = match Self::backend_of(&options.url) {
            Backend::Postgres => {
                let connect = PgConnectOptions::from_str(&options.url)?;
                circuit = Arc::new(Circuit::opening(options.statement_timeout));
                sessions = Arc::new(SessionCache::new(false));
                Circuit::watch(circuit.clone(), connect.clone());
                Pool::Postgres(
                    PgPoolOptions::new()
                        .max_connections(options.max_connections)
                        .acquire_timeout(Duration::from_secs(10))
                        .connect_with(connect)
                        .await?,
                )
            }
            Backend::Sqlite => {
                let connect = SqliteConnectOptions::from_str(&options.url)?
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(10))
                    .foreign_keys(true);
                circuit = Arc::new(Circuit::never());
                // One process's file (docs/decisions.md): no other writer to hear from.
                sessions = Arc::new(SessionCache::new(true));
                Pool::Sqlite(
                    SqlitePoolOptions::new()
                        .max_connections(options.max_connections)
                        .acquire_timeout(Duration::from_secs(10))
                        .connect_with(connect)
                        .await?,
                )
            }
        };
        Ok(Db {
            pool,
            circuit,
            waiting: Arc::default(),
            sessions,
            wakeups: Arc::default(),
        })
    }

    /// The backend a database URL selects.
    pub fn backend_of(url: &str) -> Backend {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }

    /// Whether [`Db::connect`] would take `url` (its form only: nothing is opened),
    /// saying why not; for checking the settings before anything starts.
    pub fn check_url(url: &str) -> std::result::Result<(), String> {
        if Self::backend_of(url) == Backend::Postgres {
            PgConnectOptions::from_str(url).map(drop)
        } else if url.starts_with("sqlite:") {
            SqliteConnectOptions::from_str(url).map(drop)
        } else {
            return Err("must start with sqlite:// or postgres://".into());
        }
        .map_err(|error| error.to_string())
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// Whether free-text search goes through trigram full-text tables kept beside the
    /// searched tables (SQLite's FTS5), rather than trigram indexes on the columns
    /// themselves (PostgreSQL's pg_trgm).
    pub fn keeps_search_tables(&self) -> bool {
        match self.pool {
            Pool::Sqlite(_) => true,
            Pool::Postgres(_) => false,
        }
    }

    /// Applies the migrations of the backend in use (plain SQL, one folder per backend).
    pub async fn migrate(&self) -> Result<()> {
        match &self.pool {
            Pool::Sqlite(pool) => sqlx::migrate!("migrations/sqlite").run(pool).await?,
            Pool::Postgres(pool) => sqlx::migrate!("migrations/postgres").run(pool).await?,
        }
        Ok(())
    }

    /// Whether the database answers a trivial query (at once `false` while it is known
    /// to be down; `false` when it takes longer than the probe's timeout).
    pub async fn ping(&self) -> bool {
        if self.circuit.is_open() {
            return false;
        }
        let answered = async {
            let result: Result<()> = match &self.pool {
                Pool::Sqlite(pool) => sqlx::query("SELECT 1").execute(pool).await.map(drop),
                Pool::Postgres(pool) => sqlx::query("SELECT 1").execute(pool).await.map(drop),
            }
            .map_err(Into::into);
            // A ping that cannot reach the server opens the circuit like any statement.
            self.circuit.observe(result).is_ok()
        };
        tokio::time::timeout(crate::circuit::PROBE_TIMEOUT * 2, answered)
            .await
            .unwrap_or(false)
    }

    /// The verified-session cache of this pool (see [`crate::session_cache`]).
    pub fn sessions(&self) -> &Arc<SessionCache> {
        &self.sessions
    }

    /// On PostgreSQL, starts listening for the account changes other processes make,
    /// which the session cache needs before it serves anything; nothing to do on SQLite.
    pub fn listen_for_account_changes(&self) {
        if let Pool::Postgres(pool) = &self.pool {
            // A pool of its own: the listener holds its connection for good, which must
            // neither shrink the requests' pool nor count as a connection in use.
            let listening = PgPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(Duration::from_secs(10))
                .connect_lazy_with((*pool.connect_options()).clone());
            tokio::spawn(self.sessions.clone().listen(pool.clone(), listening));
        }
    }

    /// Whether the database is known to be down (see [`crate::circuit`]).
    pub fn unavailable(&self) -> bool {
        self.circuit.is_open()
    }

    /// Connections checked out of the pool right now (for the readiness report and tests
    /// that show a stalled client holds none).
    pub fn connections_in_use(&self) -> u32 {
        let (size, idle) = match &self.pool {
            Pool::Sqlite(pool) => (pool.size(), pool.num_idle()),
            Pool::Postgres(pool) => (pool.size(), pool.num_idle()),
        };
        size.saturating_sub(u32::try_from(idle).unwrap_or(u32::MAX))
    }

    /// Whether the circuit is open: the database is known to be down and statements
    /// fail at once (see [`crate::circuit`]); never on SQLite.
    pub fn circuit_open(&self) -> bool {
        self.circuit.is_open()
    }

    /// The pool's size, idle connections, waiting transactions and largest size now.
    pub fn pool_figures(&self) -> PoolFigures {
        let (size, idle, max) = match &self.pool {
            Pool::Sqlite(pool) => (
                pool.size(),
                pool.num_idle(),
                pool.options().get_max_connections(),
            ),
            Pool::Postgres(pool) => (
                pool.size(),
                pool.num_idle(),
                pool.options().get_max_connections(),
            ),
        };
        PoolFigures {
            size,
            idle: u32::try_from(idle).unwrap_or(u32::MAX),
            waiting: self.waiting.load(std::sync::atomic::Ordering::Relaxed),
            max,
        }
    }

    /// Whether a connection can be had within `bound` (for readiness: a pool exhausted
    /// for that long cannot serve a request in time either).
    pub async fn connection_within(&self, bound: Duration) -> bool {
        if self.circuit.is_open() {
            return false;
        }
        let acquired = async {
            match &self.pool {
                Pool::Sqlite(pool) => pool.acquire().await.map(drop),
                Pool::Postgres(pool) => pool.acquire().await.map(drop),
            }
        };
        matches!(tokio::time::timeout(bound, acquired).await, Ok(Ok(())))
    }

    /// The newest SQLite migration this build knows: a database migrated past it was
    /// written by a newer release (a restore refuses it).
    pub fn latest_sqlite_migration() -> i64 {
        sqlx::migrate!("migrations/sqlite")
            .iter()
            .map(|m| m.version)
            .max()
            .unwrap_or(0)
    }

    /// The newest migration applied to the SQLite file at `path`, opened immutable (read
    /// without taking a lock or writing a journal: it is a backup at rest), 0 for none.
    pub async fn sqlite_schema_version(path: &std::path::Path) -> Result<i64> {
        use sqlx::Connection;
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(path)
            .read_only(true)
            .immutable(true);
        let mut conn = sqlx::SqliteConnection::connect_with(&options).await?;
        let version: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(&mut conn)
                .await?;
        conn.close().await?;
        Ok(version.unwrap_or(0))
    }

    /// The newest PostgreSQL migration this build knows: a backup of a database migrated
    /// past it was written by a newer release (a restore refuses it).
    pub fn latest_postgres_migration() -> i64 {
        sqlx::migrate!("migrations/postgres")
            .iter()
            .map(|m| m.version)
            .max()
            .unwrap_or(0)
    }

    /// The newest migration applied to this database, 0 for none.
    pub async fn schema_version(&self) -> Result<i64> {
        let version: Option<i64> = match &self.pool {
            Pool::Sqlite(pool) => {
                sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
                    .fetch_one(pool)
                    .await?
            }
            Pool::Postgres(pool) => {
                sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
                    .fetch_one(pool)
                    .await?
            }
        };
        Ok(version.unwrap_or(0))
    }

    /// The tables, views and sequences of the PostgreSQL database at `url` (in its current
    /// schema): a restore from `pg_dump` goes into a database holding none.
    pub async fn postgres_relations(url: &str) -> Result<Vec<String>> {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect_with(&PgConnectOptions::from_str(url)?).await?;
        let names: Vec<String> = sqlx::query_scalar(
            "SELECT c.relname::text FROM pg_catalog.pg_class c \
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S') \
             ORDER BY 1",
        )
        .fetch_all(&mut conn)
        .await?;
        conn.close().await?;
        Ok(names)
    }

    /// The SQLite file at `path` opened immutable, as [`Db::sqlite_schema_version`] opens
    /// it, for reading only: a restore reads the backup's sealed values with it before
    /// anything is copied.
    pub async fn open_sqlite_at_rest(path: &std::path::Path) -> Result<Db> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .read_only(true)
            .immutable(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        Ok(Db {
            pool: Pool::Sqlite(pool),
            circuit: Arc::new(Circuit::never()),
            waiting: Arc::default(),
            sessions: Arc::new(SessionCache::new(true)),
            wakeups: Arc::default(),
        })
    }

    /// Writes a consistent copy of a SQLite database to the new file `path` while others
    /// go on writing (`VACUUM INTO`, one read transaction). PostgreSQL has its own tools
    /// (pg_dump, base backups): refused there.
    pub async fn vacuum_into(&self, path: &str) -> Result<()> {
        match &self.pool {
            Pool::Sqlite(pool) => {
                sqlx::query("VACUUM INTO $1")
                    .bind(path)
                    .execute(pool)
                    .await?;
                Ok(())
            }
            Pool::Postgres(_) => Err(sqlx::Error::Configuration(
                "VACUUM INTO is SQLite's: back PostgreSQL up with pg_dump".into(),
            )
            .into()),
        }
    }

    /// Closes every connection.
    pub async fn close(&self) {
        match &self.pool {
            Pool::Sqlite(pool) => pool.close().await,
            Pool::Postgres(pool) => pool.close().await,
        }
    }

    /// Starts a transaction that will write. On SQLite it takes the write lock up front
    /// (`BEGIN IMMEDIATE`): a deferred transaction that reads and then writes fails at
    /// once with SQLITE_BUSY when another writer got in between, whereas waiting for the
    /// lock at the start is covered by the busy timeout.
    pub async fn begin(&self) -> Result<Tx> {
        use std::sync::atomic::Ordering;
        // The wait for a connection (and its BEGIN): the figure that grows first when the
        // pool is too small for the load.
        let started = std::time::Instant::now();
        self.waiting.fetch_add(1, Ordering::Relaxed);
        // Released when the circuit opens; bounded by the pool's acquire timeout.
        let inner: Result<TxInner> = self
            .circuit
            .guard(false, async {
                Ok(match &self.pool {
                    Pool::Sqlite(pool) => {
                        TxInner::Sqlite(pool.begin_with("BEGIN IMMEDIATE").await?)
                    }
                    Pool::Postgres(pool) => TxInner::Postgres(pool.begin().await?),
                })
            })
            .await;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        metrics::histogram!("switchboard_db_acquire_seconds")
            .record(started.elapsed().as_secs_f64());
        Ok(Tx {
            inner: self.circuit.observe(inner)?,
            circuit: self.circuit.clone(),
            audits: Vec::new(),
            sessions: self.sessions.clone(),
            accounts_touched: false,
            wake: wakeups::Pending::default(),
            wakeups: self.wakeups.clone(),
        })
    }

    fn target(&self) -> &Pool {
        &self.pool
    }

    /// The bells of this process's workers: the workers wait on them, and writes that
    /// commit outside a transaction ring them.
    pub fn wakeups(&self) -> &Wakeups {
        &self.wakeups
    }

    /// A handle to run statements on the pool, one connection per statement.
    pub fn conn(&self) -> PoolConn<'_> {
        PoolConn { db: self }
    }

    /// Runs a query on one connection, released before this answers, answering its rows
    /// and, for the last row, the values of the selected columns aliased `key` and `id`
    /// (the sort key and the id a list continues after). The key is `None` when its type
    /// is one this cannot carry into the next query (the caller then continues by offset).
    pub async fn fetch_keyed<T: Record>(
        &self,
        stmt: &impl SqlxBinder,
        key: &str,
        id: &str,
    ) -> Result<Keyed<T>> {
        let result = self
            .circuit
            .guard(true, self.fetch_keyed_unguarded(stmt, key, id))
            .await;
        self.circuit.observe(result)
    }

    async fn fetch_keyed_unguarded<T: Record>(
        &self,
        stmt: &impl SqlxBinder,
        key: &str,
        id: &str,
    ) -> Result<Keyed<T>> {
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
                let records = rows
                    .iter()
                    .map(T::from_row)
                    .collect::<std::result::Result<Vec<T>, _>>()?;
                Ok(Keyed { records, last })
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
                let records = rows
                    .iter()
                    .map(T::from_row)
                    .collect::<std::result::Result<Vec<T>, _>>()?;
                Ok(Keyed { records, last })
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
pub struct Keyed<T> {
    /// The rows.
    pub records: Vec<T>,
    /// The last row's sort key (when carried) and id; `None` for an empty batch.
    pub last: Option<(Option<SortKey>, i64)>,
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

/// Statements run straight on the pool (see [`Db::conn`]).
pub struct PoolConn<'a> {
    db: &'a Db,
}

impl PoolConn<'_> {
    fn target(&self) -> &Pool {
        self.db.target()
    }
    fn circuit(&self) -> Arc<Circuit> {
        self.db.circuit.clone()
    }
    /// A statement outside a transaction is committed when it answers.
    fn accounts_written(&self, touched: bool) {
        if touched {
            self.db.sessions.changed();
        }
    }
    statement_methods!(on_pool, target);
}

impl Tx {
    fn target(&mut self) -> &mut TxInner {
        &mut self.inner
    }
    fn circuit(&self) -> Arc<Circuit> {
        self.circuit.clone()
    }
    fn accounts_written(&mut self, touched: bool) {
        self.accounts_touched |= touched;
    }
    statement_methods!(on_tx, target);

    /// Makes every other transaction that locks one of `keys` wait until this one ends,
    /// so that a read-then-write on something no row stands for (the failures of an
    /// e-mail address that may have no account) cannot be raced. PostgreSQL takes an
    /// advisory lock per key (in one order, so two such transactions cannot deadlock);
    /// SQLite needs nothing, its write transactions running one at a time already
    /// (`BEGIN IMMEDIATE`).
    pub async fn lock_keys(&mut self, keys: &[&str]) -> Result<()> {
        let circuit = self.circuit();
        let result = circuit
            .guard(true, async {
                if let TxInner::Postgres(tx) = &mut self.inner {
                    let mut keys = keys.to_vec();
                    keys.sort_unstable();
                    keys.dedup();
                    for key in keys {
                        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                            .bind(key)
                            .execute(&mut **tx)
                            .await?;
                    }
                }
                Ok(())
            })
            .await;
        circuit.observe(result)
    }

    /// Row `id` of `table` as a JSON object of its columns, leaving out the columns
    /// `keep` refuses (secrets are never read for the audit trail); `None` when there is
    /// no such row. `table` is one of the code's own table names, never input.
    pub async fn row_json(
        &mut self,
        table: &'static str,
        id: i64,
        keep: fn(&str) -> bool,
    ) -> Result<Option<serde_json::Map<String, serde_json::Value>>> {
        Ok(self.rows_json_by_id(table, &[id], keep).await?.pop())
    }

    /// Rows `ids` of `table` as [`Tx::row_json`] reads one, in one query; rows that do not
    /// exist are left out, the order is the table's.
    async fn rows_json_by_id(
        &mut self,
        table: &'static str,
        ids: &[i64],
        keep: fn(&str) -> bool,
    ) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
        let circuit = self.circuit();
        let result = circuit
            .guard(true, async {
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let columns: Vec<String> = match &mut self.inner {
                    TxInner::Sqlite(tx) => {
                        sqlx::query_scalar("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
                            .bind(table)
                            .fetch_all(&mut **tx)
                            .await?
                    }
                    TxInner::Postgres(tx) => {
                        sqlx::query_scalar(
                            "SELECT column_name::text FROM information_schema.columns \
                             WHERE table_schema = current_schema() AND table_name = $1 \
                             ORDER BY ordinal_position",
                        )
                        .bind(table)
                        .fetch_all(&mut **tx)
                        .await?
                    }
                };
                let pairs: Vec<String> = columns
                    .iter()
                    .filter(|c| keep(c) && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_'))
                    .map(|c| format!("'{c}', \"{c}\""))
                    .collect();
                if pairs.is_empty() {
                    return Ok(Vec::new());
                }
                // Integers written into the statement: no input, and no limit on bound values.
                let list = ids
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                let texts: Vec<String> = match &mut self.inner {
                    TxInner::Sqlite(tx) => {
                        let sql = format!(
                            "SELECT json_object({}) FROM \"{table}\" WHERE id IN ({list}) ORDER BY id",
                            pairs.join(", ")
                        );
                        sqlx::query_scalar(AssertSqlSafe(sql))
                            .fetch_all(&mut **tx)
                            .await?
                    }
                    TxInner::Postgres(tx) => {
                        // json_build_object takes at most 100 arguments: built in chunks of 50
                        // columns and merged.
                        let objects: Vec<String> = pairs
                            .chunks(50)
                            .map(|chunk| format!("jsonb_build_object({})", chunk.join(", ")))
                            .collect();
                        let sql = format!(
                            "SELECT ({})::text FROM \"{table}\" WHERE id IN ({list}) ORDER BY id",
                            objects.join(" || ")
                        );
                        sqlx::query_scalar(AssertSqlSafe(sql))
                            .fetch_all(&mut **tx)
                            .await?
                    }
                };
                Ok(texts
                    .iter()
                    .filter_map(|text| match serde_json::from_str(text) {
                        Ok(serde_json::Value::Object(map)) => Some(map),
                        _ => None,
                    })
                    .collect())
            })
            .await;
        circuit.observe(result)
    }

    /// Makes the transaction's writes permanent, the audit entries of its changes first.
    pub async fn commit(mut self) -> Result<()> {
        crate::audit::flush(&mut self).await?;
        let inner = self.inner;
        let committed: Result<()> = self
            .circuit
            .guard(true, async {
                match inner {
                    TxInner::Sqlite(tx) => tx.commit().await?,
                    TxInner::Postgres(tx) => tx.commit().await?,
                }
                Ok(())
            })
            .await;
        // After the commit (even a failed one, which may have committed): a session read
        // before it was stored under the old generation and is never served.
        if self.accounts_touched {
            self.sessions.changed();
        }
        // Only now: a worker woken before the commit would find nothing and sleep.
        if committed.is_ok() {
            self.wake.ring(&self.wakeups);
        }
        self.circuit.observe(committed)
    }

    /// Wakes `worker` once this transaction has committed (not at all if it is rolled
    /// back): called by whatever queues work for it, so no caller has to.
    pub fn wake_after_commit(&mut self, worker: Worker) {
        self.wake.add(worker);
    }
}
