//! The one claim-under-a-lease mechanism of every queue of background work (the webhook
//! outbox, the job table): rows that are `pending` and due are leased to one worker at a
//! time, so several `serve` processes on one database share the work and a worker that
//! dies only delays its rows until the lease runs out.

use sea_query::{Condition, Expr, ExprTrait, LockBehavior, LockType, Order, Query};

use crate::backend::Db;
use crate::error::Result;

/// A table worked as a queue: an `id`, a `state` (`'pending'` while there is work), a
/// column saying when the row is next due, and `lease_owner` / `lease_until`.
#[derive(Clone, Copy, Debug)]
pub struct LeasedQueue {
    /// The table.
    pub table: &'static str,
    /// The column holding when a pending row is due (Unix seconds).
    pub due_at: &'static str,
}

impl LeasedQueue {
    /// `state = 'pending'`, due by `now`, and not leased (or its lease ran out). The
    /// state is written as a literal, not bound: only then can the planners (PostgreSQL's
    /// generic plans, SQLite's) use the table's partial index on pending rows, which keeps
    /// polling cheap however long the history the table keeps.
    pub fn claimable(&self, now: i64) -> Condition {
        Condition::all()
            .add(Expr::col("state").eq(Expr::cust("'pending'")))
            .add(Expr::col(self.due_at).lte(now))
            .add(
                Condition::any()
                    .add(Expr::col("lease_until").is_null())
                    .add(Expr::col("lease_until").lte(now)),
            )
    }

    /// Whether any row is due: a cheap read, so idle polling takes no write lock.
    pub async fn any_due(&self, db: &Db, now: i64) -> Result<bool> {
        self.any_due_where(db, now, Condition::all()).await
    }

    /// Whether any row that also meets `extra` is due.
    async fn any_due_where(&self, db: &Db, now: i64, extra: Condition) -> Result<bool> {
        let select = Query::select()
            .column("id")
            .from(self.table)
            .cond_where(self.claimable(now))
            .cond_where(extra)
            .limit(1)
            .take();
        Ok(db.conn().fetch_optional::<(i64,)>(&select).await?.is_some())
    }

    /// Leases about `limit` due rows, oldest due first, to `owner` until `lease_until`,
    /// answering their ids (PostgreSQL may run the locking subquery more than once and
    /// lease a few more: callers must work every id answered).
    ///
    /// One statement: `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING
    /// id`. On PostgreSQL concurrent claimers skip each other's rows instead of waiting,
    /// and the conditions are checked again on the row as locked; SQLite (whose builder
    /// leaves the lock clause out) runs the whole statement under its single write lock.
    /// Either way no row is leased to two workers at once.
    pub async fn claim(
        &self,
        db: &Db,
        owner: &str,
        now: i64,
        lease_until: i64,
        limit: u64,
    ) -> Result<Vec<i64>> {
        self.claim_where(db, owner, now, lease_until, limit, Condition::all())
            .await
    }

    /// [`LeasedQueue::claim`] of the due rows that also meet `extra` (the engine's queue
    /// claims only the kinds an engine asks for).
    pub async fn claim_where(
        &self,
        db: &Db,
        owner: &str,
        now: i64,
        lease_until: i64,
        limit: u64,
        extra: Condition,
    ) -> Result<Vec<i64>> {
        if !self.any_due_where(db, now, extra.clone()).await? {
            return Ok(Vec::new());
        }
        let due = Query::select()
            .column("id")
            .from(self.table)
            .cond_where(self.claimable(now))
            .cond_where(extra.clone())
            .order_by(self.due_at, Order::Asc)
            .order_by("id", Order::Asc)
            .limit(limit)
            .lock_with_behavior(LockType::Update, LockBehavior::SkipLocked)
            .take();
        let update = Query::update()
            .table(self.table)
            .values([
                ("lease_owner", owner.into()),
                ("lease_until", lease_until.into()),
            ])
            .and_where(Expr::col("id").in_subquery(due))
            .cond_where(self.claimable(now))
            .cond_where(extra)
            .returning_col("id")
            .take();
        let ids: Vec<(i64,)> = db.conn().fetch_all(&update).await?;
        Ok(ids.into_iter().map(|(id,)| id).collect())
    }

    /// The condition that `owner` still holds row `id`: every write that ends or moves
    /// a leased row carries it, so a worker whose lease ran out (and whose row another
    /// worker took) changes nothing.
    pub fn held(&self, id: i64, owner: &str) -> Condition {
        Condition::all()
            .add(Expr::col("id").eq(id))
            .add(Expr::col("lease_owner").eq(owner))
    }
}
