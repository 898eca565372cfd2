//! Metrics in the Prometheus text format (`metrics` + `metrics-exporter-prometheus`),
//! served by `GET /metrics` on a listener of its own (`SWITCHBOARD_METRICS_LISTEN`), never
//! on the public port: request counts and latencies by route template and status, the
//! database pool and circuit, the webhook outbox and job queue, login failures and
//! lockouts, rate-limit refusals and Redis failing open, storage errors, the last
//! backup's age, the build, and the process (`process_*`, read from `/proc/self`).
//! Counters are recorded where things happen; the gauges of queues, the pool, the circuit
//! and the backup are read when scraped.
//!
//! Every series is described (`# HELP`) and exists from the start — a counter at 0 before
//! its first event — so that `rate()` and `absent()` alerts see it (issue 30): the names
//! are declared in one place, [`declare`].

use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;

use crate::paths::RouteTemplate;
use crate::state::AppState;

/// Latency buckets (seconds): from a cached read to the request timeout.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process's recorder, installed the first time metrics are asked for. One per
/// process (the `metrics` facade has one global recorder): several servers in one process
/// (tests) share it. Until it is installed, recording is a no-op, so a deployment without
/// a metrics listener pays nothing.
pub fn install() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &BUCKETS)
                .map(PrometheusBuilder::build_recorder)
                .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("another metrics recorder was installed first");
            }
            declare();
            handle
        })
        .clone()
}

/// Counts and times a request by method, route template (never the raw path: ids would
/// make a series per record; `unmatched` for a path no route serves) and status.
pub fn record_request(
    method: &axum::http::Method,
    route: Option<&RouteTemplate>,
    status: StatusCode,
    elapsed: Duration,
) {
    // Without a recorder (no metrics listener) the series would be dropped anyway: the
    // labels are not even built.
    if HANDLE.get().is_none() {
        return;
    }
    let labels = [
        ("method", method_label(method).to_owned()),
        (
            "route",
            route.map_or_else(|| "unmatched".to_owned(), |r| r.as_str().to_owned()),
        ),
        ("status", status.as_u16().to_string()),
    ];
    metrics::counter!("switchboard_http_requests_total", &labels).increment(1);
    metrics::histogram!("switchboard_http_request_duration_seconds", &labels)
        .record(elapsed.as_secs_f64());
}

/// A method as a label: the standard ones by name, any other `OTHER` (a client may send
/// any token as a method, and each would otherwise make series that are never dropped).
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// The label of [`switchboard_rate_limit_refusals_total`](refused) for the request
/// limits (per client address and per token).
const RATE_LIMIT: &str = "rate_limit";

/// The outcomes of a webhook delivery attempt, as the delivery worker counts them.
const WEBHOOK_OUTCOMES: [&str; 3] = ["delivered", "retry", "failed"];

/// The kinds of storage error counted by [`storage_error`].
const STORAGE_ERRORS: [&str; 2] = ["timeout", "backend"];

/// Describes every series (its `# HELP` line) and creates those that would otherwise
/// appear only with their first event, at 0. Run once, when the recorder is installed.
fn declare() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "switchboard_http_requests_total",
        "Answered requests by method, route template and status."
    );
    describe_histogram!(
        "switchboard_http_request_duration_seconds",
        "Time from a request's arrival to its response head, by method, route template and status."
    );
    describe_gauge!(
        "switchboard_db_pool_connections",
        "Open database connections of the pool."
    );
    describe_gauge!(
        "switchboard_db_pool_idle",
        "Open database connections not checked out."
    );
    describe_gauge!(
        "switchboard_db_pool_waiting",
        "Transactions waiting for a database connection."
    );
    describe_gauge!(
        "switchboard_db_pool_max",
        "The largest the database pool may grow."
    );
    describe_histogram!(
        "switchboard_db_acquire_seconds",
        "Wait for a database connection and BEGIN of a transaction."
    );
    describe_gauge!(
        "switchboard_db_circuit_open",
        "1 while the database is known to be down and requests needing it answer 503 at once, else 0."
    );
    describe_gauge!(
        "switchboard_webhook_outbox_pending",
        "Webhook deliveries not yet delivered or failed."
    );
    describe_counter!(
        "switchboard_webhook_attempts_total",
        "Webhook delivery attempts by what followed (delivered, retry, failed: given up)."
    );
    describe_histogram!(
        "switchboard_webhook_attempt_seconds",
        "Length of one webhook delivery attempt."
    );
    describe_gauge!(
        "switchboard_jobs_pending",
        "Background jobs waiting (object deletes, retention, device configuration)."
    );
    describe_gauge!(
        "switchboard_engine_jobs_pending",
        "The telephony engine's pending jobs by kind and state (due, leased, scheduled)."
    );
    describe_gauge!(
        "switchboard_metrics_queue_read_ok",
        "0 when the last scrape could not read the queue depths or the last backup, else 1."
    );
    describe_counter!(
        "switchboard_login_failures_total",
        "Failed logins (wrong password, unusable account, wrong code)."
    );
    describe_counter!(
        "switchboard_login_lockouts_total",
        "Logins refused because the account or address is locked."
    );
    describe_counter!(
        "switchboard_rate_limit_refusals_total",
        "Requests refused with 429 by the rate limits."
    );
    describe_counter!(
        "switchboard_rate_limit_fail_open_total",
        "Rate-limit checks answered without Redis (it failed or is cooling down): the request was let through unlimited."
    );
    describe_counter!(
        "switchboard_storage_errors_total",
        "Object storage operations of requests that failed, by kind (timeout: no answer in time; backend: the store refused)."
    );
    describe_gauge!(
        "switchboard_backup_last_finished_timestamp_seconds",
        "When the last recorded backup finished (Unix time; 0 before the first)."
    );
    describe_gauge!(
        "switchboard_backup_age_seconds",
        "Seconds since the last recorded backup finished (since 1970 before the first)."
    );
    describe_gauge!(
        "switchboard_build_info",
        "Always 1; the running release in its version label."
    );
    metrics::gauge!("switchboard_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    for counter in [
        "switchboard_login_failures_total",
        "switchboard_login_lockouts_total",
        "switchboard_rate_limit_fail_open_total",
    ] {
        metrics::counter!(counter).increment(0);
    }
    metrics::counter!("switchboard_rate_limit_refusals_total", "limit" => RATE_LIMIT).increment(0);
    for outcome in WEBHOOK_OUTCOMES {
        metrics::counter!("switchboard_webhook_attempts_total", "outcome" => outcome).increment(0);
    }
    for kind in STORAGE_ERRORS {
        metrics::counter!("switchboard_storage_errors_total", "kind" => kind).increment(0);
    }
    // Histograms registered without a sample render with zero counts.
    let _ = metrics::histogram!("switchboard_webhook_attempt_seconds");
    let _ = metrics::histogram!("switchboard_db_acquire_seconds");
    metrics::gauge!("switchboard_db_circuit_open").set(0.0);
}

/// Counts a check of the rate limits answered without Redis (it failed, or is skipped
/// while it cools down): the request went through unlimited.
pub fn rate_limit_failed_open() {
    metrics::counter!("switchboard_rate_limit_fail_open_total").increment(1);
}

/// Counts a request's storage operation that failed: `timed_out` when the store did not
/// answer in time, else the store's refusal.
pub fn storage_error(timed_out: bool) {
    let kind = STORAGE_ERRORS[usize::from(!timed_out)];
    metrics::counter!("switchboard_storage_errors_total", "kind" => kind).increment(1);
}

/// A refused request counted by why (`login_failure`, `lockout`, `rate_limit`).
pub fn refused(what: &'static str) {
    match what {
        "login_failure" => metrics::counter!("switchboard_login_failures_total").increment(1),
        "lockout" => metrics::counter!("switchboard_login_lockouts_total").increment(1),
        other => metrics::counter!("switchboard_rate_limit_refusals_total", "limit" => other)
            .increment(1),
    }
}

/// `GET /metrics`: the gauges read now, then every series.
async fn scrape(State(state): State<AppState>) -> Response {
    let handle = install();
    let pool = state.db.pool_figures();
    metrics::gauge!("switchboard_db_pool_connections").set(f64::from(pool.size));
    metrics::gauge!("switchboard_db_pool_idle").set(f64::from(pool.idle));
    metrics::gauge!("switchboard_db_pool_waiting").set(pool.waiting as f64);
    metrics::gauge!("switchboard_db_pool_max").set(f64::from(pool.max));
    // Queue depths are counts over partial indexes of pending rows; a failed read leaves
    // the last figure and says so in its own gauge (as does the backup record's).
    let outbox = switchboard_db::deliveries::pending_count(&state.db).await;
    let jobs = switchboard_db::jobs::count(&state.db, "pending").await;
    let engine =
        switchboard_db::engine_jobs::depth(&state.db, chrono::Utc::now().timestamp()).await;
    let backup = switchboard_db::backups::last_finished(&state.db).await;
    let ok = outbox.is_ok() && jobs.is_ok() && engine.is_ok() && backup.is_ok();
    // The last backup: 0 (and an age since 1970, which the backup alert fires on) before
    // the first; a failed read leaves the last figures, like the queues'.
    if let Ok(last) = backup {
        let last = last.unwrap_or(0);
        metrics::gauge!("switchboard_backup_last_finished_timestamp_seconds").set(last as f64);
        let age = chrono::Utc::now().timestamp().saturating_sub(last).max(0);
        metrics::gauge!("switchboard_backup_age_seconds").set(age as f64);
    }
    if let Ok(n) = outbox {
        metrics::gauge!("switchboard_webhook_outbox_pending").set(n as f64);
    }
    if let Ok(n) = jobs {
        metrics::gauge!("switchboard_jobs_pending").set(n as f64);
    }
    if let Ok(depths) = engine {
        engine_job_depths(&depths);
    }
    metrics::gauge!("switchboard_metrics_queue_read_ok").set(if ok { 1.0 } else { 0.0 });
    metrics::gauge!("switchboard_db_circuit_open").set(if state.db.circuit_open() {
        1.0
    } else {
        0.0
    });
    handle.run_upkeep();
    let mut page = handle.render();
    crate::process::render(&mut page);
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        page,
    )
        .into_response()
}

/// The engine job queue's depth by kind and state: every known kind and state is set,
/// to 0 when no row was counted, so a queue that empties shows 0 rather than its last
/// figure.
fn engine_job_depths(depths: &[switchboard_db::engine_jobs::Depth]) {
    let kinds: std::collections::BTreeSet<String> =
        switchboard_domain::records::engine_job::EngineJobKind::ALL
            .iter()
            .map(|k| k.as_str().to_owned())
            .chain(depths.iter().map(|d| d.kind.clone()))
            .collect();
    for kind in kinds {
        for state in ENGINE_JOB_STATES {
            let jobs = depths
                .iter()
                .find(|d| d.kind == kind && d.state == state)
                .map_or(0, |d| d.jobs);
            metrics::gauge!("switchboard_engine_jobs_pending", "kind" => kind.clone(), "state" => state)
                .set(jobs as f64);
        }
    }
}

/// The states of a pending engine job, as [`switchboard_db::engine_jobs::depth`] names them.
const ENGINE_JOB_STATES: [&str; 3] = ["due", "leased", "scheduled"];

/// Serves `/metrics` (and nothing else) on `listener` until `stop` is set.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<()> {
    install();
    tracing::info!(address = %listener.local_addr()?, "serving metrics");
    let router = Router::new()
        .route("/metrics", axum::routing::get(scrape))
        .with_state(state);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|stopped| *stopped).await;
        })
        .await
}
