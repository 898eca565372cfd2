//! The `/metrics` listener: reads the pool's, the queues' and the backups' figures when
//! scraped, then renders every series [`crate::metrics`] records (kept apart from the
//! recorders, which the error type and the limiters call, so they import no state).

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

use crate::metrics::install;
use crate::state::AppState;

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
