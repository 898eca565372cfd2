//! What both limiters are made of: the GCRA cell (a key's theoretical arrival time),
//! windows in whole microseconds, the decision a request gets, and the failure log's cap.

use std::time::Duration;

/// The most failures kept per key; [`super::Limiter::record_failure`] and
/// [`super::Limiter::failures`] saturate there, which is far above any lockout threshold,
/// so that a brute-force run cannot grow one key's log without bound.
pub const FAILURE_LOG_CAP: u64 = 1024;

/// The outcome of one request against a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Whether the request may proceed.
    pub allowed: bool,
    /// The limit (requests per window).
    pub limit: u64,
    /// Requests left in the current window after this one (0 when refused).
    pub remaining: u64,
    /// Seconds until the limit resets (>= 1), for `RateLimit-Reset` and `Retry-After`.
    ///
    /// For an allowed request, when the whole limit is available again; for a refused
    /// request, when a retry will be allowed. Rounded up, so a client that waits this long
    /// is not refused again by the same requests.
    pub reset_after_secs: u64,
}

impl Decision {
    /// The answer when the limiter cannot decide (Redis down): let the request through.
    pub(super) fn fail_open(limit: u64, window: Window) -> Decision {
        Decision {
            allowed: true,
            limit,
            remaining: limit,
            reset_after_secs: window.secs_ceil(),
        }
    }

    /// The answer for a limit of 0, which nothing can ever pass.
    pub(super) fn never(window: Window) -> Decision {
        Decision {
            allowed: false,
            limit: 0,
            remaining: 0,
            reset_after_secs: window.secs_ceil(),
        }
    }
}

/// A window length in whole microseconds, the unit of every stored time (Redis `TIME`
/// has microseconds, and 2^53 µs, where Lua numbers stop being exact, is 285 years).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Window {
    pub(super) micros: u64,
}

impl Window {
    /// Below a millisecond Redis could not expire the key before its entries age out.
    const MIN_MICROS: u64 = 1_000;
    /// A bound that keeps `now + window` far from overflow in both backends.
    const MAX_MICROS: u64 = 366 * 24 * 3600 * 1_000_000;

    pub(super) fn new(window: Duration) -> Window {
        let micros = u64::try_from(window.as_micros()).unwrap_or(u64::MAX);
        Window {
            micros: micros.clamp(Self::MIN_MICROS, Self::MAX_MICROS),
        }
    }

    /// The key's expiry in milliseconds, rounded up so it never expires before its entries.
    pub(super) fn millis_ceil(self) -> u64 {
        self.micros.div_ceil(1_000)
    }

    /// The window in whole seconds, at least 1.
    pub(super) fn secs_ceil(self) -> u64 {
        micros_to_reset_secs(self.micros)
    }
}

/// A wait in microseconds as `reset_after_secs`: rounded up (so it is never too early)
/// and at least 1 (so that `Retry-After: 0` never tells a client to retry at once).
pub(super) fn micros_to_reset_secs(micros: u64) -> u64 {
    micros.div_ceil(1_000_000).max(1)
}

/// One key's request rate as GCRA: requests are spaced `interval` apart on average, and
/// up to `limit` of them may come at once (the capacity is `limit × interval`, the window
/// up to the rounding of the interval to whole microseconds).
pub(super) struct Gcra {
    limit: u64,
    pub(super) interval: u64,
    pub(super) capacity: u64,
    window: Window,
}

impl Gcra {
    pub(super) fn new(limit: u64, window: Window) -> Gcra {
        let interval = (window.micros / limit).max(1);
        Gcra {
            limit,
            interval,
            capacity: interval.saturating_mul(limit),
            window,
        }
    }

    /// The decision for a request at `now` of a key whose theoretical arrival time is
    /// `tat` (0 for a new key), and the key's next one (unchanged when refused, so that
    /// hammering a limit does not push its reset further away).
    pub(super) fn decide(&self, tat: u64, now: u64) -> (Decision, u64) {
        let next = tat.max(now).saturating_add(self.interval);
        let ahead = next - now;
        if ahead <= self.capacity {
            let decision = Decision {
                allowed: true,
                limit: self.limit,
                remaining: (self.capacity - ahead) / self.interval,
                // When the whole limit is available again.
                reset_after_secs: micros_to_reset_secs(ahead.min(self.window.micros)),
            };
            return (decision, next);
        }
        let decision = Decision {
            allowed: false,
            limit: self.limit,
            remaining: 0,
            // When this request would have fitted.
            reset_after_secs: micros_to_reset_secs(ahead - self.capacity),
        };
        (decision, tat)
    }
}
