//! Background work, below the HTTP layer: the webhook outbox's delivery worker and the
//! job table's worker (objects to delete after their records, phones to announce, the
//! telephony renditions old media files lack: each kind registered in [`spawn`]). Each is a queue worked
//! by every `serve` process through the one lease mechanism of `switchboard_db::lease`,
//! so several processes on one database share the work and none is done twice at once.
//! It takes only the handles it needs — database, storage, the sealer of stored secrets
//! and an HTTP client — and the binary starts it beside the HTTP server.

mod campaigns;
pub mod delivery;
mod handle;
mod objects;
mod phones;
mod queue;
mod renditions;
mod retention;
mod worker;

use std::sync::Arc;

use switchboard_db::devices::Reprovision;
use switchboard_db::jobs::DeleteObject;
use switchboard_db::media_files::Rendition;
use switchboard_db::wakeups::Worker;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use delivery::{DeliverySettings, Schedule};
pub use handle::Jobs;

/// Starts this process's workers; they stop claiming when `stop` turns true and let the
/// work in flight finish (for a bounded time).
pub fn spawn(jobs: Jobs, stop: watch::Receiver<bool>) -> JoinHandle<()> {
    let settings = jobs.settings().clone();
    let deliveries = worker::run(
        delivery::Outbox(jobs.clone()),
        worker::Pace {
            poll_interval: settings.poll_interval,
            max_in_flight: settings.max_in_flight,
            drain: settings.timeout,
        },
        jobs.db().wakeups().bell(Worker::Deliveries),
        stop.clone(),
    );
    // Every kind of job this process does, each declared by the module of its area.
    let kinds = queue::Kinds::default()
        .with::<DeleteObject>()
        .with::<Reprovision>()
        .with::<Rendition>();
    let queued = worker::run(
        queue::JobQueue {
            jobs: jobs.clone(),
            kinds: Arc::new(kinds),
        },
        worker::Pace {
            poll_interval: settings.poll_interval,
            max_in_flight: 8,
            drain: std::time::Duration::from_secs(10),
        },
        jobs.db().wakeups().bell(Worker::Jobs),
        stop.clone(),
    );
    // Campaign calls are placed within minutes of being due: a tick a second (four idle
    // polls) is plenty, and each is a read of the running campaigns.
    let calling = campaigns::run(
        jobs.clone(),
        settings.poll_interval * 4,
        jobs.campaign_bell(),
        stop.clone(),
    );
    let expiring = retention::run(
        jobs.clone(),
        // Retention is coarse (days): a sweep a few times per poll interval's worth of
        // idle polls is plenty, and each is one indexed read when nothing is due.
        settings.poll_interval * 4,
        stop,
    );
    tokio::spawn(async move {
        tokio::join!(deliveries, queued, expiring, calling);
    })
}
