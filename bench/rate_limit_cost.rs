//! What the rate limit costs a request (issue 17: "show it does not cost more than 3% of
//! the hot path"): the service's own rate-limit middleware (`rate_limit::enforce`, the
//! in-process GCRA limiter, the token hashed into its key, the headers it sets) in front
//! of a handler that does nothing, against the same handler without it, driven in process
//! (no sockets, so nothing but the middleware differs). The difference is the limit's
//! cost per request; the script prints it beside the time a hot-path request takes at a
//! given throughput (`--hot-path-rps`, from `bench/hot_path.py`, default the figure in
//! docs/benchmarks.md) on the machine's cores, and the share.
//!
//! Run: `cargo run --release --example rate_limit_cost [-- --hot-path-rps N] [--short]`.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::routing::get;
use tower::ServiceExt;

/// Requests sent through one router per round.
const REQUESTS: u32 = 200_000;
/// Rounds, alternating the two routers; the median of each is kept.
const ROUNDS: usize = 7;

fn request(token: &str) -> Request<Body> {
    let mut request = Request::get("/v2/admin/paging-groups/1")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::empty())
        .unwrap();
    request
        .extensions_mut()
        .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 40_000))));
    request
}

/// Nanoseconds per request through `router`, `requests` times, one after another.
async fn per_request(router: &Router, token: &str, requests: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..requests {
        let response = router.clone().oneshot(request(token)).await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }
    start.elapsed().as_nanos() as f64 / f64::from(requests)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let short = args.iter().any(|a| a == "--short");
    let hot_path_rps: f64 = args
        .iter()
        .position(|a| a == "--hot-path-rps")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse())
        .transpose()?
        // The fastest of the hot path's GETs in docs/benchmarks.md (an extension on
        // SQLite, 2026-11-25): the cheapest request, so the largest share.
        .unwrap_or(16_500.0);
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;

    let dir = tempfile::tempdir()?;
    let config = switchboard::Config {
        data_dir: dir.path().join("data"),
        database_url: Some(format!("sqlite://{}", dir.path().join("db").display())),
        jwt_secret: Some(switchboard::config::Secret(
            "rate-limit-cost-benchmark-signing-key-0123456789".into(),
        )),
        // Limits no request of the run reaches: what is measured is the counting.
        rate_limit_per_minute: u64::MAX / 4,
        rate_limit_per_minute_per_address: u64::MAX / 4,
        ..switchboard::Config::default()
    };
    let state = switchboard::build_state(&config).await?;
    let bare = Router::new().route("/v2/admin/paging-groups/1", get(|| async { "{}" }));
    let limited = bare.clone().layer(axum::middleware::from_fn_with_state(
        state,
        switchboard_api::rate_limit::enforce,
    ));
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLW9mLXRoZS1iZW5jaG1hcmstdG9rZW4";

    let (requests, rounds) = if short {
        (2_000, 1)
    } else {
        (REQUESTS, ROUNDS)
    };
    per_request(&limited, token, requests / 10).await; // warm-up
    per_request(&bare, token, requests / 10).await;
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        with.push(per_request(&limited, token, requests).await);
        without.push(per_request(&bare, token, requests).await);
    }
    let (with, without) = (median(&mut with), median(&mut without));
    let cost = (with - without).max(0.0);
    // At `hot_path_rps` on `cores` cores, a request costs at most this much CPU time.
    let hot_path_ns = Duration::from_secs_f64(cores / hot_path_rps).as_nanos() as f64;
    println!("| measure | value |");
    println!("|---|---|");
    println!("| handler alone | {without:.0} ns/request |");
    println!("| handler behind the rate limit | {with:.0} ns/request |");
    println!("| the rate limit's cost | {cost:.0} ns/request |");
    println!(
        "| a hot-path request at {hot_path_rps:.0} req/s on {cores} cores | {:.0} ns of CPU |",
        hot_path_ns
    );
    let share = 100.0 * cost / hot_path_ns;
    println!("| the rate limit's share of it | {share:.2} % |");
    if short {
        println!("short mode: the figures mean nothing, no verdict");
    } else if share <= 3.0 {
        println!("verdict: PASS (at most 3 %)");
    } else {
        println!("verdict: FAIL (more than 3 %)");
        std::process::exit(1);
    }
    Ok(())
}
