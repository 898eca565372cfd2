//! The one worker loop every queue runs: claim what is due (as many as there are free
//! slots), work each item in its own task, sleep until woken, a poll interval passes or
//! a slot frees, and at shutdown let the work in flight finish for a bounded time.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, Semaphore, watch};
use tokio::task::JoinSet;

/// A queue of background work, claimed under a lease (`switchboard_db::lease`).
pub(crate) trait Queue: Clone + Send + Sync + 'static {
    /// One claimed piece of work.
    type Item: Send + 'static;

    /// The queue's name in logs.
    const NAME: &'static str;

    /// Leases up to about `limit` due items to this process; a failure is logged and
    /// answered as nothing due, so a database hiccup only delays the work.
    fn claim(&self, limit: usize) -> impl Future<Output = Vec<Self::Item>> + Send;

    /// Works one item to its end: done, retried later or given up, as recorded.
    fn work(&self, item: Self::Item) -> impl Future<Output = ()> + Send;
}

/// How a worker paces itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pace {
    /// How often an idle worker looks for due work (another process's, due retries);
    /// this process's own is started at once through the wake-up.
    pub poll_interval: Duration,
    /// Items one process works at once.
    pub max_in_flight: usize,
    /// How long the work in flight may take to finish at shutdown.
    pub drain: Duration,
}

/// Runs `queue` until `stop` turns true (or its sender is gone).
pub(crate) async fn run<Q: Queue>(
    queue: Q,
    pace: Pace,
    wake: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) {
    let permits = Arc::new(Semaphore::new(pace.max_in_flight));
    let mut in_flight = JoinSet::new();
    while !*stop.borrow() {
        while in_flight.try_join_next().is_some() {}
        let free = permits.available_permits();
        let claimed = if free > 0 {
            queue.claim(free).await
        } else {
            Vec::new()
        };
        let full_batch = !claimed.is_empty() && claimed.len() >= free;
        for item in claimed {
            // A claim may answer a few more items than asked (PostgreSQL can evaluate the
            // locking subquery more than once); they are ours, so they wait for a slot
            // rather than sit leased until the lease runs out.
            let Ok(permit) = permits.clone().acquire_owned().await else {
                break;
            };
            let queue = queue.clone();
            in_flight.spawn(async move {
                queue.work(item).await;
                drop(permit);
            });
        }
        if full_batch && permits.available_permits() > 0 {
            // More may be due: claim again before sleeping.
            continue;
        }
        tokio::select! {
            changed = stop.changed() => {
                if changed.is_err() {
                    // The server is gone without saying so: stop as if told to.
                    break;
                }
            }
            _ = wake.notified() => {}
            _ = tokio::time::sleep(pace.poll_interval) => {}
            Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
        }
    }
    let drain = async { while in_flight.join_next().await.is_some() {} };
    if tokio::time::timeout(pace.drain, drain).await.is_err() {
        // The leases of the work cut short run out, and another worker takes it up.
        tracing::warn!(
            queue = Q::NAME,
            "work still running at shutdown was abandoned"
        );
    }
}

/// Whole seconds in `duration`, rounded up.
pub(crate) fn seconds_up(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis().div_ceil(1000)).unwrap_or(i64::MAX)
}
