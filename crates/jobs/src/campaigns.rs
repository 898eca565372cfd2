//! The call-campaign scheduler, in every `serve` process: at each tick the due records of
//! running campaigns inside their calling window (opt-out lists checked again) become
//! `campaign-call` engine jobs. Several processes ticking at once take each record once
//! (`switchboard_db::call_campaigns::take_due` takes a record by a conditional update).

use std::time::Duration;

use std::sync::Arc;

use tokio::sync::{Notify, watch};

use crate::Jobs;

/// Records taken per transaction.
const BATCH: usize = 200;

/// Schedules every `every`, and at once when `wake` is notified (a campaign started
/// running or gained records here), until `stop` turns true.
pub(crate) async fn run(
    jobs: Jobs,
    every: Duration,
    wake: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) {
    while !*stop.borrow() {
        loop {
            match switchboard_db::call_campaigns::schedule(jobs.db(), chrono::Utc::now(), BATCH)
                .await
            {
                Ok(queued) if queued == BATCH => continue,
                Ok(0) => break,
                Ok(queued) => {
                    tracing::info!(queued, "campaign calls queued for the engine");
                    break;
                }
                Err(error) => {
                    tracing::warn!(%error, "the campaign scheduler failed");
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
            _ = wake.notified() => {}
        }
    }
}
