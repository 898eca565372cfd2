//! The schema and the files: migrating, the migrations a database or a backup at rest
//! has, and SQLite's copies (a backup written while others write, a backup opened to read).

use std::str::FromStr;
use std::sync::Arc;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::PgConnectOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{AssertSqlSafe, SqlSafeStr};

use super::{AuditHooks, Db, Pool};
use crate::circuit::Circuit;
use crate::error::Result;
use crate::session_cache::SessionCache;

/// The migrations embedded by `build.rs` from `migrations/<backend>/`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
}

/// sqlx's migrator over `files` (version, description, SQL): each migration's checksum
/// is the SHA-384 of its SQL, as `sqlx::migrate!` computed it, so databases migrated by
/// earlier builds are recognised; a file starting `-- no-transaction` runs outside one.
fn migrator(files: &'static [(i64, &'static str, &'static str)]) -> Migrator {
    let migrations = files
        .iter()
        .map(|&(version, description, sql)| {
            let no_tx = sql.starts_with("-- no-transaction");
            let sql = AssertSqlSafe(sql).into_sql_str();
            Migration::new(
                version,
                description.into(),
                MigrationType::Simple,
                sql,
                no_tx,
            )
        })
        .collect();
    Migrator::with_migrations(migrations)
}

/// The newest version of `files`.
fn latest(files: &[(i64, &str, &str)]) -> i64 {
    files.iter().map(|m| m.0).max().unwrap_or(0)
}

impl Db {
    /// Applies the migrations of the backend in use (plain SQL, one folder per backend).
    pub async fn migrate(&self) -> Result<()> {
        match &self.pool {
            Pool::Sqlite(pool) => migrator(embedded::SQLITE).run(pool).await?,
            Pool::Postgres(pool) => migrator(embedded::POSTGRES).run(pool).await?,
        }
        Ok(())
    }

    /// The newest SQLite migration this build knows: a database migrated past it was
    /// written by a newer release (a restore refuses it).
    pub fn latest_sqlite_migration() -> i64 {
        latest(embedded::SQLITE)
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
        latest(embedded::POSTGRES)
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

    /// The SQLite file at `path` opened for reading only (see
    /// [`Db::open_sqlite_at_rest`]), its transactions audited through `audit`.
    pub(crate) async fn open_sqlite_at_rest_with(
        path: &std::path::Path,
        audit: &'static AuditHooks,
    ) -> Result<Db> {
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
            audit,
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
}
