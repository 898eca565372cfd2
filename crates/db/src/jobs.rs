//! The job table: background work asked for in the same transaction as the change that
//! needs it (an object to delete once its record is gone), claimed under a lease by one
//! worker at a time ([`LeasedQueue`]), retried until done or given up.
//!
//! Each kind of job is a [`JobKind`]: a payload struct declared by the module of its area
//! (this one's [`DeleteObject`], `devices::Reprovision`, `media_files::Rendition`), stored
//! as its JSON under the kind's name. What doing it means is said above this crate, by
//! the worker that has the storage at hand (`switchboard_jobs`), which registers every
//! kind it runs; nothing here lists them.

use sea_query::{Expr, ExprTrait, Order, Query};
use switchboard_declare::boxed;
use switchboard_domain::serde::de::DeserializeOwned;
use switchboard_domain::serde::{Deserialize, Serialize};

use crate::backend::{Db, Tx};
use crate::error::{Error, Result};
use crate::lease::LeasedQueue;
use crate::wakeups::Worker;

/// The job table as a queue: pending jobs, due at `run_at`.
pub const QUEUE: LeasedQueue = LeasedQueue {
    table: "jobs",
    due_at: "run_at",
};

/// A kind of job: its name in the table (`kind`) and its payload, the implementing
/// struct itself, stored as its JSON (`payload`). A payload's field names are what rows
/// already queued hold: a change must still read them.
pub trait JobKind: Serialize + DeserializeOwned + Send + 'static {
    /// The kind's name, as the `kind` column holds it.
    const KIND: &'static str;

    /// The payload of a job of this kind, as stored.
    fn to_payload(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::Presenting(format!("a {} job's payload: {e}", Self::KIND)))
    }

    /// The job whose stored payload is `payload`, or why it cannot be read.
    fn from_payload(payload: &str) -> std::result::Result<Self, String> {
        serde_json::from_str(payload)
            .map_err(|e| format!("the payload of a {} job cannot be read: {e}", Self::KIND))
    }
}

/// Deleting one object from storage once nothing records it: `{"key": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(crate = "switchboard_domain::serde")]
pub struct DeleteObject {
    /// The object's key.
    pub key: String,
}

impl JobKind for DeleteObject {
    const KIND: &'static str = "object.delete";
}

/// A job leased to a worker.
#[derive(Clone, Debug, switchboard_domain::declare::FromRow)]
pub struct Job {
    /// The job's id.
    pub id: i64,
    /// What to do: a [`JobKind::KIND`].
    pub kind: String,
    /// Its arguments, as JSON text.
    pub payload: String,
    /// Attempts made before this one.
    pub attempts: i64,
}

/// Queues `job`, due at `run_at`, in `tx`: it exists exactly when the change that asked
/// for it was committed, and the job worker is woken then.
pub async fn enqueue<J: JobKind>(tx: &mut Tx, job: &J, run_at: i64) -> Result<()> {
    let insert = Query::insert()
        .into_table("jobs")
        .columns(["kind", "payload", "run_at", "created_at"])
        .values_panic([
            J::KIND.into(),
            job.to_payload()?.into(),
            run_at.into(),
            run_at.into(),
        ])
        .take();
    tx.execute(&insert).await?;
    tx.wake_after_commit(Worker::Jobs);
    Ok(())
}

/// Queues the deletion of the object at `key`, due now, in `tx`.
#[boxed]
pub async fn delete_object(tx: &mut Tx, key: &str) -> Result<()> {
    let now = chrono::Utc::now().timestamp();
    let job = DeleteObject {
        key: key.to_owned(),
    };
    enqueue(tx, &job, now).await
}

/// Pledges the deletion of the object about to be stored at `key`, due at `run_at`,
/// committed at once in a transaction of its own, before the object is stored; answers
/// the pledge. Unless the transaction that records the object cancels it
/// ([`keep_object`]), the object is deleted: a store whose record is never written (a
/// dropped connection, a crash, a refusal) leaves nothing behind. `run_at` must lie past
/// the longest the upload may still take, so the object is not deleted before it could
/// be recorded.
#[boxed]
pub async fn pledge_object_deletion(db: &Db, key: &str, run_at: i64) -> Result<i64> {
    let now = chrono::Utc::now().timestamp();
    let insert = Query::insert()
        .into_table("jobs")
        .columns(["kind", "payload", "run_at", "created_at"])
        .values_panic([
            DeleteObject::KIND.into(),
            DeleteObject {
                key: key.to_owned(),
            }
            .to_payload()?
            .into(),
            run_at.into(),
            now.into(),
        ])
        .returning_col("id")
        .take();
    let mut tx = db.begin().await?;
    let id = tx.scalar(&insert).await?;
    tx.commit().await?;
    Ok(id)
}

/// Cancels the pledged deletion `pledge` in `tx`, the transaction that records its
/// object, so the object stays exactly when the record is committed. A pledge a worker
/// has already taken (the object may be gone) cannot be cancelled: a conflict, and the
/// record is not written. So is one a worker took and failed (`attempts` above zero): its
/// attempt may have deleted the object before failing.
#[boxed]
pub async fn keep_object(tx: &mut Tx, pledge: i64) -> Result<()> {
    let delete = Query::delete()
        .from_table("jobs")
        .and_where(Expr::col("id").eq(pledge))
        .and_where(Expr::col("state").eq("pending"))
        .and_where(Expr::col("lease_owner").is_null())
        .and_where(Expr::col("attempts").eq(0))
        .take();
    if tx.execute(&delete).await? == 0 {
        return Err(crate::Error::Conflict(
            "the upload took too long and its file was removed; upload it again".into(),
        ));
    }
    Ok(())
}

/// Makes the pledged deletions `pledges` due now: what they pledged is not kept (an
/// upload refused or failed half-way), so the objects go at once.
#[boxed]
pub async fn hasten(db: &Db, pledges: &[i64]) -> Result<()> {
    if pledges.is_empty() {
        return Ok(());
    }
    let update = Query::update()
        .table("jobs")
        .value("run_at", chrono::Utc::now().timestamp())
        .and_where(Expr::col("id").is_in(pledges.iter().copied()))
        .and_where(Expr::col("lease_owner").is_null())
        .take();
    db.conn().execute(&update).await?;
    db.wakeups().ring(Worker::Jobs);
    Ok(())
}

/// Leases about `limit` due jobs to `owner` until `lease_until`, answering them.
#[boxed]
pub async fn claim(
    db: &Db,
    owner: &str,
    now: i64,
    lease_until: i64,
    limit: u64,
) -> Result<Vec<Job>> {
    let ids = QUEUE.claim(db, owner, now, lease_until, limit).await?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let select = Query::select()
        .columns(["id", "kind", "payload", "attempts"])
        .from("jobs")
        .and_where(Expr::col("id").is_in(ids))
        .and_where(Expr::col("lease_owner").eq(owner))
        .order_by("id", Order::Asc)
        .take();
    db.conn().fetch_all(&select).await
}

/// Ends job `id`, done: its row goes. Nothing happens if `owner` no longer holds it.
#[boxed]
pub async fn complete(db: &Db, id: i64, owner: &str) -> Result<()> {
    let delete = Query::delete()
        .from_table("jobs")
        .cond_where(QUEUE.held(id, owner))
        .take();
    db.conn().execute(&delete).await?;
    Ok(())
}

/// Records a failed attempt of job `id` and makes it due again at `run_at`.
#[boxed]
pub async fn retry(db: &Db, id: i64, owner: &str, run_at: i64, error: &str) -> Result<()> {
    after_failure(db, id, owner, error, ("run_at", run_at.into())).await
}

/// Gives job `id` up after its last failed attempt: it stays, `failed`, with the error,
/// for an operator to see.
#[boxed]
pub async fn give_up(db: &Db, id: i64, owner: &str, error: &str) -> Result<()> {
    after_failure(db, id, owner, error, ("state", "failed".into())).await
}

/// Counts a failed attempt of job `id` held by `owner`, keeps its error, releases its
/// lease and applies `then` (when it is due again, or that it is given up).
async fn after_failure(
    db: &Db,
    id: i64,
    owner: &str,
    error: &str,
    then: (&'static str, sea_query::SimpleExpr),
) -> Result<()> {
    let update = Query::update()
        .table("jobs")
        .values([
            ("attempts", Expr::col("attempts").add(1)),
            ("last_error", error.into()),
            ("lease_owner", Option::<String>::None.into()),
            ("lease_until", Option::<i64>::None.into()),
            then,
        ])
        .cond_where(QUEUE.held(id, owner))
        .take();
    db.conn().execute(&update).await?;
    Ok(())
}

/// How many jobs are in `state` (`pending` or `failed`), for operators and tests.
#[boxed]
pub async fn count(db: &Db, state: &str) -> Result<i64> {
    let select = Query::select()
        .expr(Expr::col("id").count())
        .from("jobs")
        .and_where(Expr::col("state").eq(state))
        .take();
    db.conn().scalar(&select).await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    async fn fresh_db() -> (Db, std::path::PathBuf) {
        crate::test_database::fresh_sqlite("jobs").await
    }

    #[test]
    fn an_object_deletion_queued_the_old_way_is_read() {
        // As `json!({"key": key})` wrote it before the payload was a struct.
        let written = r#"{"key":"tenants/3/media/a \"b\".wav"}"#;
        let job = DeleteObject::from_payload(written).unwrap();
        assert_eq!(job.key, r#"tenants/3/media/a "b".wav"#);
        assert_eq!(job.to_payload().unwrap(), written);
        assert!(DeleteObject::from_payload(r#"{"objectKey":"a"}"#).is_err());
    }

    #[tokio::test]
    async fn the_job_worker_is_woken_once_the_job_is_committed_and_not_before() {
        use futures::FutureExt;
        let (db, path) = fresh_db().await;
        let bell = db.wakeups().bell(Worker::Jobs);
        let rung = || bell.notified().now_or_never().is_some();

        let mut tx = db.begin().await.unwrap();
        delete_object(&mut tx, "a").await.unwrap();
        assert!(
            !rung(),
            "woken before the commit: the worker would find nothing"
        );
        tx.commit().await.unwrap();
        assert!(rung(), "not woken by the commit");

        let mut tx = db.begin().await.unwrap();
        delete_object(&mut tx, "b").await.unwrap();
        drop(tx);
        assert!(!rung(), "woken by a transaction rolled back");
        assert_eq!(count(&db, "pending").await.unwrap(), 1);

        db.close().await;
        let _ = std::fs::remove_file(path);
    }

    #[tokio::test]
    async fn a_pledge_not_yet_taken_is_kept_but_one_a_worker_tried_is_not() {
        let (db, path) = fresh_db().await;
        let now = chrono::Utc::now().timestamp();

        let untouched = pledge_object_deletion(&db, "a", now + 60).await.unwrap();
        let mut tx = db.begin().await.unwrap();
        keep_object(&mut tx, untouched).await.unwrap();
        tx.commit().await.unwrap();

        // Due at once, taken by a worker whose delete failed after the store may have
        // removed the object: back to pending, but never cancellable again.
        let tried = pledge_object_deletion(&db, "b", now).await.unwrap();
        let claimed = claim(&db, "worker", now, now + 30, 10).await.unwrap();
        assert_eq!(
            claimed.iter().map(|job| job.id).collect::<Vec<_>>(),
            [tried]
        );
        retry(&db, tried, "worker", now + 60, "store timed out")
            .await
            .unwrap();
        let mut tx = db.begin().await.unwrap();
        let kept = keep_object(&mut tx, tried).await;
        assert!(matches!(kept, Err(crate::Error::Conflict(_))), "{kept:?}");
        drop(tx);
        assert_eq!(count(&db, "pending").await.unwrap(), 1);

        db.close().await;
        let _ = std::fs::remove_file(path);
    }
}
