//! Metrics in the Prometheus text format (`metrics` + `metrics-exporter-prometheus`),
//! served by `GET /metrics` on a listener of its own (`SWITCHBOARD_METRICS_LISTEN`), never
//! on the public port: request counts and latencies by route template and status, the
//! database pool, the webhook outbox and job queue, login failures and lockouts, and
//! rate-limit refusals. Counters are recorded where things happen; the gauges of queues
//! and the pool are read when scraped.

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
    // the last figure and says so in its own gauge.
    let outbox = switchboard_db::deliveries::pending_count(&state.db).await;
    let jobs = switchboard_db::jobs::count(&state.db, "pending").await;
    let engine =
        switchboard_db::engine_jobs::depth(&state.db, chrono::Utc::now().timestamp()).await;
    let ok = outbox.is_ok() && jobs.is_ok() && engine.is_ok();
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
    handle.run_upkeep();
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle.render(),
    )
        .into_response()
}

/// The engine job queue's depth by kind and state: every known kind and state is set,
/// to 0 when no row was counted, so a queue that empties shows 0 rather than its last
/// figure.
fn engine_job_depths(depths: &[switchboard_db::engine_jobs::Depth]) {
    let kinds: std::collections::BTreeSet<String> = switchboard_domain::records::engine_job::KINDS
        .0
        .iter()
        .map(|k| (*k).to_owned())
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
