//! Background work, below the HTTP layer: the webhook outbox's delivery worker and the
//! job table's worker (objects to delete after their records, phones to announce, the
//! telephony renditions old media files lack). Each is a queue worked
//! by every `serve` process through the one lease mechanism of `switchboard_db::lease`,
//! so several processes on one database share the work and none is done twice at once.
//! It takes only the handles it needs — database, storage, the sealer of stored secrets
//! and an HTTP client — and the binary starts it beside the HTTP server.

mod campaigns;
pub mod delivery;
mod objects;
mod renditions;
mod retention;
mod worker;

use std::sync::Arc;

use switchboard_db::Db;
use switchboard_db::seal::Sealer;
use switchboard_storage::Storage;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

pub use delivery::{DeliverySettings, Schedule};

/// This process's background work: the handles it uses, its name in leases, the
/// webhook client and the wake-ups for work this process has just queued.
#[derive(Clone, Debug)]
pub struct Jobs {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: Db,
    storage: Storage,
    sealer: Sealer,
    settings: DeliverySettings,
    owner: String,
    client: reqwest::Client,
    wake_deliveries: Arc<Notify>,
    wake_jobs: Arc<Notify>,
    wake_campaigns: Arc<Notify>,
}

impl Jobs {
    /// Background work on these handles, under a new worker name.
    pub fn new(
        db: Db,
        storage: Storage,
        sealer: Sealer,
        settings: DeliverySettings,
    ) -> reqwest::Result<Jobs> {
        let client = delivery::client::build(
            settings.allow_private,
            settings.connect_timeout,
            settings.timeout,
        )?;
        Ok(Jobs {
            inner: Arc::new(Inner {
                db,
                storage,
                sealer,
                settings,
                owner: format!("worker_{}", uuid::Uuid::now_v7().simple()),
                client,
                wake_deliveries: Arc::new(Notify::new()),
                wake_jobs: Arc::new(Notify::new()),
                wake_campaigns: Arc::new(Notify::new()),
            }),
        })
    }

    /// The name this process's leases carry.
    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// How webhooks are delivered.
    pub fn settings(&self) -> &DeliverySettings {
        &self.inner.settings
    }

    /// Wakes this process's workers at once: call after committing events, deliveries
    /// or jobs, so they do not wait for the next poll.
    pub fn wake(&self) {
        self.inner.wake_deliveries.notify_one();
        self.inner.wake_jobs.notify_one();
    }

    /// Wakes this process's campaign scheduler at once: call after a campaign starts
    /// running or gains records, so its due records are queued without waiting a tick.
    pub fn wake_campaigns(&self) {
        self.inner.wake_campaigns.notify_one();
    }

    fn db(&self) -> &Db {
        &self.inner.db
    }

    fn storage(&self) -> &Storage {
        &self.inner.storage
    }
}

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
        jobs.inner.wake_deliveries.clone(),
        stop.clone(),
    );
    let queued = worker::run(
        objects::JobQueue(jobs.clone()),
        worker::Pace {
            poll_interval: settings.poll_interval,
            max_in_flight: 8,
            drain: std::time::Duration::from_secs(10),
        },
        jobs.inner.wake_jobs.clone(),
        stop.clone(),
    );
    // Campaign calls are placed within minutes of being due: a tick a second (four idle
    // polls) is plenty, and each is a read of the running campaigns.
    let calling = campaigns::run(
        jobs.clone(),
        settings.poll_interval * 4,
        jobs.inner.wake_campaigns.clone(),
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
