//! Recording to the audit trail from handlers (login events). Every request runs in its
//! acting context (set by [`crate::admission`]), so that the store audits each change in
//! the change's own transaction (`switchboard_db::audit`). A failure to record a login event
//! is logged, not answered: the action it describes has already happened.

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
