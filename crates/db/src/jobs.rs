//! The job table: background work asked for in the same transaction as the change that
//! needs it (an object to delete once its record is gone), claimed under a lease by one
//! worker at a time ([`LeasedQueue`]), retried until done or given up.

use sea_query::{Expr, ExprTrait, Order, Query};

use crate::backend::{Db, Tx};
use crate::error::Result;
use crate::lease::LeasedQueue;

/// The job table as a queue: pending jobs, due at `run_at`.
pub const QUEUE: LeasedQueue = LeasedQueue {
    table: "jobs",
    due_at: "run_at",
};

/// Deleting one object from storage: `{"key": "…"}`.
pub const DELETE_OBJECT: &str = "object.delete";

/// A job leased to a worker.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Job {
    /// The job's id.
    pub id: i64,
    /// What to do (e.g. [`DELETE_OBJECT`]).
    pub kind: String,
    /// Its arguments, as JSON text.
    pub payload: String,
    /// Attempts made before this one.
    pub attempts: i64,
}

/// Queues a job of `kind` with `payload`, due at `run_at`, in `tx`: it exists exactly when
/// the change that asked for it was committed.
pub async fn enqueue(
    tx: &mut Tx,
    kind: &str,
    payload: &serde_json::Value,
    run_at: i64,
) -> Result<()> {
    let insert = Query::insert()
        .into_table("jobs")
        .columns(["kind", "payload", "run_at", "created_at"])
        .values_panic([
            kind.into(),
            payload.to_string().into(),
            run_at.into(),
            run_at.into(),
        ])
        .take();
    tx.execute(&insert).await?;
    Ok(())
}

/// Queues the deletion of the object at `key`, due now, in `tx`.
pub async fn delete_object(tx: &mut Tx, key: &str) -> Result<()> {
    let now = chrono::Utc::now().timestamp();
    enqueue(tx, DELETE_OBJECT, &serde_json::json!({ "key": key }), now).await
}

/// Pledges the deletion of the object about to be stored at `key`, due at `run_at`,
/// committed at once in a transaction of its own, before the object is stored; answers
/// the pledge. Unless the transaction that records the object cancels it
/// ([`keep_object`]), the object is deleted: a store whose record is never written (a
/// dropped connection, a crash, a refusal) leaves nothing behind. `run_at` must lie past
/// the longest the upload may still take, so the object is not deleted before it could
/// be recorded.
pub async fn pledge_object_deletion(db: &Db, key: &str, run_at: i64) -> Result<i64> {
    let now = chrono::Utc::now().timestamp();
    let insert = Query::insert()
        .into_table("jobs")
        .columns(["kind", "payload", "run_at", "created_at"])
        .values_panic([
            DELETE_OBJECT.into(),
            serde_json::json!({ "key": key }).to_string().into(),
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
    Ok(())
}

/// Leases about `limit` due jobs to `owner` until `lease_until`, answering them.
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
pub async fn complete(db: &Db, id: i64, owner: &str) -> Result<()> {
    let delete = Query::delete()
        .from_table("jobs")
        .cond_where(QUEUE.held(id, owner))
        .take();
    db.conn().execute(&delete).await?;
    Ok(())
}

/// Records a failed attempt of job `id` and makes it due again at `run_at`.
pub async fn retry(db: &Db, id: i64, owner: &str, run_at: i64, error: &str) -> Result<()> {
    after_failure(db, id, owner, error, ("run_at", run_at.into())).await
}

/// Gives job `id` up after its last failed attempt: it stays, `failed`, with the error,
/// for an operator to see.
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
    use crate::backend::ConnectOptions;

    /// A fresh, migrated SQLite database in the temporary folder.
    async fn fresh_db() -> (Db, std::path::PathBuf) {
        let path = std::env::temp_dir().join(format!("jobs-{}.db", uuid::Uuid::new_v4()));
        let db = Db::connect(&ConnectOptions {
            url: format!("sqlite://{}", path.display()),
            max_connections: 2,
            statement_timeout: Some(crate::circuit::DEFAULT_STATEMENT_TIMEOUT),
        })
        .await
        .unwrap();
        db.migrate().await.unwrap();
        (db, path)
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
