//! How deliveries go out: the settings the service starts the delivery worker with.

use std::time::Duration;

use super::schedule::Schedule;
use crate::worker::seconds_up;

/// How deliveries go out; production defaults from [`DeliverySettings::default`].
#[derive(Clone, Debug)]
pub struct DeliverySettings {
    /// Whether targets on loopback and private addresses are allowed.
    pub allow_private: bool,
    /// Waits between attempts.
    pub schedule: Schedule,
    /// How often an idle worker looks for due deliveries (another process's events, due
    /// retries); this process's own are sent at once, woken by their commit.
    pub poll_interval: Duration,
    /// How long a webhook may fail without a single success before it is disabled.
    pub disable_after: Duration,
    /// Time to connect.
    pub connect_timeout: Duration,
    /// Time for a whole attempt, connection and answer included.
    pub timeout: Duration,
    /// Deliveries one process sends at once.
    pub max_in_flight: usize,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            allow_private: false,
            schedule: Schedule::default(),
            poll_interval: Duration::from_millis(250),
            disable_after: Duration::from_secs(5 * 24 * 3600),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(15),
            max_in_flight: 32,
        }
    }
}

impl DeliverySettings {
    /// How long a claim lasts: the longest an attempt can take plus a minute for the
    /// database writes around it, so no other worker sends a delivery while it is sent.
    pub fn lease(&self) -> Duration {
        self.timeout + Duration::from_secs(60)
    }

    /// When a lease taken at `now` (Unix seconds) runs out.
    pub fn lease_until(&self, now: i64) -> i64 {
        now.saturating_add(seconds_up(self.lease()))
    }
}
