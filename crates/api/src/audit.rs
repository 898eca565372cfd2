//! Recording to the audit trail from handlers (login events), and the middleware that
//! gives every request its acting context, so that the store audits each change in the
//! change's own transaction (`switchboard_db::audit`). A failure to record a login event
//! is logged, not answered: the action it describes has already happened.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use switchboard_db::audit::NewEntry;

use crate::state::AppState;

/// Records `entry`.
pub async fn record(state: &AppState, entry: NewEntry) {
    let action = entry.action;
    if let Err(error) = switchboard_db::audit::record(&state.db, entry).await {
        tracing::error!(%error, action, "could not record an audit entry");
    }
}

/// Now, in Unix seconds.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Runs the request inside its acting context (the client address now; the user once
/// the `Caller` extractor has authenticated it).
pub async fn acting(request: Request, next: Next) -> Response {
    let address = crate::client::address(request.extensions());
    switchboard_db::audit::acting(address, next.run(request)).await
}
