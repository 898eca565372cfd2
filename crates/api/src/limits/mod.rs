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

mod gcra;
mod local;
mod redis_backend;

use std::time::Duration;

use gcra::Window;
pub use gcra::{Decision, FAILURE_LOG_CAP};
pub use local::LocalLimiter;
pub use redis_backend::{LimitError, RedisLimiter};

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
