//! A database outage is answered, not waited out.
//!
//! Without this, every request during a PostgreSQL outage waits for the pool's acquire
//! timeout and answers 500. The circuit opens as soon as the database is known to be
//! down (a statement failed for want of a connection, or the probe could not reach the
//! server); while it is open, every statement fails at once with
//! [`Error::Unavailable`](crate::Error::Unavailable), which the API answers 503 with
//! `Retry-After`. A background probe, one small connection of its own checked every
//! [`PROBE_EVERY`], closes it again when the server answers; the pool's connections are
//! tested before use, so the broken ones are replaced without a restart.
//!
//! Whatever is already waiting on the database when the circuit opens — for a pooled
//! connection, or for a statement's answer — is released at that moment with the same
//! answer ([`Circuit::guard`]): without it, the requests queued for a connection waited
//! out the pool's acquire timeout and answered "busy", and a statement sent to a server
//! that went silent waited for the request timeout. A statement is also bounded on its
//! own by the statement timeout, for the one connection that goes silent while the
//! server (and the probe) still answer.
//!
//! SQLite has no outage of that kind (the database is a file of this process; its
//! failures are those of the disk, answered per statement, and its lock waits are bounded
//! by its busy timeout), so there is no probe, the circuit never opens and nothing is
//! guarded.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::error::{Error, Result};

/// How often the probe checks the server.
pub const PROBE_EVERY: Duration = Duration::from_millis(500);

/// How long one probe (connecting, or `SELECT 1`) may take before the server counts as
/// down.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// The statement timeout unless configured (`SWITCHBOARD_DB_STATEMENT_TIMEOUT_SECONDS`).
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the database is known to be down.
#[derive(Debug)]
pub struct Circuit {
    open: AtomicBool,
    /// Whether failures open it (PostgreSQL); SQLite's never does.
    enabled: bool,
    /// Woken when the circuit opens, so that what waits on the database gives up then.
    opened: Notify,
    /// Longest a statement may wait for its answer; `None`: as long as it takes.
    statement_timeout: Option<Duration>,
}

impl Circuit {
    /// A circuit that connection failures open (for PostgreSQL), bounding each statement
    /// by `statement_timeout` (`None`: unbounded, for offline commands' long copies).
    pub fn opening(statement_timeout: Option<Duration>) -> Circuit {
        Circuit {
            open: AtomicBool::new(false),
            enabled: true,
            opened: Notify::new(),
            statement_timeout,
        }
    }

    /// A circuit that never opens (for SQLite).
    pub fn never() -> Circuit {
        Circuit {
            open: AtomicBool::new(false),
            enabled: false,
            opened: Notify::new(),
            statement_timeout: None,
        }
    }

    /// Whether the database is known to be down.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }

    /// Fails at once while the database is known to be down.
    pub fn check(&self) -> Result<()> {
        if self.is_open() {
            Err(Error::Unavailable)
        } else {
            Ok(())
        }
    }

    fn set(&self, open: bool) {
        if !self.enabled {
            return;
        }
        let was = self.open.swap(open, Ordering::AcqRel);
        if was != open {
            if open {
                // After the flag: a waiter enables its notification before it reads the
                // flag, so it either sees the circuit open or is woken here.
                self.opened.notify_waiters();
                tracing::error!("the database is unreachable; answering 503 until it is back");
            } else {
                tracing::info!("the database answers again");
            }
        }
    }

    /// Runs `work` (a statement, or a transaction's wait for a connection): at once
    /// [`Error::Unavailable`] while the circuit is open, given up with that answer the
    /// moment it opens, and — when `bounded` — given up with [`Error::TimedOut`] after the
    /// statement timeout (a wait for a connection has the pool's acquire timeout instead).
    /// Dropping `work` drops its connection, which the pool tests before it serves again.
    pub(crate) async fn guard<T>(
        &self,
        bounded: bool,
        work: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        // Every round trip of a request passes here: its one place to be counted.
        crate::statements::one_more();
        if !self.enabled {
            return work.await;
        }
        let opened = self.opened.notified();
        tokio::pin!(opened);
        opened.as_mut().enable();
        self.check()?;
        let limit = self.statement_timeout.filter(|_| bounded);
        let limit = async {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            biased;
            result = work => result,
            () = opened => Err(Error::Unavailable),
            () = limit => {
                tracing::warn!(
                    seconds = limit_seconds(self.statement_timeout),
                    "a statement got no answer within the statement timeout"
                );
                Err(Error::TimedOut)
            }
        }
    }

    /// Passes `result` through, opening the circuit when it failed for want of a
    /// connection (which then answers as [`Error::Unavailable`]).
    pub fn observe<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(Error::Database(error)) if self.enabled && is_connection_failure(&error) => {
                tracing::warn!(%error, "a statement could not reach the database");
                self.set(true);
                Err(Error::Unavailable)
            }
            // Every connection busy is saturation, not an outage: this statement is
            // answered 503, the others go on (the probe alone judges whether a pool
            // that cannot connect is down).
            Err(Error::Database(sqlx::Error::PoolTimedOut)) => Err(Error::Busy),
            other => other,
        }
    }

    /// Probes the PostgreSQL server at `options` until every other holder of `circuit`
    /// is gone, opening and closing it as the server goes and comes back.
    pub(crate) fn watch(circuit: Arc<Circuit>, options: PgConnectOptions) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let mut probe: Option<PgConnection> = None;
            let mut ticks = tokio::time::interval(PROBE_EVERY);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Only the probe holds it: the database handle is gone, and so is the need.
            while Arc::strong_count(&circuit) > 1 {
                ticks.tick().await;
                let answered = match probe.as_mut() {
                    Some(connection) => tokio::time::timeout(PROBE_TIMEOUT, connection.ping())
                        .await
                        .is_ok_and(|r| r.is_ok()),
                    None => false,
                };
                if answered {
                    circuit.set(false);
                    continue;
                }
                // No connection, or it broke: connecting again decides.
                if let Some(broken) = probe.take() {
                    drop(broken);
                }
                match tokio::time::timeout(PROBE_TIMEOUT, PgConnection::connect_with(&options))
                    .await
                {
                    Ok(Ok(connection)) => {
                        probe = Some(connection);
                        circuit.set(false);
                    }
                    _ => circuit.set(true),
                }
            }
        });
    }
}

/// A statement timeout in seconds, for the log.
fn limit_seconds(limit: Option<Duration>) -> f64 {
    limit.map_or(f64::INFINITY, |limit| limit.as_secs_f64())
}

/// Whether `error` says the server could not be reached (rather than that a statement
/// was wrong): the socket failed or broke the protocol mid-message, or the pool was
/// closed under it. No connection within the acquire timeout (`PoolTimedOut`) is not
/// one: a saturated pool says so too, and opening the circuit then would refuse
/// everyone for the load of a few; when the server is really gone the probe opens it.
fn is_connection_failure(error: &sqlx::Error) -> bool {
    matches!(
        error,
        sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed
    )
}
