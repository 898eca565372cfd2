//! Retention of MMS media uploads: a sweep on a schedule removes the uploads whose time
//! is up — record, quota bytes and (through the job table) object — in every `serve`
//! process; each upload is removed once however many sweep at the same moment.

use std::time::Duration;

use tokio::sync::watch;

use crate::Jobs;

/// Uploads removed per sweep transaction batch.
const BATCH: u64 = 100;

/// Sweeps every `every` until `stop` turns true.
pub(crate) async fn run(jobs: Jobs, every: Duration, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        loop {
            let now = chrono::Utc::now().timestamp();
            match switchboard_db::mms_media::expire(jobs.db(), now, BATCH).await {
                Ok(0) => break,
                Ok(removed) => {
                    tracing::info!(removed, "expired MMS media removed");
                    // Their objects are queued: let the job worker take them now.
                    jobs.inner.wake_jobs.notify_one();
                    if removed < BATCH as usize {
                        break;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "the MMS media retention sweep failed");
                    break;
                }
            }
        }
        tokio::select! {
            changed = stop.changed() => {
                if changed.is_err() {
                    break;
                }
            }
            _ = tokio::time::sleep(every) => {}
        }
    }
}
