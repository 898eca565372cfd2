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
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project_lite::pin_project;
use tokio::sync::Notify;
use tokio::sync::futures::Notified;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::error::{Error, Result};

/// How often the probe checks the server.
pub const PROBE_EVERY: Duration = Duration::from_millis(500);

/// How long one probe (connecting, or `SELECT 1`) may take before the server counts as
/// down.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// How often statements waiting on PostgreSQL check whether their statement timeout has
/// passed: the precision of that timeout.
pub const TICK: Duration = Duration::from_millis(250);

/// The statement timeout unless configured (`SWITCHBOARD_DB_STATEMENT_TIMEOUT_SECONDS`).
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the database is known to be down.
#[derive(Debug)]
pub struct Circuit {
    open: AtomicBool,
    /// Whether failures open it (PostgreSQL); SQLite's never does.
    enabled: bool,
    /// Rung when the circuit opens and on every [`TICK`], so that what waits on the
    /// database gives up when it opens or its statement timeout has passed.
    rung: Notify,
    /// [`TICK`]s since the circuit was made: the clock statement timeouts are read on.
    ticks: AtomicU64,
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
            rung: Notify::new(),
            ticks: AtomicU64::new(0),
            statement_timeout,
        }
    }

    /// A circuit that never opens (for SQLite).
    pub fn never() -> Circuit {
        Circuit {
            open: AtomicBool::new(false),
            enabled: false,
            rung: Notify::new(),
            ticks: AtomicU64::new(0),
            statement_timeout: None,
        }
    }

    /// Whether the database is known to be down.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
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
                self.rung.notify_waiters();
                tracing::error!("the database is unreachable; answering 503 until it is back");
            } else {
                tracing::info!("the database answers again");
            }
        }
    }

    /// Runs `work` (a statement, or a transaction's wait for a connection): at once
    /// [`Error::Unavailable`] while the circuit is open, given up with that answer the
    /// moment it opens, and — when `bounded` — given up with [`Error::TimedOut`] once the
    /// statement timeout has passed (within [`TICK`] of it for a timeout of whole ticks, as
    /// every configured one in whole seconds is, else within two; a wait for a connection
    /// has the pool's acquire timeout instead).
    /// Dropping `work` drops its connection, which the pool tests as it takes it back
    /// (sqlx pings every connection returned to it).
    ///
    /// One wait on the circuit's bell watches both: rung when the circuit opens and on every
    /// [`TICK`] ([`Circuit::watch`]), after which the statement checks the circuit and its
    /// age in ticks. A timer of its own per statement (and a second wait for the opening)
    /// cost a wheel entry set and cleared on every round trip of the healthy path (issue
    /// 32).
    // Not `async`: the count is taken when the statement is made ready to run (every
    // caller awaits it at once), and each statement type's copy is one state machine
    // fewer.
    pub(crate) fn guard<T>(
        &self,
        bounded: bool,
        work: impl Future<Output = Result<T>>,
    ) -> impl Future<Output = Result<T>> {
        // Every round trip of a request passes here: its one place to be counted.
        crate::statements::one_more();
        Watched {
            work,
            trouble: self.trouble(bounded),
        }
    }

    /// As [`Circuit::guard`], uncounted, for the wait for a connection lent for several
    /// statements ([`crate::backend::Held`]), which counts its statements itself: as a
    /// statement on the pool counts once however it got its connection.
    pub(crate) fn guard_lending<T>(
        &self,
        work: impl Future<Output = Result<T>>,
    ) -> impl Future<Output = Result<T>> {
        Watched {
            work,
            trouble: self.trouble(false),
        }
    }

    /// What gives a statement up, unless the circuit never opens (SQLite's).
    fn trouble(&self, bounded: bool) -> Option<Trouble<'_>> {
        if !self.enabled {
            return None;
        }
        Some(Trouble {
            circuit: self,
            limit: self
                .statement_timeout
                .filter(|_| bounded)
                // Ticks that must pass before the statement has surely waited its
                // timeout: one more than it spans, as the first may be nearly over
                // when it starts.
                .map(|limit| limit.as_nanos().div_ceil(TICK.as_nanos()) as u64 + 1),
            started: None,
            rung: self.rung.notified(),
        })
    }

    /// Passes `result` through, opening the circuit when it failed for want of a
    /// connection (which then answers as [`Error::Unavailable`]).
    pub fn observe<T>(&self, result: Result<T>) -> Result<T> {
        result.map_err(|error| self.observe_failure(error))
    }

    /// What a failed statement answers: [`Error::Unavailable`] (opening the circuit) when
    /// it failed for want of a connection, [`Error::Busy`] when every connection was busy.
    fn observe_failure(&self, error: Error) -> Error {
        match error {
            Error::Database(error) if self.enabled && is_connection_failure(&error) => {
                tracing::warn!(%error, "a statement could not reach the database");
                self.set(true);
                Error::Unavailable
            }
            // Every connection busy is saturation, not an outage: this statement is
            // answered 503, the others go on (the probe alone judges whether a pool
            // that cannot connect is down).
            Error::Database(sqlx::Error::PoolTimedOut) => Error::Busy,
            other => other,
        }
    }

    /// One more [`TICK`]: the waiting statements check their age.
    fn tick(&self) {
        self.ticks.fetch_add(1, Ordering::AcqRel);
        self.rung.notify_waiters();
    }

    /// Ticks `circuit`'s clock every [`TICK`] (never two ticks closer: a late one delays
    /// the next) until the circuit is gone.
    async fn clock(circuit: std::sync::Weak<Circuit>) {
        let mut ticks = tokio::time::interval(TICK);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match circuit.upgrade() {
                Some(circuit) => circuit.tick(),
                None => break,
            }
        }
    }

    /// Probes the PostgreSQL server at `options` until every other holder of `circuit`
    /// is gone, opening and closing it as the server goes and comes back; and ticks the
    /// clock of its statement timeouts meanwhile ([`TICK`]).
    pub(crate) fn watch(circuit: Arc<Circuit>, options: PgConnectOptions) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        // A task of its own: a probe that waits on a silent server must not stop the clock.
        runtime.spawn(Circuit::clock(Arc::downgrade(&circuit)));
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

pin_project! {
    /// A statement (`work`) raced against its [`Trouble`], which a disabled circuit
    /// (SQLite's) does not have ([`Circuit::guard`]).
    // A future of our own rather than an `async fn` racing the two with
    // `tokio::select!`: this is generic in `work`, so compiled once per statement type,
    // and that race with its second state machine (the disabled circuit's plain
    // `work.await`) was a fifteenth of the database crate's code (issue 33). What is
    // left per type is the poll below; the watching is `Trouble`'s, compiled once.
    pub(crate) struct Watched<'a, W> {
        #[pin]
        work: W,
        #[pin]
        trouble: Option<Trouble<'a>>,
    }
}

impl<T, W: Future<Output = Result<T>>> Future for Watched<'_, W> {
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.project();
        let Some(mut trouble) = this.trouble.as_pin_mut() else {
            return this.work.poll(cx);
        };
        // The circuit open before the statement ran: it is not run.
        if trouble.as_mut().refuses_at_once() {
            return Poll::Ready(Err(Error::Unavailable));
        }
        // The statement first (a `biased` race): an answer that is there wins.
        if let Poll::Ready(result) = this.work.poll(cx) {
            return Poll::Ready(result);
        }
        trouble.poll_trouble(cx).map(Err)
    }
}

pin_project! {
    /// What gives a statement up: the circuit's opening ([`Error::Unavailable`]) or,
    /// with a `limit`, the statement timeout ([`Error::TimedOut`]), counted from its first
    /// poll (right after the statement's own first poll: never earlier than the timeout).
    /// Not generic: compiled once.
    pub(crate) struct Trouble<'a> {
        circuit: &'a Circuit,
        // Ticks the statement may wait; `None`: unbounded.
        limit: Option<u64>,
        // The circuit's tick count at the first poll; `None` before it.
        started: Option<u64>,
        #[pin]
        rung: Notified<'a>,
    }
}

impl Trouble<'_> {
    /// Whether the circuit was open at the first poll, before the statement ran.
    fn refuses_at_once(self: Pin<&mut Self>) -> bool {
        self.started.is_none() && self.circuit.is_open()
    }

    /// Ready with the error that gives the statement up, once there is one.
    fn poll_trouble(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Error> {
        let mut this = self.project();
        let circuit = *this.circuit;
        let started = *this
            .started
            .get_or_insert_with(|| circuit.ticks.load(Ordering::Acquire));
        loop {
            // Before the checks: whatever rings after them wakes this wait.
            this.rung.as_mut().enable();
            if circuit.is_open() {
                return Poll::Ready(Error::Unavailable);
            }
            let waited = circuit.ticks.load(Ordering::Acquire).wrapping_sub(started);
            if this.limit.is_some_and(|limit| waited >= limit) {
                tracing::warn!(
                    seconds = limit_seconds(circuit.statement_timeout),
                    "a statement got no answer within the statement timeout"
                );
                return Poll::Ready(Error::TimedOut);
            }
            match this.rung.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                // Rung: wait for the next ring, checking again first.
                Poll::Ready(()) => this.rung.set(circuit.rung.notified()),
            }
        }
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

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    /// Ticks `circuit`'s clock as [`Circuit::watch`] does, without a server to probe.
    fn clock(circuit: &Arc<Circuit>) {
        tokio::spawn(Circuit::clock(Arc::downgrade(circuit)));
    }

    #[tokio::test]
    async fn a_statement_without_an_answer_is_given_up_after_its_timeout_not_before() {
        let circuit = Arc::new(Circuit::opening(Some(Duration::from_millis(600))));
        clock(&circuit);
        let started = Instant::now();
        let answer = circuit
            .guard(true, std::future::pending::<Result<()>>())
            .await;
        let took = started.elapsed();
        assert!(matches!(answer, Err(Error::TimedOut)), "{answer:?}");
        assert!(
            took >= Duration::from_millis(600) && took < Duration::from_millis(600) + TICK * 3,
            "{took:?}"
        );
        // Unbounded (a wait for a connection) and answered: the timeout does not apply.
        let answer = circuit
            .guard(false, async {
                tokio::time::sleep(Duration::from_millis(900)).await;
                Ok(7)
            })
            .await;
        assert_eq!(answer.ok(), Some(7));
    }

    #[tokio::test]
    async fn a_statement_made_before_the_circuit_opened_is_not_run() {
        let circuit = Arc::new(Circuit::opening(None));
        let ran = AtomicBool::new(false);
        let statement = circuit.guard(true, async {
            ran.store(true, Ordering::SeqCst);
            Ok(())
        });
        // Opened between the statement's making and its first poll.
        circuit.set(true);
        let answer = statement.await;
        assert!(matches!(answer, Err(Error::Unavailable)), "{answer:?}");
        assert!(!ran.load(Ordering::SeqCst), "the statement ran");
    }

    #[tokio::test]
    async fn what_waits_is_released_when_the_circuit_opens() {
        let circuit = Arc::new(Circuit::opening(None));
        let waiting = tokio::spawn({
            let circuit = circuit.clone();
            async move {
                circuit
                    .guard(true, std::future::pending::<Result<()>>())
                    .await
            }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let opened = Instant::now();
        circuit.set(true);
        let answer = waiting.await.expect("the guard ran");
        assert!(matches!(answer, Err(Error::Unavailable)), "{answer:?}");
        assert!(opened.elapsed() < Duration::from_millis(200));
        // And while it is open, at once.
        let answer = circuit.guard(true, async { Ok(()) }).await;
        assert!(matches!(answer, Err(Error::Unavailable)), "{answer:?}");
    }
}
