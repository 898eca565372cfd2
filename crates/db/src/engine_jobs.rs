//! The engine work queue: outbound work (a fax to send, a text to send, a campaign call
//! to place) queued in the transaction of the record it works for, leased to one engine
//! at a time on the shared claim machinery ([`LeasedQueue`]: `SKIP LOCKED` on
//! PostgreSQL, the write lock on SQLite), and ended by the result the engine reports,
//! recorded once per attempt with what its kind makes of it (the record's new state and
//! its webhook event) in one transaction.
//!
//! Each kind's handling lives with its resource, as a [`Kind`]: what it does when a job is
//! claimed (and whether the job is still wanted) and what a result means for its record.
//! The kinds are registered above this crate (the API's engine routes hand every claim
//! and result the list), so the queue names none of them.

use futures::future::BoxFuture;
use sea_query::{Condition, Expr, ExprTrait, LockType, Order, Query};
use serde_json::{Value, json};
use switchboard_declare::boxed;
use switchboard_domain::ids::{EngineJobId, TenantId};
use switchboard_domain::records::engine_job::JobResult;
use switchboard_domain::serde::Serialize;
use switchboard_domain::serde::de::DeserializeOwned;

use crate::backend::{Db, Tx};
use crate::error::{Error, Result};
use crate::lease::LeasedQueue;

/// The engine jobs as a queue: pending jobs, due at `due_at`.
pub const QUEUE: LeasedQueue = LeasedQueue {
    table: "engine_jobs",
    due_at: "due_at",
};

/// What a kind's result handling decides for the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The work is done: the job ends `done`.
    Done,
    /// Try again at this time (Unix seconds): the job is pending again, a new attempt.
    RetryAt(i64),
    /// Given up: the job ends `failed` (a retry may requeue it).
    Failed,
}

/// Runs when a job of the kind is claimed, in the claim's transaction; answers whether
/// the job is still wanted (`false` cancels it and it is not handed out).
pub type OnClaim = for<'a> fn(&'a mut Tx, &'a Job, i64) -> BoxFuture<'a, Result<bool>>;

/// Runs when a result of an attempt is recorded, in its transaction: updates the job's
/// record, emits its webhook event, and says what becomes of the job.
pub type OnResult =
    for<'a> fn(&'a mut Tx, &'a Job, &'a JobResult, i64) -> BoxFuture<'a, Result<Next>>;

/// Runs when a job of the kind is given up because its leases ran out too often without
/// a result (the engine holding it kept dying), in the claim's transaction: ends its
/// record failed, with its event when the kind has one. The `&str` says why.
pub type OnAbandon = for<'a> fn(&'a mut Tx, &'a Job, &'a str, i64) -> BoxFuture<'a, Result<()>>;

/// The outcome recorded for a job given up after its leases ran out.
pub const ABANDONED: &str = "abandoned";

/// Answers, in the result's transaction and before anything is recorded, why `outcome`
/// is not one a result of `job` may report (`None`: it is).
pub type CheckOutcome =
    for<'a> fn(&'a mut Tx, &'a Job, &'a str) -> BoxFuture<'a, Result<Option<String>>>;

/// The outcomes a kind's results may report; any other is refused (400) before anything
/// is recorded.
#[derive(Clone, Copy)]
pub enum Outcomes {
    /// Exactly these (a fax's, a text's: `sent`, `failed`).
    Listed(&'static [&'static str]),
    /// Those the kind accepts for the job at hand, which depend on its records (a
    /// campaign call's: its tenant's call outcomes and the built-in ones).
    Checked(CheckOutcome),
}

/// The stored objects a job's payload names by key: the engine is handed links to them
/// signed when it claims the job, however long the job waited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Objects {
    /// A document to send (a fax's), handed as `documentURL`.
    pub document: Option<String>,
    /// Media to send (a text's), handed as `mediaUrls`; `None` when the kind has none.
    pub media: Option<Vec<String>>,
}

/// Answers the stored objects `job`'s payload names.
pub type NamedObjects = fn(&Job) -> Objects;

/// The [`NamedObjects`] of a kind whose payloads name none.
pub fn no_objects(_job: &Job) -> Objects {
    Objects::default()
}

/// One kind of engine work and its handling, declared by the module of its resource.
#[derive(Clone, Copy)]
pub struct Kind {
    /// Its name, as jobs and claims carry it (one of the domain's `engine_job::KINDS`).
    pub name: &'static str,
    /// The outcomes a result may report.
    pub outcomes: Outcomes,
    /// See [`OnClaim`].
    pub on_claim: OnClaim,
    /// See [`OnResult`].
    pub on_result: OnResult,
    /// See [`OnAbandon`].
    pub on_abandon: OnAbandon,
    /// See [`NamedObjects`].
    pub objects: NamedObjects,
}

/// The kind named `name` among `kinds`, the kinds the service registered.
fn named<'k>(kinds: &'k [Kind], name: &str) -> Option<&'k Kind> {
    kinds.iter().find(|k| k.name == name)
}

/// An engine job.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct Job {
    /// The job's id.
    pub id: EngineJobId,
    /// The tenant it is done for.
    pub tenant_id: TenantId,
    /// What to do.
    pub kind: String,
    /// The record it works for.
    pub subject_id: Option<i64>,
    /// Its arguments, as JSON text.
    pub payload: String,
    /// `pending`, `done`, `failed` or `cancelled`.
    pub state: String,
    /// Attempts made (claims): the current attempt's number.
    pub attempts: i64,
    /// Who holds its lease.
    pub lease_owner: Option<String>,
    /// Until when (Unix seconds).
    pub lease_until: Option<i64>,
}

impl Job {
    /// The job's tenant.
    pub fn tenant(&self) -> TenantId {
        self.tenant_id
    }

    /// Its payload as JSON, to hand the engine (an empty object if it is somehow not JSON).
    pub fn payload_json(&self) -> Value {
        serde_json::from_str(&self.payload).unwrap_or_else(|_| json!({}))
    }

    /// Its payload, as the struct its kind declares.
    pub fn payload<P: DeserializeOwned>(&self) -> std::result::Result<P, String> {
        serde_json::from_str(&self.payload).map_err(|e| {
            format!(
                "the payload of {} job {} cannot be read: {e}",
                self.kind, self.id
            )
        })
    }
}

const JOB_COLUMNS: [&str; 9] = [
    "id",
    "tenant_id",
    "kind",
    "subject_id",
    "payload",
    "state",
    "attempts",
    "lease_owner",
    "lease_until",
];

/// Queues a job of `kind` for `tenant`, working for record `subject`, due at `due_at`,
/// in `tx`: it exists exactly when the record that asks for it was committed. Answers
/// its id.
pub async fn enqueue(
    tx: &mut Tx,
    tenant: TenantId,
    kind: &Kind,
    subject: Option<i64>,
    payload: &impl Serialize,
    due_at: i64,
) -> Result<i64> {
    let now = chrono::Utc::now().timestamp();
    let payload = serde_json::to_string(payload)
        .map_err(|e| Error::Presenting(format!("a {} job's payload: {e}", kind.name)))?;
    let insert = Query::insert()
        .into_table("engine_jobs")
        .columns([
            "tenant_id",
            "kind",
            "subject_id",
            "payload",
            "due_at",
            "created_at",
        ])
        .values_panic([
            tenant.get().into(),
            kind.name.into(),
            subject.into(),
            payload.into(),
            due_at.into(),
            now.into(),
        ])
        .returning_col("id")
        .take();
    tx.scalar(&insert).await
}

/// Leases up to about `max` due jobs of the kinds named `wanted` to `owner` until
/// `lease_until`, each a new attempt, and runs each kind's [`OnClaim`] (of those among
/// `kinds`, the registered ones); answers the jobs handed out (those their kind still
/// wants), oldest due first.
///
/// A job claimed again while its current attempt has no result had its lease run out
/// (the engine holding it died or hung): that lapse is counted, and a job whose lapses
/// reach `max_leases` is not handed out but given up — its attempt recorded as
/// [`ABANDONED`] with the reason, its record failed by its kind ([`OnAbandon`]), the job
/// `failed` — so an engine that keeps dying on one job does not get it forever.
#[allow(clippy::too_many_arguments)] // a lease's terms, each named
#[boxed]
pub async fn claim(
    db: &Db,
    kinds: &[Kind],
    wanted: &[&str],
    owner: &str,
    now: i64,
    lease_until: i64,
    max: u64,
    max_leases: i64,
) -> Result<Vec<Job>> {
    let wanted = Condition::all().add(Expr::col("kind").is_in(wanted.iter().copied()));
    let ids = QUEUE
        .claim_where(db, owner, now, lease_until, max, wanted)
        .await?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut tx = db.begin().await?;
    // PostgreSQL may lease a few more than asked (see [`LeasedQueue::claim`]); an
    // engine's `max` is its capacity, so those beyond it are released at once.
    if ids.len() > usize::try_from(max).unwrap_or(usize::MAX) {
        let select = Query::select()
            .column("id")
            .from("engine_jobs")
            .and_where(Expr::col("id").is_in(ids.iter().copied()))
            .order_by("due_at", Order::Asc)
            .order_by("id", Order::Asc)
            .take();
        let ordered: Vec<(i64,)> = tx.fetch_all(&select).await?;
        let excess = ordered
            .iter()
            .skip(usize::try_from(max).unwrap_or(usize::MAX))
            .map(|(id,)| *id);
        let release = Query::update()
            .table("engine_jobs")
            .values([
                ("lease_owner", Option::<String>::None.into()),
                ("lease_until", Option::<i64>::None.into()),
            ])
            .and_where(Expr::col("id").is_in(excess))
            .and_where(Expr::col("lease_owner").eq(owner))
            .take();
        tx.execute(&release).await?;
    }
    // A job whose current attempt has no result was leased before and its lease ran out:
    // a lapse (a result, a manual retry or a retry after a result all leave one).
    let reported = Query::select()
        .expr(Expr::cust("1"))
        .from("engine_job_results")
        .and_where(Expr::col(("engine_job_results", "job_id")).equals(("engine_jobs", "id")))
        .and_where(Expr::col(("engine_job_results", "attempt")).equals(("engine_jobs", "attempts")))
        .take();
    let lapsed = Query::update()
        .table("engine_jobs")
        .value("lapses", Expr::col("lapses").add(1))
        .and_where(Expr::col("id").is_in(ids.iter().copied()))
        .and_where(Expr::col("lease_owner").eq(owner))
        .and_where(Expr::col("attempts").gt(0))
        .and_where(Expr::exists(reported).not())
        .take();
    tx.execute(&lapsed).await?;
    // Each claim is an attempt: its number is what the result names.
    let count = Query::update()
        .table("engine_jobs")
        .value("attempts", Expr::col("attempts").add(1))
        .and_where(Expr::col("id").is_in(ids.iter().copied()))
        .and_where(Expr::col("lease_owner").eq(owner))
        .take();
    tx.execute(&count).await?;
    let select = Query::select()
        .columns(JOB_COLUMNS)
        .column("lapses")
        .from("engine_jobs")
        .and_where(Expr::col("id").is_in(ids))
        .and_where(Expr::col("lease_owner").eq(owner))
        .order_by("due_at", Order::Asc)
        .order_by("id", Order::Asc)
        .take();
    let jobs: Vec<(Job, i64)> = tx
        .fetch_all::<JobWithLapses>(&select)
        .await?
        .into_iter()
        .map(|row| (row.job, row.lapses))
        .collect();
    let mut handed = Vec::with_capacity(jobs.len());
    for (job, lapses) in jobs {
        let kind = named(kinds, &job.kind);
        if lapses >= max_leases {
            abandon(&mut tx, kind, &job, lapses, now).await?;
            continue;
        }
        let wanted = match kind {
            Some(kind) => (kind.on_claim)(&mut tx, &job, now).await?,
            None => false,
        };
        if wanted {
            handed.push(job);
        } else {
            finish(&mut tx, job.id, "cancelled", None, now).await?;
        }
    }
    tx.commit().await?;
    Ok(handed)
}

/// A claimed job with its count of leases that ran out.
#[derive(switchboard_domain::declare::FromRow)]
struct JobWithLapses {
    #[sqlx(flatten)]
    job: Job,
    lapses: i64,
}

/// Gives up `job`, whose leases ran out `lapses` times without a result, in the claim's
/// transaction: its current attempt is recorded as [`ABANDONED`] with the reason, its
/// kind fails its record, and the job ends `failed`.
async fn abandon(tx: &mut Tx, kind: Option<&Kind>, job: &Job, lapses: i64, now: i64) -> Result<()> {
    // The claim counted an attempt it does not hand out: the last attempt is the one
    // whose lease ran out, and it is the one the reason is recorded for.
    let attempt = job.attempts - 1;
    let uncount = Query::update()
        .table("engine_jobs")
        .value("attempts", attempt)
        .and_where(Expr::col("id").eq(job.id.get()))
        .take();
    tx.execute(&uncount).await?;
    let job = &Job {
        attempts: attempt,
        ..job.clone()
    };
    let reason = format!(
        "given up: its lease ran out {lapses} times without a result (the engine holding it stopped answering)"
    );
    let insert = Query::insert()
        .into_table("engine_job_results")
        .columns(["job_id", "attempt", "outcome", "details", "recorded_at"])
        .values_panic([
            job.id.get().into(),
            job.attempts.into(),
            ABANDONED.into(),
            json!({"message": reason}).to_string().into(),
            now.into(),
        ])
        .on_conflict(
            sea_query::OnConflict::columns(["job_id", "attempt"])
                .do_nothing()
                .to_owned(),
        )
        .take();
    tx.execute(&insert).await?;
    if let Some(kind) = kind {
        (kind.on_abandon)(tx, job, &reason, now).await?;
    }
    tracing::warn!(job = job.id.get(), kind = %job.kind, lapses, "an engine job was given up");
    finish(tx, job.id, "failed", Some(ABANDONED), now).await
}

/// Ends job `id` in `state` (`done`, `failed`, `cancelled`), releasing its lease.
async fn finish(
    tx: &mut Tx,
    id: EngineJobId,
    state: &str,
    outcome: Option<&str>,
    now: i64,
) -> Result<()> {
    let update = Query::update()
        .table("engine_jobs")
        .values([
            ("state", state.into()),
            ("outcome", outcome.map(str::to_owned).into()),
            ("lease_owner", Option::<String>::None.into()),
            ("lease_until", Option::<i64>::None.into()),
            ("finished_at", now.into()),
        ])
        .and_where(Expr::col("id").eq(id.get()))
        .take();
    tx.execute(&update).await?;
    Ok(())
}

/// What recording a result did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reported {
    /// Whether this report was recorded (`false`: the attempt's result was recorded before).
    pub recorded: bool,
    /// The job's state after it.
    pub state: String,
}

/// Why a result was refused.
#[derive(Debug, thiserror::Error)]
pub enum ResultError {
    /// No such job.
    #[error("not found")]
    NotFound,
    /// The outcome is not one its kind accepts; the message says which are.
    #[error("{0}")]
    Outcome(String),
    /// The attempt is not the job's current one (its lease ran out and another engine
    /// took the job, or the number was never handed out), or the job has ended.
    #[error("{0}")]
    Stale(String),
    /// The store failed.
    #[error(transparent)]
    Db(#[from] Error),
}

/// Seconds since the epoch of an optional instant.
fn unix(t: Option<chrono::DateTime<chrono::Utc>>) -> Option<i64> {
    t.map(|t| t.timestamp())
}

/// The facts of a result, as kept with it.
fn details(result: &JobResult) -> Value {
    let mut details = serde_json::Map::new();
    let mut put = |key: &str, value: Value| {
        if !Value::is_null(&value) {
            details.insert(key.to_owned(), value);
        }
    };
    put("resultCode", json!(result.result_code));
    put("pages", json!(result.pages));
    put("speed", json!(result.speed));
    put("durationSeconds", json!(result.duration_seconds));
    put("reference", json!(result.reference));
    put("message", json!(result.message));
    Value::Object(details)
}

/// Records the result of attempt `result.attempt` of job `id`, with what its kind (among
/// `kinds`, the registered ones) makes of it, in one transaction. A second report of an attempt changes nothing
/// (`recorded: false`); a report of an attempt that is no longer the job's current one
/// is refused ([`ResultError::Stale`]), so an engine whose lease ran out cannot undo the
/// work of the engine that took the job over.
#[boxed]
pub async fn report(
    db: &Db,
    kinds: &[Kind],
    id: EngineJobId,
    result: &JobResult,
    now: i64,
) -> Result<Reported, ResultError> {
    let mut tx = db.begin().await?;
    // The job's row is locked until the end, so a claim of it (after its lease ran out)
    // and this result are taken one after the other.
    let select = Query::select()
        .columns(JOB_COLUMNS)
        .from("engine_jobs")
        .and_where(Expr::col("id").eq(id.get()))
        .lock(LockType::Update)
        .take();
    let job: Job = tx
        .fetch_optional(&select)
        .await?
        .ok_or(ResultError::NotFound)?;
    let kind = named(kinds, &job.kind).ok_or(ResultError::NotFound)?;
    let insert = Query::insert()
        .into_table("engine_job_results")
        .columns([
            "job_id",
            "attempt",
            "outcome",
            "details",
            "started_at",
            "ended_at",
            "recorded_at",
        ])
        .values_panic([
            id.get().into(),
            result.attempt.into(),
            result.outcome.clone().into(),
            details(result).to_string().into(),
            unix(result.started_at).into(),
            unix(result.ended_at).into(),
            now.into(),
        ])
        .on_conflict(
            sea_query::OnConflict::columns(["job_id", "attempt"])
                .do_nothing()
                .to_owned(),
        )
        .returning_col("id")
        .take();
    let current = result.attempt == job.attempts && job.state == "pending";
    if !current {
        // A repeat of a recorded attempt is answered as recorded before; anything else
        // is stale — an attempt given up included: its engine learns that its report
        // came too late.
        match recorded_before(&mut tx, id, result.attempt)
            .await?
            .as_deref()
        {
            Some(ABANDONED) => {
                return Err(ResultError::Stale(format!(
                    "attempt {} of job {id} was given up: its lease ran out too often without a result",
                    result.attempt
                )));
            }
            Some(_) => {
                return Ok(Reported {
                    recorded: false,
                    state: job.state,
                });
            }
            None => {}
        }
        return Err(ResultError::Stale(if result.attempt > job.attempts {
            format!(
                "attempt {} of job {id} was never handed out (its latest is {})",
                result.attempt, job.attempts
            )
        } else if job.state != "pending" {
            format!("job {id} has ended ({})", job.state)
        } else {
            format!(
                "the lease of attempt {} ran out and job {id} was claimed again (attempt {})",
                result.attempt, job.attempts
            )
        }));
    }
    if tx.fetch_optional::<(i64,)>(&insert).await?.is_none() {
        // The same attempt reported twice at once: the other report recorded it.
        return Ok(Reported {
            recorded: false,
            state: job.state,
        });
    }
    // Checked only for the attempt being recorded (a refusal rolls its row back): a
    // repeat of a recorded report is answered as recorded before whatever its outcome
    // says, even if what it names has changed since (a tenant's call outcome deleted),
    // and a stale one as stale.
    let refused = match kind.outcomes {
        Outcomes::Listed(listed) => (!listed.contains(&result.outcome.as_str()))
            .then(|| format!("must be one of: {}", listed.join(", "))),
        Outcomes::Checked(check) => check(&mut tx, &job, &result.outcome).await?,
    };
    if let Some(message) = refused {
        return Err(ResultError::Outcome(message));
    }
    let next = (kind.on_result)(&mut tx, &job, result, now).await?;
    let state = match next {
        Next::Done => {
            finish(&mut tx, id, "done", Some(&result.outcome), now).await?;
            "done"
        }
        Next::Failed => {
            finish(&mut tx, id, "failed", Some(&result.outcome), now).await?;
            "failed"
        }
        Next::RetryAt(at) => {
            let update = Query::update()
                .table("engine_jobs")
                .values([
                    ("outcome", result.outcome.clone().into()),
                    ("due_at", at.into()),
                    ("lease_owner", Option::<String>::None.into()),
                    ("lease_until", Option::<i64>::None.into()),
                ])
                .and_where(Expr::col("id").eq(id.get()))
                .take();
            tx.execute(&update).await?;
            "pending"
        }
    };
    tx.commit().await?;
    Ok(Reported {
        recorded: true,
        state: state.to_owned(),
    })
}

/// The outcome recorded for attempt `attempt` of job `id`, if any.
async fn recorded_before(tx: &mut Tx, id: EngineJobId, attempt: i64) -> Result<Option<String>> {
    let select = Query::select()
        .column("outcome")
        .from("engine_job_results")
        .and_where(Expr::col("job_id").eq(id.get()))
        .and_where(Expr::col("attempt").eq(attempt))
        .take();
    Ok(tx
        .fetch_optional::<(String,)>(&select)
        .await?
        .map(|(outcome,)| outcome))
}

/// Makes the ended job of `kind` working for `subject` pending again, due now: a new
/// attempt of the same work (a failed fax retried), its count of lapsed leases started
/// over (someone decided to try again). Answers whether there was one.
#[boxed]
pub async fn requeue(tx: &mut Tx, kind: &Kind, subject: i64, now: i64) -> Result<bool> {
    let update = Query::update()
        .table("engine_jobs")
        .values([
            ("state", "pending".into()),
            ("due_at", now.into()),
            ("finished_at", Option::<i64>::None.into()),
            ("lapses", 0i64.into()),
        ])
        .and_where(Expr::col("kind").eq(kind.name))
        .and_where(Expr::col("subject_id").eq(subject))
        .and_where(Expr::col("state").ne("pending"))
        .take();
    Ok(tx.execute(&update).await? > 0)
}

/// Cancels the pending jobs of `kind` working for `subject` (its record is going).
#[boxed]
pub async fn cancel(tx: &mut Tx, kind: &Kind, subject: i64, now: i64) -> Result<()> {
    let update = Query::update()
        .table("engine_jobs")
        .values([
            ("state", "cancelled".into()),
            ("lease_owner", Option::<String>::None.into()),
            ("lease_until", Option::<i64>::None.into()),
            ("finished_at", now.into()),
        ])
        .and_where(Expr::col("kind").eq(kind.name))
        .and_where(Expr::col("subject_id").eq(subject))
        .and_where(Expr::col("state").eq("pending"))
        .take();
    tx.execute(&update).await?;
    Ok(())
}

/// One recorded attempt of a job.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct Attempt {
    /// The attempt's number.
    pub attempt: i64,
    /// What it came to.
    pub outcome: String,
    /// The reported facts, as JSON text.
    pub details: String,
    /// When it began (Unix seconds).
    pub started_at: Option<i64>,
    /// When it ended.
    pub ended_at: Option<i64>,
    /// When its result was recorded.
    pub recorded_at: i64,
}

/// The recorded attempts of the jobs of `kind` working for `subject`, in order.
#[boxed]
pub async fn attempts(db: &Db, kind: &Kind, subject: i64) -> Result<Vec<Attempt>> {
    let jobs = Query::select()
        .column("id")
        .from("engine_jobs")
        .and_where(Expr::col("kind").eq(kind.name))
        .and_where(Expr::col("subject_id").eq(subject))
        .take();
    let select = Query::select()
        .columns([
            "attempt",
            "outcome",
            "details",
            "started_at",
            "ended_at",
            "recorded_at",
        ])
        .from("engine_job_results")
        .and_where(Expr::col("job_id").in_subquery(jobs))
        .order_by("recorded_at", Order::Asc)
        .order_by("id", Order::Asc)
        .take();
    db.conn().fetch_all(&select).await
}

/// How many pending engine jobs of one kind are in one state of waiting.
#[derive(Clone, Debug, PartialEq, Eq, switchboard_domain::declare::FromRow)]
pub struct Depth {
    /// The kind.
    pub kind: String,
    /// `due` (claimable now), `leased` (claimed, its result not in yet) or `scheduled`
    /// (due later: a retry's delay, a campaign's window).
    pub state: String,
    /// Jobs.
    pub jobs: i64,
}

/// The engine job queue's depth at `now` by kind and state of waiting. Only pending jobs
/// are counted (read through the partial index of pending rows): ended jobs are kept
/// without bound, so counting them at every scrape would grow with history.
#[boxed]
pub async fn depth(db: &Db, now: i64) -> Result<Vec<Depth>> {
    let state = format!(
        "CASE WHEN lease_until IS NOT NULL AND lease_until > {now} THEN 'leased' \
         WHEN due_at <= {now} THEN 'due' ELSE 'scheduled' END"
    );
    let select = Query::select()
        .column("kind")
        .expr_as(Expr::cust(state.clone()), "state")
        .expr_as(Expr::cust("COUNT(*)"), "jobs")
        .from("engine_jobs")
        .and_where(Expr::col("state").eq("pending"))
        .add_group_by([Expr::col("kind"), Expr::cust(state)])
        .take();
    db.conn().fetch_all(&select).await
}
