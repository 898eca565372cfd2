//! Probes for orchestrators: `/healthz` (the process answers) and `/readyz` (the database
//! answers too).

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

/// The process is up and its database answers (503 at once while the database is known
/// to be down).
#[utoipa::path(get, path = "/readyz", tag = "operations", security(()),
    responses(
        (status = 200, description = "Ready to serve", body = Health),
        (status = 503, description = "The database does not answer", body = Health),
    ))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    if state.db.ping().await {
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
