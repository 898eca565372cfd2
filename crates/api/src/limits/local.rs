//! The in-process limiter: sliding-window logs in a mutex-guarded map, pruned so that
//! memory stays bounded however many keys clients make up.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{Decision, FAILURE_LOG_CAP, Window, micros_to_reset_secs};

/// How many keys each map tracks by default (one map for requests, one for failures).
const DEFAULT_MAX_KEYS: usize = 100_000;

/// How often expired logs are swept out, so that keys never seen again do not linger
/// until the map is full.
const SWEEP_EVERY: Duration = Duration::from_secs(10);

/// In-process counts, for a single `serve` process (each process counts on its own).
#[derive(Clone)]
pub struct LocalLimiter {
    inner: Arc<Inner>,
}

struct Inner {
    /// The zero of every stored time: a monotonic clock, so that wall-clock jumps neither
    /// free nor lock anyone.
    epoch: Instant,
    hits: Mutex<Logs>,
    failures: Mutex<Logs>,
}

impl LocalLimiter {
    /// A limiter tracking up to 100,000 keys per map.
    pub(super) fn new() -> LocalLimiter {
        LocalLimiter::with_max_keys(DEFAULT_MAX_KEYS)
    }

    /// A limiter tracking up to `max_keys` keys per map (at least 1).
    pub(super) fn with_max_keys(max_keys: usize) -> LocalLimiter {
        LocalLimiter {
            inner: Arc::new(Inner {
                epoch: Instant::now(),
                hits: Mutex::new(Logs::new(max_keys)),
                failures: Mutex::new(Logs::new(max_keys)),
            }),
        }
    }

    pub(super) fn hit(&self, key: &str, limit: u64, window: Window) -> Decision {
        let mut logs = lock(&self.inner.hits);
        // Read the clock under the lock so that each log's times are in order.
        let now = self.now();
        let log = logs.entry(key, now);
        log.trim(now, window);
        let count = log.len();
        if count < limit {
            log.push(now, window);
            return Decision {
                allowed: true,
                limit,
                remaining: limit - count - 1,
                reset_after_secs: log.reset_after_secs(0, now, window),
            };
        }
        // With `limit` requests in the log, a slot frees when the oldest one leaves the
        // window; a log longer than the limit (the limit was lowered) needs more to leave.
        let frees = usize::try_from(count - limit).unwrap_or(usize::MAX);
        Decision {
            allowed: false,
            limit,
            remaining: 0,
            reset_after_secs: log.reset_after_secs(frees, now, window),
        }
    }

    pub(super) fn record_failure(&self, key: &str, window: Window) -> u64 {
        let mut logs = lock(&self.inner.failures);
        let now = self.now();
        let log = logs.entry(key, now);
        log.trim(now, window);
        log.push(now, window);
        log.truncate_front(FAILURE_LOG_CAP);
        log.len()
    }

    pub(super) fn failures(&self, key: &str, window: Window) -> u64 {
        let mut logs = lock(&self.inner.failures);
        let now = self.now();
        logs.sweep_if_due(now);
        logs.map
            .get(key)
            .map_or(0, |log| log.count_within(now, window))
    }

    pub(super) fn clear_failures(&self, key: &str) {
        lock(&self.inner.failures).map.remove(key);
    }

    fn now(&self) -> u64 {
        u64::try_from(self.inner.epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}

impl fmt::Debug for LocalLimiter {
    // The keys are client addresses and account names: count them, do not print them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalLimiter")
            .field("hit_keys", &lock(&self.inner.hits).map.len())
            .field("failure_keys", &lock(&self.inner.failures).map.len())
            .finish()
    }
}

/// The maps are left consistent at every step (no code between two writes can panic), so
/// a panic elsewhere while holding the lock is no reason to stop limiting.
fn lock(logs: &Mutex<Logs>) -> MutexGuard<'_, Logs> {
    logs.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The logs of every key, bounded to `max_keys`.
struct Logs {
    map: HashMap<String, Log>,
    max_keys: usize,
    next_sweep: u64,
}

impl Logs {
    fn new(max_keys: usize) -> Logs {
        Logs {
            map: HashMap::new(),
            max_keys: max_keys.max(1),
            next_sweep: 0,
        }
    }

    /// The log of `key`, made (and room made for it) if it is new.
    fn entry(&mut self, key: &str, now: u64) -> &mut Log {
        self.sweep_if_due(now);
        if self.map.len() >= self.max_keys && !self.map.contains_key(key) {
            self.make_room(now);
        }
        self.map.entry(key.to_owned()).or_default()
    }

    fn sweep_if_due(&mut self, now: u64) {
        if now >= self.next_sweep {
            self.sweep(now);
        }
    }

    /// Drops every log whose newest entry has left its window.
    fn sweep(&mut self, now: u64) {
        self.map.retain(|_, log| log.expires_at > now);
        // A burst of keys leaves a large table behind once they expire; give it back.
        if self.map.capacity() > 4 * self.map.len().max(1024) {
            self.map.shrink_to_fit();
        }
        self.next_sweep = now.saturating_add(duration_micros(SWEEP_EVERY));
    }

    /// Frees room for a new key: expired logs first, then, if clients are making up keys
    /// faster than they expire, the tenth of the logs closest to expiry (their counts are
    /// forgotten, the price of bounded memory).
    fn make_room(&mut self, now: u64) {
        self.sweep(now);
        if self.map.len() < self.max_keys {
            return;
        }
        // Evicting a tenth at once keeps an attack with fresh keys from paying a full scan
        // on every request.
        let evict = (self.max_keys / 10).max(1);
        let mut expiries: Vec<u64> = self.map.values().map(|log| log.expires_at).collect();
        let (_, threshold, _) = expiries.select_nth_unstable(evict - 1);
        let threshold = *threshold;
        self.map.retain(|_, log| log.expires_at > threshold);
    }
}

/// The times (µs since the limiter's epoch) of one key's counted events, oldest first.
#[derive(Default)]
struct Log {
    times: VecDeque<u64>,
    /// When the newest entry leaves its window, after which the whole log is dead.
    expires_at: u64,
}

impl Log {
    fn len(&self) -> u64 {
        self.times.len() as u64
    }

    /// Drops the entries that have left the window: an entry at `t` counts while
    /// `now - t < window`, as in the Redis script.
    fn trim(&mut self, now: u64, window: Window) {
        while self
            .times
            .front()
            .is_some_and(|&t| t.saturating_add(window.micros) <= now)
        {
            self.times.pop_front();
        }
    }

    fn push(&mut self, now: u64, window: Window) {
        self.times.push_back(now);
        self.expires_at = now.saturating_add(window.micros);
    }

    /// Keeps only the newest `cap` entries.
    fn truncate_front(&mut self, cap: u64) {
        while self.len() > cap {
            self.times.pop_front();
        }
    }

    fn count_within(&self, now: u64, window: Window) -> u64 {
        self.times
            .iter()
            .filter(|&&t| t.saturating_add(window.micros) > now)
            .count() as u64
    }

    /// Seconds until the entry at `index` (0 = oldest) leaves the window.
    fn reset_after_secs(&self, index: usize, now: u64, window: Window) -> u64 {
        let micros = self.times.get(index).map_or(window.micros, |&t| {
            t.saturating_add(window.micros).saturating_sub(now)
        });
        micros_to_reset_secs(micros)
    }
}

fn duration_micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}
