//! Probes for orchestrators: `/healthz` (the process answers) and `/readyz` (a database
//! connection can be had in time).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// A probe's answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`, `ready`, `draining` (the process is stopping) or `unavailable`.
    pub status: &'static str,
}

/// The process is up.
#[utoipa::path(get, operation_id = "checkHealth", path = "/healthz", tag = "operations", security(()),
    responses((status = 200, description = "The process answers", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// How long readiness waits for a pooled connection: longer, and a request would wait as
/// long for one.
pub const READY_ACQUIRE_BOUND: std::time::Duration = std::time::Duration::from_secs(1);

/// The process is up, not stopping, and a database connection can be had within a
/// second (503 at once while the database is known to be down or the process drains,
/// and while the pool stays exhausted).
///
/// Readiness is what every request needs, the database. The object store is not asked:
/// only the routes that keep files need it, and they answer 503 of their own when it
/// does not answer, whereas a balancer told "not ready" would take every process out of
/// rotation at once over a store that most requests never touch.
#[utoipa::path(get, operation_id = "checkReadiness", path = "/readyz", tag = "operations", security(()),
    responses(
        (status = 200, description = "Ready to serve", body = Health),
        (status = 503, description = "The process is stopping (`draining`), the database does not answer, or no pooled connection is free within a second", body = Health),
    ))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    if state.draining.is_draining() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health { status: "draining" }),
        );
    }
    let database = state.db.connection_within(READY_ACQUIRE_BOUND).await && state.db.ping().await;
    if database {
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
