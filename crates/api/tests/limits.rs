//! Tests of the rate limiter, each on the in-process backend and on Redis: the server
//! `SWITCHBOARD_TEST_REDIS_URL` names, or one started for this run from `redis-server` on
//! the PATH. Without either, the Redis tests are reported ignored with one line saying so
//! (crates/testing's harness), unless `SWITCHBOARD_TEST_REQUIRE_REDIS=1` (CI) makes them fail.

use std::collections::BTreeSet;
use std::io;
use std::time::{Duration, Instant};

use switchboard_api::limits::{Decision, FAILURE_LOG_CAP, LimitError, Limiter};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use uuid::Uuid;

const MINUTE: Duration = Duration::from_secs(60);

async fn redis() -> Limiter {
    let url = switchboard_testing::redis_url();
    Limiter::redis(&url)
        .await
        .unwrap_or_else(|e| panic!("Redis must answer at {url}: {e}"))
}

/// `host:port` of the test Redis.
fn redis_address() -> String {
    switchboard_testing::redis_address(&switchboard_testing::redis_url()).expect("a redis:// URL")
}

/// A key no other test, and no other run of this test, uses.
fn unique_key(name: &str) -> String {
    format!("test:{}:{name}", Uuid::new_v4().simple())
}

/// Runs a check once per backend, as two tests named `<check>::local` and `<check>::redis`.
macro_rules! on_both_backends {
    ($($check:ident),* $(,)?) => {$(
        mod $check {
            async fn local() {
                super::$check(super::Limiter::local()).await;
            }

            async fn redis() {
                super::$check(super::redis().await).await;
            }

            switchboard_testing::tests!(local);
            switchboard_testing::tests!(needs switchboard_testing::REDIS; redis);
        }
    )*};
}

switchboard_testing::tests!(
    redis_unreachable_at_start_is_an_error,
    local_memory_stays_bounded
);
switchboard_testing::tests!(
    needs switchboard_testing::REDIS;
    redis_instances_share_their_counts,
    redis_keys_are_prefixed_and_expire_with_their_window,
    redis_failing_at_run_time_fails_open_then_recovers,
);

fn main() -> std::process::ExitCode {
    switchboard_testing::main()
}

on_both_backends!(
    allows_exactly_the_limit_then_refuses,
    allows_again_once_the_window_has_passed,
    the_limit_refills_steadily_so_a_boundary_allows_no_burst,
    concurrent_hits_allow_exactly_the_limit,
    failures_count_expire_and_clear,
    failure_logs_are_capped,
);

async fn allows_exactly_the_limit_then_refuses(limiter: Limiter) {
    let key = unique_key("exact");
    for remaining in (0..5).rev() {
        let decision = limiter.hit(&key, 5, MINUTE).await;
        assert!(decision.allowed, "{decision:?}");
        assert_eq!((decision.limit, decision.remaining), (5, remaining));
        assert!(
            (1..=60).contains(&decision.reset_after_secs),
            "{decision:?}"
        );
    }
    for _ in 0..3 {
        let refused = limiter.hit(&key, 5, MINUTE).await;
        assert!(!refused.allowed, "{refused:?}");
        assert_eq!((refused.limit, refused.remaining), (5, 0));
        assert!((1..=60).contains(&refused.reset_after_secs), "{refused:?}");
    }

    // Other keys have their own counts.
    let other = limiter.hit(&unique_key("other"), 5, MINUTE).await;
    assert!(other.allowed && other.remaining == 4, "{other:?}");

    // A limit of 0 lets nothing through.
    let never = limiter.hit(&unique_key("zero"), 0, MINUTE).await;
    assert_eq!(
        never,
        Decision {
            allowed: false,
            limit: 0,
            remaining: 0,
            reset_after_secs: 60
        }
    );
}

async fn allows_again_once_the_window_has_passed(limiter: Limiter) {
    let key = unique_key("expiry");
    let window = Duration::from_secs(2);
    for _ in 0..3 {
        assert!(limiter.hit(&key, 3, window).await.allowed);
    }
    let refused = limiter.hit(&key, 3, window).await;
    assert!(!refused.allowed, "{refused:?}");
    assert!((1..=2).contains(&refused.reset_after_secs), "{refused:?}");

    // Waiting as long as Retry-After says is enough.
    tokio::time::sleep(Duration::from_secs(refused.reset_after_secs)).await;
    let again = limiter.hit(&key, 3, window).await;
    assert!(again.allowed, "{again:?}");
    // A whole window later the whole limit is back.
    tokio::time::sleep(window).await;
    let whole = limiter.hit(&key, 3, window).await;
    assert!(whole.allowed && whole.remaining == 2, "{whole:?}");
}

/// The whole limit at once, then half a window later: a fixed window would start afresh
/// at its boundary and let a whole limit more through; GCRA lets through only what
/// refilled meanwhile (half the limit), each slot `window / limit` after the previous one.
async fn the_limit_refills_steadily_so_a_boundary_allows_no_burst(limiter: Limiter) {
    let key = unique_key("steady");
    let window = Duration::from_secs(2);
    let start = Instant::now();
    for remaining in (0..4).rev() {
        let decision = limiter.hit(&key, 4, window).await;
        assert!(
            decision.allowed && decision.remaining == remaining,
            "{decision:?}"
        );
    }
    let refused = limiter.hit(&key, 4, window).await;
    assert!(!refused.allowed, "{refused:?}");
    // The next slot frees half a second from the first request: rounded up, 1 s.
    assert_eq!(refused.reset_after_secs, 1, "{refused:?}");

    // A second and a tenth later two slots have refilled, no more.
    tokio::time::sleep(
        (start + Duration::from_millis(1_100)).saturating_duration_since(Instant::now()),
    )
    .await;
    let first = limiter.hit(&key, 4, window).await;
    assert!(first.allowed && first.remaining == 1, "{first:?}");
    let second = limiter.hit(&key, 4, window).await;
    assert!(second.allowed && second.remaining == 0, "{second:?}");
    let third = limiter.hit(&key, 4, window).await;
    assert!(!third.allowed, "{third:?}");
}

async fn concurrent_hits_allow_exactly_the_limit(limiter: Limiter) {
    let key = unique_key("concurrent");
    let mut hits = JoinSet::new();
    for _ in 0..50 {
        let limiter = limiter.clone();
        let key = key.clone();
        hits.spawn(async move { limiter.hit(&key, 20, MINUTE).await });
    }
    let decisions = hits.join_all().await;
    let allowed: Vec<&Decision> = decisions.iter().filter(|d| d.allowed).collect();
    assert_eq!(allowed.len(), 20, "{decisions:?}");
    // Each allowed hit saw its own count: no two read the same one.
    let remaining: BTreeSet<u64> = allowed.iter().map(|d| d.remaining).collect();
    assert_eq!(remaining, (0..20).collect());
    assert!(
        decisions
            .iter()
            .filter(|d| !d.allowed)
            .all(|d| d.remaining == 0)
    );
}

async fn failures_count_expire_and_clear(limiter: Limiter) {
    let key = unique_key("failures");
    let window = Duration::from_secs(2);
    assert_eq!(limiter.failures(&key, window).await, 0);
    for expected in 1..=3 {
        assert_eq!(limiter.record_failure(&key, window).await, expected);
    }
    assert_eq!(limiter.failures(&key, window).await, 3);
    assert_eq!(limiter.failures(&unique_key("other"), window).await, 0);

    limiter.clear_failures(&key).await;
    assert_eq!(limiter.failures(&key, window).await, 0);
    // Clearing a key with no failures is fine.
    limiter.clear_failures(&key).await;

    assert_eq!(limiter.record_failure(&key, window).await, 1);
    assert_eq!(limiter.record_failure(&key, window).await, 2);
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    assert_eq!(limiter.failures(&key, window).await, 0);
    assert_eq!(limiter.record_failure(&key, window).await, 1);
}

async fn failure_logs_are_capped(limiter: Limiter) {
    let key = unique_key("brute-force");
    let mut last = 0;
    for _ in 0..FAILURE_LOG_CAP + 10 {
        last = limiter.record_failure(&key, MINUTE).await;
    }
    assert_eq!(last, FAILURE_LOG_CAP);
    assert_eq!(limiter.failures(&key, MINUTE).await, FAILURE_LOG_CAP);
}

async fn redis_instances_share_their_counts() {
    // Two limiters, as two `serve` processes would have.
    let (first, second) = (redis().await, redis().await);
    let key = unique_key("shared");
    for _ in 0..5 {
        assert!(first.hit(&key, 10, MINUTE).await.allowed);
        assert!(second.hit(&key, 10, MINUTE).await.allowed);
    }
    for limiter in [&first, &second] {
        let refused = limiter.hit(&key, 10, MINUTE).await;
        assert!(!refused.allowed && refused.remaining == 0, "{refused:?}");
    }

    assert_eq!(first.record_failure(&key, MINUTE).await, 1);
    assert_eq!(second.record_failure(&key, MINUTE).await, 2);
    assert_eq!(first.failures(&key, MINUTE).await, 2);
    second.clear_failures(&key).await;
    assert_eq!(first.failures(&key, MINUTE).await, 0);
}

async fn redis_keys_are_prefixed_and_expire_with_their_window() {
    let limiter = redis().await;
    let key = unique_key("ttl");
    limiter.hit(&key, 5, Duration::from_secs(30)).await;
    limiter.record_failure(&key, Duration::from_secs(90)).await;

    let client = redis::Client::open(switchboard_testing::redis_url()).expect("a Redis URL");
    let mut connection = client
        .get_multiplexed_async_connection()
        .await
        .expect("Redis answers");
    for (redis_key, window_ms) in [
        (format!("switchboard:rl:{key}"), 30_000),
        (format!("switchboard:fail:{key}"), 90_000),
    ] {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&redis_key)
            .query_async(&mut connection)
            .await
            .expect("PTTL");
        assert!(
            (window_ms - 5_000..=window_ms).contains(&ttl),
            "{redis_key}: {ttl} ms"
        );
    }
}

async fn redis_unreachable_at_start_is_an_error() {
    let closed = closed_port().await;
    let error = Limiter::redis(&format!("redis://127.0.0.1:{closed}"))
        .await
        .expect_err("nothing listens there");
    assert!(matches!(error, LimitError::Unreachable(_)), "{error:?}");

    let error = Limiter::redis("not a url")
        .await
        .expect_err("not a Redis URL");
    assert!(matches!(error, LimitError::InvalidUrl(_)), "{error:?}");
}

/// Redis going away while serving: requests are let through (quickly), failures read as
/// none, and counting resumes once Redis is back.
async fn redis_failing_at_run_time_fails_open_then_recovers() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let proxy = forward_to_redis(listener);
    let limiter = Limiter::redis(&format!("redis://127.0.0.1:{port}"))
        .await
        .expect("Redis through the proxy");
    let key = unique_key("outage");
    assert_eq!(limiter.hit(&key, 5, MINUTE).await.remaining, 4);
    limiter.record_failure(&key, MINUTE).await;
    // Failing open is counted for the alert (/metrics renders this recorder).
    let metrics = switchboard_api::metrics::install();
    let failed_open = || {
        metrics
            .render()
            .lines()
            .find_map(|l| l.strip_prefix("switchboard_rate_limit_fail_open_total "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .expect("the fail-open counter is there from the start")
    };
    let before = failed_open();

    // The outage: the proxy stops listening and drops its connections.
    proxy.abort();
    let _ = proxy.await;
    let started = Instant::now();
    let decision = limiter.hit(&key, 5, MINUTE).await;
    assert_eq!(
        decision,
        Decision {
            allowed: true,
            limit: 5,
            remaining: 5,
            reset_after_secs: 60
        }
    );
    assert_eq!(limiter.failures(&key, MINUTE).await, 0);
    assert_eq!(limiter.record_failure(&key, MINUTE).await, 0);
    limiter.clear_failures(&key).await;
    assert!(
        failed_open() >= before + 4.0,
        "each call let through without Redis is counted"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // Redis back on the same address: the connection manager reconnects.
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("rebind");
    let proxy = forward_to_redis(listener);
    let deadline = Instant::now() + Duration::from_secs(10);
    let decision = loop {
        let decision = limiter.hit(&key, 5, MINUTE).await;
        if decision.remaining != 5 || Instant::now() > deadline {
            break decision;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // The hit before the outage still counts; the ones let through during it do not.
    assert!(decision.allowed && decision.remaining == 3, "{decision:?}");
    assert_eq!(limiter.failures(&key, MINUTE).await, 1);
    proxy.abort();
}

async fn local_memory_stays_bounded() {
    let limiter = Limiter::local_with_max_keys(10);

    // Short-lived keys fill the map, then expire; a new key sweeps them all out.
    for i in 0..10 {
        limiter
            .hit(&format!("brief-{i}"), 1, Duration::from_millis(100))
            .await;
    }
    assert!(
        format!("{limiter:?}").contains("hit_keys: 10"),
        "{limiter:?}"
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    limiter.hit("lasting-0", 1, MINUTE).await;
    assert!(
        format!("{limiter:?}").contains("hit_keys: 1,"),
        "{limiter:?}"
    );

    // Live keys beyond the cap: the one closest to expiry is forgotten.
    for i in 1..10 {
        limiter.hit(&format!("lasting-{i}"), 1, MINUTE).await;
    }
    assert!(!limiter.hit("lasting-0", 1, MINUTE).await.allowed);
    assert!(limiter.hit("lasting-10", 1, MINUTE).await.allowed);
    assert!(
        format!("{limiter:?}").contains("hit_keys: 10,"),
        "{limiter:?}"
    );
    assert!(limiter.hit("lasting-0", 1, MINUTE).await.allowed);
    assert!(!limiter.hit("lasting-9", 1, MINUTE).await.allowed);

    // The same bound holds for failures, and keys never appear in Debug output.
    for i in 0..25 {
        limiter
            .record_failure(&format!("account-{i}"), MINUTE)
            .await;
    }
    let debug = format!("{limiter:?}");
    assert!(debug.contains("failure_keys: "), "{debug}");
    assert!(
        !debug.contains("account-") && !debug.contains("lasting-"),
        "{debug}"
    );
    let failure_keys: usize = debug
        .split("failure_keys: ")
        .nth(1)
        .and_then(|rest| rest.trim_end_matches([' ', '}', ')']).parse().ok())
        .expect("a count");
    assert!(failure_keys <= 10, "{debug}");
}

/// A TCP proxy to Redis, so that a test can take "Redis" away and bring it back. Aborting
/// the task closes the listener and every connection.
fn forward_to_redis(listener: TcpListener) -> JoinHandle<()> {
    let redis = redis_address();
    tokio::spawn(async move {
        let mut connections = JoinSet::new();
        while let Ok((inbound, _)) = listener.accept().await {
            let redis = redis.clone();
            connections.spawn(async move {
                if let Ok(outbound) = TcpStream::connect(redis).await {
                    // Either side closing ends both.
                    tokio::select! {
                        () = pump(&inbound, &outbound) => {}
                        () = pump(&outbound, &inbound) => {}
                    }
                }
            });
        }
    })
}

/// Copies bytes from one socket to the other until either fails or closes. (By hand: the
/// workspace does not ask tokio for its `io-util` copy helpers.)
async fn pump(from: &TcpStream, to: &TcpStream) {
    let mut buffer = [0; 16 * 1024];
    loop {
        if from.readable().await.is_err() {
            return;
        }
        let read = match from.try_read(&mut buffer) {
            Ok(0) => return,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
            Err(_) => return,
        };
        let mut sent = 0;
        while sent < read {
            if to.writable().await.is_err() {
                return;
            }
            match to.try_write(&buffer[sent..read]) {
                Ok(written) => sent += written,
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    }
}

/// A local port nothing listens on.
async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    listener.local_addr().expect("address").port()
}
