//! `/v2/admin/audit-log` (also `/admin/audit-log`, as the release notes write it): the
//! audit trail of the caller's scope.

use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::TenantId;
use switchboard_domain::list::Page;
use switchboard_domain::records::audit::AuditEntry;

use crate::auth::caller::{AuditLogRead, Caller};
use crate::error::ApiResult;
use crate::extract::ListParams;
use crate::listing;
use crate::state::AppState;

async fn list_entries(
    caller: Caller<AuditLogRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<AuditEntry>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    for tenant in filter.tenant_ids.iter().flatten() {
        tenancy::check_tenant_filter(&state, &caller, Some(TenantId(*tenant))).await?;
    }
    let listing =
        switchboard_db::audit::list(&state.db, &caller.scope, caller.user_id, &filter, &query)
            .await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Lists audit entries, newest last unless sorted otherwise.
#[utoipa::path(get, operation_id = "listAuditLog", path = "/v2/admin/audit-log/", tag = "audit-log",
    params(ListParams<AuditEntry>),
    responses((status = 200, description = "A page of audit entries", body = Page<AuditEntry>)))]
pub async fn list(
    caller: Caller<AuditLogRead>,
    State(state): State<AppState>,
    params: ListParams<AuditEntry>,
) -> ApiResult<Response> {
    list_entries(caller, state, params).await
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listAuditLogUnversioned", path = "/admin/audit-log/", tag = "audit-log",
    params(ListParams<AuditEntry>),
    responses((status = 200, description = "A page of audit entries", body = Page<AuditEntry>)))]
pub async fn list_unversioned(
    caller: Caller<AuditLogRead>,
    State(state): State<AppState>,
    params: ListParams<AuditEntry>,
) -> ApiResult<Response> {
    list_entries(caller, state, params).await
}
