//! The job queue's worker: each kind of job ([`JobKind`], declared by the module of its
//! area in `switchboard_db`) is done by its [`Work`], registered in the [`Kinds`] the
//! worker is given (`crate::spawn` lists them); a failed job is retried with a growing
//! wait, and given up after a day of failures.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use futures::future::BoxFuture;
use switchboard_db::jobs::{self, Job, JobKind};

use crate::Jobs;
use crate::worker::{Queue, seconds_up};

/// What doing a job of a kind means, with this process's handles: the kind's payload
/// comes read ([`JobKind`]); the answer is done, or why it failed (retried later).
/// Every kind is idempotent: a job whose outcome could not be recorded runs again.
pub(crate) trait Work: JobKind {
    /// Does this job.
    fn run(self, jobs: &Jobs) -> impl Future<Output = Result<(), String>> + Send;
}

/// Reads a stored payload as `W` and does it.
type Runner = for<'a> fn(&'a Jobs, &'a str) -> BoxFuture<'a, Result<(), String>>;

/// The kinds of job this process does, by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kinds(HashMap<&'static str, Runner>);

impl Kinds {
    /// These kinds, and `W`.
    pub(crate) fn with<W: Work>(mut self) -> Self {
        self.0.insert(W::KIND, read_and_run::<W>);
        self
    }

    /// Does `job`, answering why it failed.
    async fn run(&self, jobs: &Jobs, job: &Job) -> Result<(), String> {
        let runner = self
            .0
            .get(job.kind.as_str())
            .ok_or_else(|| format!("no worker knows jobs of kind {}", job.kind))?;
        runner(jobs, &job.payload).await
    }
}

/// [`Runner`] of `W`.
fn read_and_run<'a, W: Work>(
    jobs: &'a Jobs,
    payload: &'a str,
) -> BoxFuture<'a, Result<(), String>> {
    Box::pin(async move { W::from_payload(payload)?.run(jobs).await })
}

/// How long a claimed job is this process's alone.
pub(crate) const LEASE: Duration = Duration::from_secs(5 * 60);

/// Attempts before a job is given up (the waits add up to about a day).
const MAX_ATTEMPTS: i64 = 30;

/// The wait after failed attempt `attempts` (1-based): 10 s doubling, at most an hour.
fn wait_after(attempts: i64) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
    Duration::from_secs(10u64.saturating_mul(1 << doublings)).min(Duration::from_secs(3600))
}

/// The job table, worked by this process: the kinds it does.
#[derive(Clone, Debug)]
pub(crate) struct JobQueue {
    /// This process's handles.
    pub(crate) jobs: Jobs,
    /// Every kind it does.
    pub(crate) kinds: Arc<Kinds>,
}

impl Queue for JobQueue {
    type Item = Job;
    const NAME: &'static str = "jobs";

    async fn claim(&self, limit: usize) -> Vec<Job> {
        let now = Utc::now().timestamp();
        let lease_until = now.saturating_add(seconds_up(LEASE));
        let limit = u64::try_from(limit).unwrap_or(u64::MAX);
        let (db, owner) = (self.jobs.db(), self.jobs.owner());
        match jobs::claim(db, owner, now, lease_until, limit).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "claiming jobs failed");
                Vec::new()
            }
        }
    }

    async fn work(&self, job: Job) {
        let jobs = &self.jobs;
        let outcome = self.kinds.run(jobs, &job).await;
        let recorded = match outcome {
            Ok(()) => jobs::complete(jobs.db(), job.id, jobs.owner()).await,
            Err(error) if job.attempts + 1 >= MAX_ATTEMPTS => {
                tracing::error!(job = job.id, kind = job.kind, %error, "a job was given up");
                jobs::give_up(jobs.db(), job.id, jobs.owner(), &error).await
            }
            Err(error) => {
                tracing::warn!(job = job.id, kind = job.kind, %error, "a job will be retried");
                let run_at = Utc::now()
                    .timestamp()
                    .saturating_add(seconds_up(wait_after(job.attempts + 1)));
                jobs::retry(jobs.db(), job.id, jobs.owner(), run_at, &error).await
            }
        };
        if let Err(error) = recorded {
            // The lease runs out and the job is tried again: every kind is idempotent.
            tracing::error!(job = job.id, %error, "recording a job's outcome failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_from_ten_seconds_up_to_an_hour() {
        assert_eq!(wait_after(1), Duration::from_secs(10));
        assert_eq!(wait_after(2), Duration::from_secs(20));
        assert_eq!(wait_after(5), Duration::from_secs(160));
        assert_eq!(wait_after(10), Duration::from_secs(3600));
        assert_eq!(wait_after(MAX_ATTEMPTS), Duration::from_secs(3600));
        let total: u64 = (1..MAX_ATTEMPTS).map(|a| wait_after(a).as_secs()).sum();
        assert!(
            (20 * 3600..30 * 3600).contains(&total),
            "about a day: {total} s"
        );
    }
}
