//! Retention on a schedule, in every `serve` process: the sweep removes the MMS media
//! uploads whose time is up — record, quota bytes and (through the job table) object;
//! each upload is removed once however many sweep at the same moment — the failed
//! sign-ins older than the lockout window, the provisioning Digest answers kept past
//! their nonces' expiry, and the console's shared refresh answers past their window.
//! The same tick queues the telephony renditions old media files are owed
//! (`renditions`).

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
                    // Their objects are queued, the job worker woken by the queue.
                    tracing::info!(removed, "expired MMS media removed");
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
        prune_login_failures(&jobs).await;
        prune_digest_uses(&jobs).await;
        prune_console_refreshes(&jobs).await;
        // Not retention, but as coarse: one read of an index that is empty once every
        // old media file has its rendition.
        crate::renditions::sweep(&jobs).await;
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

/// Deletes the provisioning Digest answers kept to refuse replays once their nonces have
/// expired (an answer to an expired nonce is refused as stale anyway) — two minutes
/// after, so that another process whose clock runs behind this one's, and so still takes
/// the nonce, still finds its uses.
async fn prune_digest_uses(jobs: &Jobs) {
    const CLOCK_SKEW_SECONDS: i64 = 120;
    let before = chrono::Utc::now().timestamp() - CLOCK_SKEW_SECONDS;
    match switchboard_db::devices::prune_digest_uses(jobs.db(), before).await {
        Ok(0) => {}
        Ok(removed) => tracing::info!(removed, "expired Digest nonce uses removed"),
        Err(error) => tracing::warn!(%error, "pruning Digest nonce uses failed"),
    }
}

/// Deletes the console's shared refresh answers past their window (each holds a session's
/// tokens, sealed; a claim removes the old ones too, but an idle deployment makes none).
async fn prune_console_refreshes(jobs: &Jobs) {
    let now_ms = chrono::Utc::now().timestamp_millis();
    match switchboard_db::console_refreshes::prune(jobs.db(), now_ms).await {
        Ok(0) => {}
        Ok(removed) => tracing::info!(removed, "expired console refresh answers removed"),
        Err(error) => tracing::warn!(%error, "pruning console refresh answers failed"),
    }
}

/// Deletes the failed sign-ins outside every lockout window: a guessing campaign that
/// never succeeds (a success clears its account's failures) leaves at most a window's
/// worth of rows.
async fn prune_login_failures(jobs: &Jobs) {
    let window = i64::try_from(switchboard_db::security::FAILURE_WINDOW.as_secs()).unwrap_or(0);
    let before = chrono::Utc::now().timestamp().saturating_sub(window);
    match switchboard_db::security::prune_failures(jobs.db(), before).await {
        Ok(0) => {}
        Ok(removed) => tracing::info!(removed, "expired sign-in failures removed"),
        Err(error) => tracing::warn!(%error, "pruning sign-in failures failed"),
    }
}
