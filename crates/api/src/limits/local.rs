//! The in-process limiter: one theoretical arrival time per key for requests (GCRA, see
//! the parent module), sliding-window logs for failures, each in a mutex-guarded map
//! pruned so that memory stays bounded however many keys clients make up.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::gcra::{Decision, FAILURE_LOG_CAP, Gcra, Window};

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
    hits: Mutex<Cells>,
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
                hits: Mutex::new(Cells::new(max_keys)),
                failures: Mutex::new(Logs::new(max_keys)),
            }),
        }
    }

    pub(super) fn hit(&self, key: &str, limit: u64, window: Window) -> Decision {
        let mut cells = lock(&self.inner.hits);
        // Read the clock under the lock so that each key's times are in order.
        let now = self.now();
        let rate = Gcra::new(limit, window);
        let tat = cells.time(key, now);
        let (decision, next) = rate.decide(tat, now);
        if next != tat {
            cells.set(key, next, now);
        }
        decision
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
fn lock<T>(map: &Mutex<T>) -> MutexGuard<'_, T> {
    map.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The theoretical arrival time (µs since the limiter's epoch) of every key, bounded to
/// `max_keys`; a key whose time has passed holds its whole limit and is forgotten.
struct Cells {
    map: HashMap<String, u64>,
    max_keys: usize,
    next_sweep: u64,
}

impl Cells {
    fn new(max_keys: usize) -> Cells {
        Cells {
            map: HashMap::new(),
            max_keys: max_keys.max(1),
            next_sweep: 0,
        }
    }

    /// The time of `key`, 0 for a key not tracked.
    fn time(&mut self, key: &str, now: u64) -> u64 {
        if now >= self.next_sweep {
            self.sweep(now);
        }
        self.map.get(key).copied().unwrap_or(0)
    }

    /// Stores the time of `key`, making room for it if it is new.
    fn set(&mut self, key: &str, tat: u64, now: u64) {
        // The hot path (a known key) allocates no String.
        if let Some(stored) = self.map.get_mut(key) {
            *stored = tat;
            return;
        }
        if self.map.len() >= self.max_keys {
            self.sweep(now);
        }
        if self.map.len() >= self.max_keys {
            // Evicting a tenth at once keeps an attack with fresh keys from paying a full
            // scan on every request; the evicted keys are those closest to full.
            let evict = (self.max_keys / 10).max(1);
            let mut times: Vec<u64> = self.map.values().copied().collect();
            let (_, threshold, _) = times.select_nth_unstable(evict - 1);
            let threshold = *threshold;
            self.map.retain(|_, stored| *stored > threshold);
        }
        self.map.insert(key.to_owned(), tat);
    }

    fn sweep(&mut self, now: u64) {
        self.map.retain(|_, tat| *tat > now);
        if self.map.capacity() > 4 * self.map.len().max(1024) {
            self.map.shrink_to_fit();
        }
        self.next_sweep = now.saturating_add(duration_micros(SWEEP_EVERY));
    }
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
}

fn duration_micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}
