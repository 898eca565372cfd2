//! Leaving the rotation before stopping (issue 30).
//!
//! A stop asked for by the platform (SIGTERM) goes in three steps, so that no client
//! meets a closed connection with its request's outcome unknown:
//!
//! 1. **Draining**, at once: `/readyz` answers 503 while every other request is served as
//!    before, each answer carrying `Connection: close` so that a keep-alive client opens
//!    its next connection elsewhere instead of racing the close of this one.
//! 2. After the drain period ([`Stopping::drain`], long enough for the balancer's probes
//!    to see it), the listener closes; idle keep-alive connections are closed, and the
//!    requests in flight finish within the grace period ([`Stopping::grace`]).
//! 3. The background workers stop, and the process exits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a stop proceeds once it is asked for.
#[derive(Clone, Copy, Debug)]
pub struct Stopping {
    /// How long the process keeps serving while `/readyz` answers 503, before its
    /// listener closes.
    pub drain: Duration,
    /// How long the requests in flight may then take to finish.
    pub grace: Duration,
}

/// Whether the process is draining: set once, when a stop is asked for.
#[derive(Debug, Default)]
pub struct Draining(AtomicBool);

impl Draining {
    /// From now on, the process is leaving the rotation.
    pub fn begin(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether a stop has been asked for.
    pub fn is_draining(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}
