//! The Redis limiter: the same GCRA for requests (one number per key) and the same
//! sliding-window logs for failures (sorted sets), each operation one atomic Lua script
//! on the server's clock, failing open when Redis is down.
//!
//! Needs Redis 5 or later: older servers refuse writes in a script after `TIME`.
//! Each script touches one key, so the limiter also works on Redis Cluster.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisResult, Script};
use uuid::Uuid;

use super::gcra::{Decision, FAILURE_LOG_CAP, Gcra, Window, micros_to_reset_secs};

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

/// The prefix of request logs.
const HIT_PREFIX: &str = "switchboard:rl:";
/// The prefix of failure logs.
const FAILURE_PREFIX: &str = "switchboard:fail:";

/// The longest a request waits on Redis before the limiter gives up and lets it through:
/// a limiter must not add more latency than this to every request while Redis is away.
const CALL_BUDGET: Duration = Duration::from_secs(1);
/// After a failure, calls skip Redis (and fail open at once) for this long, so that an
/// outage costs one slow request per process per period instead of every request.
const COOL_DOWN: Duration = Duration::from_secs(1);

/// One request under GCRA (see the parent module): KEYS[1] holds the key's theoretical
/// arrival time (µs, Redis `TIME`, so that every process agrees). ARGV: interval µs,
/// capacity µs, expiry ms. Answers {allowed, remaining, µs until the whole limit is back
/// (allowed) or until the request would fit (refused)}. A refused request leaves the key
/// as it was.
const HIT_SCRIPT: &str = r"
local key = KEYS[1]
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local tat = tonumber(redis.call('GET', key) or 0)
if tat < now then tat = now end
local ahead = tat + interval - now
if ahead <= capacity then
  redis.call('SET', key, string.format('%d', now + ahead), 'PX', ARGV[3])
  return {1, math.floor((capacity - ahead) / interval), ahead}
end
return {0, 0, ahead - capacity}
";

/// One failure: KEYS[1] is a sorted set of failure times (µs). ARGV: window µs, expiry ms,
/// a unique member, the most entries kept. Answers the failures now in the window.
const RECORD_FAILURE_SCRIPT: &str = r"
local key = KEYS[1]
local window = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
redis.call('ZADD', key, now, ARGV[3])
redis.call('ZREMRANGEBYRANK', key, 0, -(tonumber(ARGV[4]) + 1))
redis.call('PEXPIRE', key, ARGV[2])
return redis.call('ZCARD', key)
";

/// The failures of KEYS[1] within the last ARGV[1] µs, read only.
const COUNT_FAILURES_SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
return redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[1]) + 1, '+inf')
";

/// Counts in Redis, shared by every `serve` process that points at the same server.
#[derive(Clone)]
pub struct RedisLimiter {
    inner: Arc<Inner>,
}

struct Inner {
    /// Reconnects by itself after Redis restarts or the connection drops.
    connection: ConnectionManager,
    hit: Script,
    record_failure: Script,
    count_failures: Script,
    /// The zero of `open_until`.
    epoch: Instant,
    /// Until when (µs since `epoch`) calls skip Redis after a failure.
    open_until: AtomicU64,
}

impl RedisLimiter {
    /// Connects, and loads the scripts so that a server without Lua fails here, not on the
    /// first request.
    pub(super) async fn connect(url: &str) -> Result<RedisLimiter, LimitError> {
        let client = Client::open(url).map_err(LimitError::InvalidUrl)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(Some(Duration::from_millis(500)))
            // Few, short retries: a request waiting on a reconnect is cut at CALL_BUDGET
            // anyway, and the next failed call starts a new round.
            .set_number_of_retries(3)
            .set_max_delay(Duration::from_millis(500));
        let mut connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(LimitError::Unreachable)?;
        let limiter = Inner {
            connection: connection.clone(),
            hit: Script::new(HIT_SCRIPT),
            record_failure: Script::new(RECORD_FAILURE_SCRIPT),
            count_failures: Script::new(COUNT_FAILURES_SCRIPT),
            epoch: Instant::now(),
            open_until: AtomicU64::new(0),
        };
        for script in [
            &limiter.hit,
            &limiter.record_failure,
            &limiter.count_failures,
        ] {
            script
                .load_async(&mut connection)
                .await
                .map_err(LimitError::Unreachable)?;
        }
        Ok(RedisLimiter {
            inner: Arc::new(limiter),
        })
    }

    pub(super) async fn hit(&self, key: &str, limit: u64, window: Window) -> Decision {
        let mut connection = self.inner.connection.clone();
        let mut invocation = self.inner.hit.key(format!("{HIT_PREFIX}{key}"));
        let rate = Gcra::new(limit, window);
        // Lua numbers are doubles: times in µs since 1970 stay exact up to 2255.
        invocation
            .arg(rate.interval)
            .arg(rate.capacity)
            .arg(window.millis_ceil());
        let answer: Option<(u64, u64, u64)> = self
            .guarded("hit", invocation.invoke_async(&mut connection))
            .await;
        let Some((allowed, remaining, reset_micros)) = answer else {
            return Decision::fail_open(limit, window);
        };
        // Redis's clock may step back; never promise a wait longer than the window.
        let reset_after_secs = micros_to_reset_secs(reset_micros.min(window.micros));
        Decision {
            allowed: allowed == 1,
            limit,
            remaining,
            reset_after_secs,
        }
    }

    pub(super) async fn record_failure(&self, key: &str, window: Window) -> u64 {
        let mut connection = self.inner.connection.clone();
        let mut invocation = self
            .inner
            .record_failure
            .key(format!("{FAILURE_PREFIX}{key}"));
        invocation
            .arg(window.micros)
            .arg(window.millis_ceil())
            .arg(unique_member())
            .arg(FAILURE_LOG_CAP);
        self.guarded("record_failure", invocation.invoke_async(&mut connection))
            .await
            .unwrap_or(0)
    }

    pub(super) async fn failures(&self, key: &str, window: Window) -> u64 {
        let mut connection = self.inner.connection.clone();
        let mut invocation = self
            .inner
            .count_failures
            .key(format!("{FAILURE_PREFIX}{key}"));
        invocation.arg(window.micros);
        self.guarded("failures", invocation.invoke_async(&mut connection))
            .await
            .unwrap_or(0)
    }

    pub(super) async fn clear_failures(&self, key: &str) {
        let mut connection = self.inner.connection.clone();
        let mut command = redis::cmd("DEL");
        command.arg(format!("{FAILURE_PREFIX}{key}"));
        let _: Option<u64> = self
            .guarded("clear_failures", command.query_async(&mut connection))
            .await;
    }

    /// Runs one Redis call within the budget; on any failure logs a warning, skips Redis
    /// for the cool-down, and answers None for the caller to fail open.
    async fn guarded<T>(
        &self,
        operation: &'static str,
        call: impl Future<Output = RedisResult<T>>,
    ) -> Option<T> {
        let now = self.now();
        if now < self.inner.open_until.load(Ordering::Relaxed) {
            crate::metrics::rate_limit_failed_open();
            return None;
        }
        let failure = match tokio::time::timeout(CALL_BUDGET, call).await {
            Ok(Ok(value)) => return Some(value),
            Ok(Err(error)) => error.to_string(),
            Err(_) => format!("no answer within {CALL_BUDGET:?}"),
        };
        let cool_down = u64::try_from(COOL_DOWN.as_micros()).unwrap_or(u64::MAX);
        self.inner
            .open_until
            .store(self.now().saturating_add(cool_down), Ordering::Relaxed);
        // The key is left out: it is a client address or an account.
        tracing::warn!(
            operation,
            error = %failure,
            "rate limiter: Redis failed; allowing requests unlimited for {COOL_DOWN:?} (fail open)"
        );
        crate::metrics::rate_limit_failed_open();
        None
    }

    fn now(&self) -> u64 {
        u64::try_from(self.inner.epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}

impl fmt::Debug for RedisLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisLimiter")
            .field("connection", &self.inner.connection)
            .finish_non_exhaustive()
    }
}

/// A sorted-set member unique to one event: two requests in the same microsecond are two
/// entries, not one overwritten.
fn unique_member() -> String {
    Uuid::new_v4().simple().to_string()
}
