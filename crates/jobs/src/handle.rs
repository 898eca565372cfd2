//! This process's background work as its workers share it: the handles they use, its
//! name in leases, the webhook client and the campaign scheduler's wake-up. The workers
//! and [`crate::spawn`] take it from here; it takes only the delivery settings and client.

use std::sync::Arc;

use switchboard_db::Db;
use switchboard_db::seal::Sealer;
use switchboard_storage::Storage;
use tokio::sync::Notify;

use crate::delivery::DeliverySettings;
use crate::delivery::client;

/// This process's background work: the handles it uses, its name in leases, the
/// webhook client and the campaign scheduler's wake-up. The job and delivery workers are
/// woken by the database's commits that queue their work (`switchboard_db::wakeups`).
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
        let client = client::build(
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

    /// Wakes this process's campaign scheduler at once: call after a campaign starts
    /// running or gains records, so its due records are queued without waiting a tick.
    pub fn wake_campaigns(&self) {
        self.inner.wake_campaigns.notify_one();
    }

    /// The database.
    pub(crate) fn db(&self) -> &Db {
        &self.inner.db
    }

    /// The object store.
    pub(crate) fn storage(&self) -> &Storage {
        &self.inner.storage
    }

    /// The sealer of stored secrets (webhooks' signing secrets and credentials).
    pub(crate) fn sealer(&self) -> &Sealer {
        &self.inner.sealer
    }

    /// The HTTP client deliveries go out on.
    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.inner.client
    }

    /// What wakes the campaign scheduler ([`Jobs::wake_campaigns`] rings it).
    pub(crate) fn campaign_bell(&self) -> Arc<Notify> {
        self.inner.wake_campaigns.clone()
    }
}
