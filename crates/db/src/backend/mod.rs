//! The one place that knows which database is in use: connecting, migrating, and running
//! a sea-query statement on SQLite or PostgreSQL, on the pool or inside a transaction.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sea_query::{PostgresQueryBuilder, SqliteQueryBuilder};
use sea_query_sqlx::SqlxBinder;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, Postgres, Sqlite, Transaction};

use crate::audit::pending::Pending;
use crate::circuit::Circuit;
use crate::error::Result;
use crate::session_cache::{SessionCache, touches_accounts};
use crate::wakeups::{self, Wakeups, Worker};

pub mod paging;
mod rows;
mod schema;
mod snapshots;

pub use rows::{Record, Scalar};
pub(crate) use rows::{Row, Rows};

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

/// A future a hook of the audit trail answers, borrowing the transaction.
pub(crate) type HookFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T>> + Send + 'a>>;

/// Reads row `id` of a table as the API answers it, as the trail keeps it; `None` when
/// there is no such row.
pub(crate) type PresentOne =
    for<'a> fn(
        &'a mut Tx,
        i64,
    ) -> HookFuture<'a, Option<serde_json::Map<String, serde_json::Value>>>;

/// Reads rows `ids` of a table, just bulk-inserted, as the API answers them.
pub(crate) type PresentMany =
    for<'a> fn(
        &'a mut Tx,
        &'a [i64],
    ) -> HookFuture<'a, Vec<serde_json::Map<String, serde_json::Value>>>;

/// What a transaction asks of the audit trail, which stands above it (it reads records
/// through every store module): given when the database is opened (see
/// `crate::presented`), carried by each transaction.
pub(crate) struct AuditHooks {
    /// Writes the entries of the transaction's audited writes, before it commits.
    pub flush: for<'a> fn(&'a mut Tx) -> HookFuture<'a, ()>,
    /// The presenter of each audited table that the API answers records of.
    pub present: &'static [(&'static str, PresentOne)],
    /// The presenter of each table whose rows are bulk-inserted (imports).
    pub present_many: &'static [(&'static str, PresentMany)],
}

impl std::fmt::Debug for AuditHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditHooks").finish_non_exhaustive()
    }
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
    /// The audit trail's part of each transaction.
    audit: &'static AuditHooks,
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
    pub(crate) audits: Vec<Pending>,
    /// How those writes are written and their records read (see [`AuditHooks`]).
    pub(crate) audit: &'static AuditHooks,
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

/// One connection of the pool held for several statements ([`Db::held`]): a record and
/// its lists read on it pay one acquire and one release, where each statement on the pool
/// pays both — and sqlx pings every connection going back to the pool (a round trip to
/// the server, or to a SQLite connection's thread). Statements on it commit as they
/// answer, as on the pool; it goes back to the pool when dropped.
pub struct Held {
    inner: HeldInner,
    circuit: Arc<Circuit>,
    sessions: Arc<SessionCache>,
}

enum HeldInner {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
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

/// As [`on_pool`], on one connection of `$kind` (a transaction's, a held one's), which
/// dereferences to the backend's connection.
macro_rules! on_connection {
    ($kind:ident, $of:expr, $stmt:expr, |$sql:ident, $values:ident, $conn:ident| $body:expr) => {
        match $of {
            $kind::Sqlite(connection) => {
                let ($sql, $values) = $stmt.build_sqlx(SqliteQueryBuilder);
                let $conn = &mut **connection;
                $body
            }
            $kind::Postgres(connection) => {
                let ($sql, $values) = $stmt.build_sqlx(PostgresQueryBuilder);
                let $conn = &mut **connection;
                $body
            }
        }
    };
}

macro_rules! on_tx {
    ($($statement:tt)*) => {
        on_connection!(TxInner, $($statement)*)
    };
}

macro_rules! on_held {
    ($($statement:tt)*) => {
        on_connection!(HeldInner, $($statement)*)
    };
}

/// The statement-running methods, shared by the pool, a held connection and a transaction.
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
            self.fetch_rows(stmt).await?.decode()
        }

        /// Runs a query answering at most one row.
        pub async fn fetch_optional<T: Record>(
            &mut self,
            stmt: &impl SqlxBinder,
        ) -> Result<Option<T>> {
            self.fetch_row(stmt).await?.map(Row::decode).transpose()
        }

        /// Runs a query answering its rows as read: [`Self::fetch_all`] but the decoding,
        /// which alone depends on the record type (so this is compiled once per
        /// statement type, not once per record type as well: `Rows`).
        pub(crate) async fn fetch_rows(&mut self, stmt: &impl SqlxBinder) -> Result<Rows> {
            let circuit = self.circuit();
            let mut touched = false;
            let result: Result<Rows> = circuit
                .guard(true, async {
                    Ok($on!(self.$target(), stmt, |sql, values, conn| {
                        touched = touches_accounts(&sql);
                        Rows::from(
                            sqlx::query_with(AssertSqlSafe(sql), values)
                                .fetch_all(conn)
                                .await?,
                        )
                    }))
                })
                .await;
            self.accounts_written(touched);
            circuit.observe(result)
        }

        /// Runs a query answering at most one row, as read (see [`Self::fetch_rows`]).
        async fn fetch_row(&mut self, stmt: &impl SqlxBinder) -> Result<Option<Row>> {
            let circuit = self.circuit();
            let mut touched = false;
            let result: Result<Option<Row>> = circuit
                .guard(true, async {
                    Ok($on!(self.$target(), stmt, |sql, values, conn| {
                        touched = touches_accounts(&sql);
                        sqlx::query_with(AssertSqlSafe(sql), values)
                            .fetch_optional(conn)
                            .await?
                            .map(Row::from)
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

/// What read statements run on: the pool, a held connection, or a transaction, which
/// sees its own writes — so a record is read the one way the API answers it both for the
/// API and, inside the write, for the audit trail's snapshots.
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

impl Reader for Held {
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
    /// Opens a pool on `url` (see [`Db::connect`]) whose transactions are audited
    /// through `audit`.
    pub(crate) async fn connect_with(
        options: &ConnectOptions,
        audit: &'static AuditHooks,
    ) -> Result<Db> {
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
                let pool = SqlitePoolOptions::new()
                    .max_connections(options.max_connections)
                    .acquire_timeout(Duration::from_secs(10))
                    // A connection to a file in this process does not go stale: the ping
                    // sqlx sends before handing one out would cost every statement a round
                    // trip to the connection's thread and tell nothing.
                    .test_before_acquire(false)
                    .connect_with(connect)
                    .await?;
                if !plans_are_stable(&pool).await? {
                    tracing::warn!(
                        "this build's SQLite lacks its query planner stability guarantee \
                         (built without the repository's .cargo/config.toml?): statements \
                         are prepared again on every run of a list or a destination read"
                    );
                }
                Pool::Sqlite(pool)
            }
        };
        Ok(Db {
            pool,
            circuit,
            waiting: Arc::default(),
            sessions,
            wakeups: Arc::default(),
            audit,
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
            audit: self.audit,
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

    /// One connection of the pool for a read of several statements (see [`Held`]).
    pub async fn held(&self) -> Result<Held> {
        // Released when the circuit opens, like a transaction's wait for a connection.
        let inner: Result<HeldInner> = self
            .circuit
            .guard_lending(async {
                Ok(match &self.pool {
                    Pool::Sqlite(pool) => HeldInner::Sqlite(pool.acquire().await?),
                    Pool::Postgres(pool) => HeldInner::Postgres(pool.acquire().await?),
                })
            })
            .await;
        Ok(Held {
            inner: self.circuit.observe(inner)?,
            circuit: self.circuit.clone(),
            sessions: self.sessions.clone(),
        })
    }
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

impl Held {
    fn target(&mut self) -> &mut HeldInner {
        &mut self.inner
    }
    fn circuit(&self) -> Arc<Circuit> {
        self.circuit.clone()
    }
    /// A statement on a held connection is committed when it answers, as on the pool.
    fn accounts_written(&self, touched: bool) {
        if touched {
            self.sessions.changed();
        }
    }
    statement_methods!(on_held, target);
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

    /// Makes the transaction's writes permanent, the audit entries of its changes first.
    pub async fn commit(mut self) -> Result<()> {
        (self.audit.flush)(&mut self).await?;
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

/// Whether the SQLite this build links was compiled with its query planner stability
/// guarantee (`.cargo/config.toml`): without it a statement whose plan looked at a bound
/// value (`LIMIT ?`, a value beside a partial index's condition) is prepared again on
/// every run, since each run binds afresh.
async fn plans_are_stable(pool: &sqlx::SqlitePool) -> Result<bool> {
    let found: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM pragma_compile_options WHERE compile_options = 'ENABLE_QPSG'",
    )
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_bundled_sqlite_keeps_one_plan_per_statement() {
        let pool = sqlx::SqlitePool::connect("sqlite::memory:")
            .await
            .expect("an in-memory database");
        assert!(
            plans_are_stable(&pool).await.expect("its compile options"),
            "SQLite built without SQLITE_ENABLE_QPSG: is .cargo/config.toml's [env] gone?"
        );
    }
}
