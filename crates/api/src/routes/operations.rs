//! Probes for orchestrators: `/healthz` (the process answers) and `/readyz` (a database
//! connection can be had in time, and the object store answers).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// A probe's answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`, `ready` or `unavailable`.
    pub status: &'static str,
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations", security(()),
    responses((status = 200, description = "The process answers", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// How long readiness waits for a pooled connection: longer, and a request would wait as
/// long for one.
pub const READY_ACQUIRE_BOUND: std::time::Duration = std::time::Duration::from_secs(1);

/// The process is up, a database connection can be had within a second (503 at once while
/// the database is known to be down, or while the pool stays exhausted), and the object
/// store answers.
#[utoipa::path(get, path = "/readyz", tag = "operations", security(()),
    responses(
        (status = 200, description = "Ready to serve", body = Health),
        (status = 503, description = "The database or the object store does not answer, or no pooled connection is free within a second", body = Health),
    ))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    let (database, storage) = tokio::join!(
        async { state.db.connection_within(READY_ACQUIRE_BOUND).await && state.db.ping().await },
        tokio::time::timeout(READY_ACQUIRE_BOUND * 2, state.storage.reachable()),
    );
    if database && storage.unwrap_or(false) {
        (StatusCode::OK, Json(Health { status: "ready" }))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "unavailable",
            }),
        )
    }
}
