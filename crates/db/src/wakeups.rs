//! The wake-ups of this process's queue workers. Whatever queues work for a worker — a
//! job ([`crate::jobs::enqueue`]), a webhook delivery ([`crate::events::emit`]) — asks
//! its transaction to ring that worker's bell ([`crate::Tx::wake_after_commit`]), and
//! the bell rings once the transaction has committed: a worker woken before the commit
//! would look, find nothing yet, and sleep a whole poll interval. Callers never ring by
//! hand, so no write path can forget to.

use std::sync::Arc;

use tokio::sync::Notify;

/// A worker of this process that work queued through the database wakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Worker {
    /// The job table's worker (`switchboard_db::jobs`).
    Jobs,
    /// The webhook outbox's delivery worker (`switchboard_db::deliveries`).
    Deliveries,
}

/// One bell per worker, shared by the pool's transactions and the workers that wait on
/// them (a bell rung while its worker is busy is kept until it next waits).
#[derive(Debug, Default)]
pub struct Wakeups {
    jobs: Arc<Notify>,
    deliveries: Arc<Notify>,
}

impl Wakeups {
    /// The bell `worker` waits on.
    pub fn bell(&self, worker: Worker) -> Arc<Notify> {
        match worker {
            Worker::Jobs => self.jobs.clone(),
            Worker::Deliveries => self.deliveries.clone(),
        }
    }

    /// Wakes `worker` now: for writes that commit on their own, outside a transaction.
    pub fn ring(&self, worker: Worker) {
        self.bell(worker).notify_one();
    }
}

/// The workers a transaction wakes once it has committed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pending {
    jobs: bool,
    deliveries: bool,
}

impl Pending {
    /// Remembers that `worker` has work once the transaction commits.
    pub(crate) fn add(&mut self, worker: Worker) {
        match worker {
            Worker::Jobs => self.jobs = true,
            Worker::Deliveries => self.deliveries = true,
        }
    }

    /// Wakes the workers remembered: called after the commit succeeded.
    pub(crate) fn ring(self, wakeups: &Wakeups) {
        if self.jobs {
            wakeups.ring(Worker::Jobs);
        }
        if self.deliveries {
            wakeups.ring(Worker::Deliveries);
        }
    }
}
