//! The job queue's worker: deleting objects from storage once their records are gone
//! (queued in the deleting transaction, so an object is never lost track of when storage
//! is briefly unavailable), announcing a tenant's phones, making the telephony renditions
//! old media files lack; retried with a growing wait, given up after a day of failures.

use std::time::Duration;

use chrono::Utc;
use switchboard_db::jobs::{self, DELETE_OBJECT, Job};

use crate::Jobs;
use crate::worker::{Queue, seconds_up};

/// How long a claimed job is this process's alone.
pub(crate) const LEASE: Duration = Duration::from_secs(5 * 60);

/// Attempts before a job is given up (the waits add up to about a day).
const MAX_ATTEMPTS: i64 = 30;

/// The wait after failed attempt `attempts` (1-based): 10 s doubling, at most an hour.
fn wait_after(attempts: i64) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
    Duration::from_secs(10u64.saturating_mul(1 << doublings)).min(Duration::from_secs(3600))
}

/// The job table, worked by this process.
#[derive(Clone, Debug)]
pub(crate) struct JobQueue(pub(crate) Jobs);

impl Queue for JobQueue {
    type Item = Job;
    const NAME: &'static str = "jobs";

    async fn claim(&self, limit: usize) -> Vec<Job> {
        let now = Utc::now().timestamp();
        let lease_until = now.saturating_add(seconds_up(LEASE));
        let limit = u64::try_from(limit).unwrap_or(u64::MAX);
        match jobs::claim(self.0.db(), self.0.owner(), now, lease_until, limit).await {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::warn!(%error, "claiming jobs failed");
                Vec::new()
            }
        }
    }

    async fn work(&self, job: Job) {
        let jobs = &self.0;
        let outcome = run(jobs, &job).await;
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

/// Does `job`, answering why it failed.
async fn run(jobs: &Jobs, job: &Job) -> Result<(), String> {
    let payload: serde_json::Value = serde_json::from_str(&job.payload)
        .map_err(|e| format!("the job's payload is not JSON: {e}"))?;
    match job.kind.as_str() {
        DELETE_OBJECT => {
            let key = payload["key"]
                .as_str()
                .ok_or("the job names no object key")?;
            // Deleting an object that is already gone succeeds: a retry is harmless.
            jobs.storage()
                .delete(key)
                .await
                .map_err(|e| format!("storage refused the delete: {e}"))
        }
        switchboard_db::devices::REPROVISION => {
            let tenant = payload["tenantId"]
                .as_i64()
                .ok_or("the job names no tenant")?;
            let after = payload["after"].as_i64().unwrap_or(0);
            let reason = payload["reason"].as_str().unwrap_or("tenant");
            switchboard_db::devices::reprovision_batch(
                jobs.db(),
                switchboard_domain::ids::TenantId(tenant),
                after,
                reason,
            )
            .await
            .map_err(|e| format!("the phones could not be announced: {e}"))
        }
        switchboard_db::media_files::RENDITION => {
            let id = payload["mediaFileId"]
                .as_i64()
                .ok_or("the job names no media file")?;
            crate::renditions::make(jobs, id).await
        }
        other => Err(format!("no worker knows jobs of kind {other}")),
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
