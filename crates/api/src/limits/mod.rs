//! Rate limits: how many requests a key (a token, a client address, an account) may make per window.
//!
//! Requests are limited with GCRA (the generic cell rate algorithm, a token bucket kept as
//! one number per key: its *theoretical arrival time*): a key may make `limit` requests at
//! once, after which they are let through one per `window / limit` — the bucket refills
//! steadily instead of all at once at a window boundary, as a fixed-window counter would.
//! Each request costs O(1) time and each key one number, however large the limit (the
//! sliding-window log this replaced kept every request's time: 1,200 entries per token at
//! the default limit). The price is a weaker bound: an interval of length `window` admits
//! at most `2 × limit − 1` requests (a full bucket spent, then refilled while it runs)
//! rather than `limit`; a client that keeps to `limit` per window is never refused.
//! Refused requests are not counted, so hammering a limit does not push its reset further
//! away. `RateLimit-Reset` is when the whole limit is available again (allowed) or when a
//! retry will be allowed (refused).
//!
//! Failures (failed logins, for lockouts) keep a sliding-window log, capped at
//! [`FAILURE_LOG_CAP`] entries per key: they are rare, off the hot path, and a lockout
//! counts failures exactly.
//!
//! Keys are stored as given (in Redis as `switchboard:rl:<key>` and
//! `switchboard:fail:<key>`): pass a digest or an id rather than a secret such as a raw
//! bearer token, and name the policy in the key (`login:ip:203.0.113.7`) when one subject
//! has several limits, since one key is one count.

mod local;
mod redis_backend;

use std::time::Duration;

pub use local::LocalLimiter;
pub use redis_backend::RedisLimiter;

/// The most failures kept per key; [`Limiter::record_failure`] and [`Limiter::failures`]
/// saturate there, which is far above any lockout threshold, so that a brute-force run
/// cannot grow one key's log without bound.
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
    fn fail_open(limit: u64, window: Window) -> Decision {
        Decision {
            allowed: true,
            limit,
            remaining: limit,
            reset_after_secs: window.secs_ceil(),
        }
    }

    /// The answer for a limit of 0, which nothing can ever pass.
    fn never(window: Window) -> Decision {
        Decision {
            allowed: false,
            limit: 0,
            remaining: 0,
            reset_after_secs: window.secs_ceil(),
        }
    }
}

/// A rate limiter shared by every request of a process, or (Redis) of every process.
#[derive(Clone, Debug)]
pub enum Limiter {
    /// In-process; per-process counts.
    Local(LocalLimiter),
    /// Redis-backed; counts shared by several `serve` processes.
    Redis(RedisLimiter),
}

impl Limiter {
    /// An in-process limiter.
    pub fn local() -> Limiter {
        Limiter::Local(LocalLimiter::new())
    }

    /// An in-process limiter that tracks at most `max_keys` keys for requests and as many
    /// for failures, forgetting the ones closest to expiry beyond that.
    pub fn local_with_max_keys(max_keys: usize) -> Limiter {
        Limiter::Local(LocalLimiter::with_max_keys(max_keys))
    }

    /// A limiter keeping its counts in Redis at `url` (redis://…); fails if Redis cannot be reached at start.
    pub async fn redis(url: &str) -> Result<Limiter, LimitError> {
        RedisLimiter::connect(url).await.map(Limiter::Redis)
    }

    /// Counts one request of `key` against `limit` requests per `window`, answering whether it may proceed.
    ///
    /// Fail open: if Redis errors at run time, a warning is logged and the request is
    /// allowed (with `remaining = limit`) rather than take the API down with the limiter.
    /// Windows are clamped to 1 ms ..= 366 days.
    pub async fn hit(&self, key: &str, limit: u64, window: Duration) -> Decision {
        let window = Window::new(window);
        if limit == 0 {
            return Decision::never(window);
        }
        match self {
            Limiter::Local(local) => local.hit(key, limit, window),
            Limiter::Redis(redis) => redis.hit(key, limit, window).await,
        }
    }

    /// Counts a failure of `key` (e.g. a failed login) without a limit decision, answering how many failures are
    /// recorded within `window` including this one. Used for brute-force protection.
    ///
    /// Answers 0 when Redis is unavailable (fail open: nothing was recorded, and nobody is
    /// locked out because the limiter is down); saturates at [`FAILURE_LOG_CAP`].
    pub async fn record_failure(&self, key: &str, window: Duration) -> u64 {
        let window = Window::new(window);
        match self {
            Limiter::Local(local) => local.record_failure(key, window),
            Limiter::Redis(redis) => redis.record_failure(key, window).await,
        }
    }

    /// How many failures of `key` are recorded within `window` (0 when Redis is unavailable).
    pub async fn failures(&self, key: &str, window: Duration) -> u64 {
        let window = Window::new(window);
        match self {
            Limiter::Local(local) => local.failures(key, window),
            Limiter::Redis(redis) => redis.failures(key, window).await,
        }
    }

    /// Forgets the failures of `key` (on a successful login).
    pub async fn clear_failures(&self, key: &str) {
        match self {
            Limiter::Local(local) => local.clear_failures(key),
            Limiter::Redis(redis) => redis.clear_failures(key).await,
        }
    }
}

/// Why a Redis limiter could not start.
#[derive(Debug, thiserror::Error)]
pub enum LimitError {
    /// The URL is not a Redis URL.
    #[error("the rate limiter's Redis URL is invalid")]
    InvalidUrl(#[source] redis::RedisError),
    /// Redis did not answer, or refused to load the limiter's scripts.
    #[error("the rate limiter cannot reach Redis")]
    Unreachable(#[source] redis::RedisError),
}

/// A window length in whole microseconds, the unit of every stored time (Redis `TIME`
/// has microseconds, and 2^53 µs, where Lua numbers stop being exact, is 285 years).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    micros: u64,
}

impl Window {
    /// Below a millisecond Redis could not expire the key before its entries age out.
    const MIN_MICROS: u64 = 1_000;
    /// A bound that keeps `now + window` far from overflow in both backends.
    const MAX_MICROS: u64 = 366 * 24 * 3600 * 1_000_000;

    fn new(window: Duration) -> Window {
        let micros = u64::try_from(window.as_micros()).unwrap_or(u64::MAX);
        Window {
            micros: micros.clamp(Self::MIN_MICROS, Self::MAX_MICROS),
        }
    }

    /// The key's expiry in milliseconds, rounded up so it never expires before its entries.
    fn millis_ceil(self) -> u64 {
        self.micros.div_ceil(1_000)
    }

    /// The window in whole seconds, at least 1.
    fn secs_ceil(self) -> u64 {
        micros_to_reset_secs(self.micros)
    }
}

/// A wait in microseconds as `reset_after_secs`: rounded up (so it is never too early)
/// and at least 1 (so that `Retry-After: 0` never tells a client to retry at once).
fn micros_to_reset_secs(micros: u64) -> u64 {
    micros.div_ceil(1_000_000).max(1)
}

/// One key's request rate as GCRA: requests are spaced `interval` apart on average, and
/// up to `limit` of them may come at once (the capacity is `limit × interval`, the window
/// up to the rounding of the interval to whole microseconds).
struct Gcra {
    limit: u64,
    interval: u64,
    capacity: u64,
    window: Window,
}

impl Gcra {
    fn new(limit: u64, window: Window) -> Gcra {
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
    fn decide(&self, tat: u64, now: u64) -> (Decision, u64) {
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
