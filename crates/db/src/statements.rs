//! Counting the statements a piece of work sends to the database (issue 32): every
//! statement the pool or a transaction runs (and each `BEGIN` and `COMMIT`) adds one to
//! the count of the task it runs on, when that task is counting. The HTTP layer counts each
//! request's, so a test can hold every read to its budget of round trips.
//!
//! Work a request hands to another task (a spawned job) is not its own and is not counted.

use std::cell::Cell;
use std::future::Future;

tokio::task_local! {
    /// The running count of the task's statements, while it is counting.
    static COUNT: Cell<u32>;
}

/// Runs `work`, answering its output with the number of statements it ran.
pub async fn counted<F: Future>(work: F) -> (F::Output, u32) {
    COUNT
        .scope(Cell::new(0), async {
            let output = work.await;
            (output, COUNT.with(Cell::get))
        })
        .await
}

/// Adds one statement to the running task's count, if it is counting.
pub(crate) fn one_more() {
    let _ = COUNT.try_with(|count| count.set(count.get().saturating_add(1)));
}
