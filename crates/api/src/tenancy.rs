//! Where a written record lands, decided once for every resource (interface §3): the
//! caller's own tenant when it is bound to one, a `tenantId` it names when it spans
//! several, and 403 for a tenant or branch outside its scope.
//!
//! Return types are spelled `Result<_, ApiError>`, not the `ApiResult` alias: cargo-mutants
//! recognises only the former, and its `Ok(())` mutant (a check that checks nothing) is the
//! one `scripts/mutants.sh` must see caught.

use switchboard_db::{branches, tenants};
use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::{Location, Principal, Problems, Scope};

use crate::error::ApiError;
use crate::state::AppState;

fn outside_scope() -> ApiError {
    ApiError::forbidden("tenantId is outside your scope")
}

/// The tenant a new record belongs to, from the body's `tenantId` (if any).
pub async fn tenant_for_write(
    state: &AppState,
    caller: &Principal,
    requested: Option<TenantId>,
) -> Result<TenantId, ApiError> {
    tenant_named_at(state, caller, requested, Location::Body).await
}

/// The tenant a request concerns, from a `tenantId` given at `location` (the query of
/// a read such as `GET /v2/admin/faxes/retry-policy`, the body of a write): a missing or
/// unknown one is reported where the caller put it, or should have.
pub async fn tenant_named_at(
    state: &AppState,
    caller: &Principal,
    requested: Option<TenantId>,
    location: Location,
) -> Result<TenantId, ApiError> {
    match (caller.scope.own_tenant(), requested) {
        (Some(own), None) => Ok(own),
        (Some(own), Some(t)) if t == own => Ok(own),
        (Some(_), Some(_)) => Err(outside_scope()),
        (None, None) => Err(ApiError::invalid(location, "tenantId", "is required")),
        (None, Some(t)) => {
            if tenants::in_scope(&state.db, &caller.scope, t).await? {
                Ok(t)
            } else if caller.scope == Scope::Platform {
                Err(ApiError::invalid(
                    location,
                    "tenantId",
                    "must name an existing tenant",
                ))
            } else {
                Err(outside_scope())
            }
        }
    }
}

/// Checks a list's `tenantId` filter: naming a tenant outside the scope is a 403.
pub async fn check_tenant_filter(
    state: &AppState,
    caller: &Principal,
    requested: Option<TenantId>,
) -> Result<(), ApiError> {
    let Some(tenant) = requested else {
        return Ok(());
    };
    let allowed = match caller.scope.own_tenant() {
        Some(own) => own == tenant,
        None => {
            caller.scope == Scope::Platform
                || tenants::in_scope(&state.db, &caller.scope, tenant).await?
        }
    };
    if allowed {
        Ok(())
    } else {
        Err(outside_scope())
    }
}

/// The branch of a new or changed branch-bearing record in `tenant`: a branch admin's own
/// (naming another is a 403), otherwise the one named, which must be of the tenant (a
/// problem of `body/branchId` otherwise, added to `problems`).
pub async fn branch_for_write(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    requested: Option<BranchId>,
    problems: &mut Problems,
) -> Result<Option<BranchId>, ApiError> {
    if let Some(own) = caller.scope.own_branch() {
        return match requested {
            None => Ok(Some(own)),
            Some(b) if b == own => Ok(Some(own)),
            Some(_) => Err(ApiError::forbidden("branchId is outside your scope")),
        };
    }
    if let Some(branch) = requested
        && !branches::of_tenant(&state.db, tenant, branch).await?
    {
        problems.add(
            Location::Body,
            "branchId",
            "must name a branch of the tenant",
        );
    }
    Ok(requested)
}

/// The branch of a new record that must have one: [`branch_for_write`]'s, and a problem
/// of `body/branchId` when there is none (once: a caller that had to send one has it
/// reported already by the reader).
pub async fn required_branch(
    state: &AppState,
    caller: &Principal,
    tenant: TenantId,
    requested: Option<BranchId>,
    problems: &mut Problems,
) -> Result<Option<BranchId>, ApiError> {
    let branch = branch_for_write(state, caller, tenant, requested, problems).await?;
    if branch.is_none() && !problems.names(Location::Body, "branchId") {
        problems.add(Location::Body, "branchId", "is required");
    }
    Ok(branch)
}

/// The answer to rules checked into `problems`: none broken, or every one in a 400 —
/// for a caller with nothing else to report beside them.
pub fn answer(problems: Problems) -> Result<(), ApiError> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ApiError::validation(problems))
    }
}

/// Checks that every destination of a list at body `field` names a record of `tenant`,
/// adding one problem per foreign or missing target.
pub async fn check_destinations(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    items: &[DestinationInput],
    problems: &mut Problems,
) -> Result<(), ApiError> {
    let foreign = switchboard_db::destinations::foreign_targets(&state.db, tenant, items).await?;
    for (index, message) in foreign {
        problems.add(Location::Body, &format!("{field}/{index}/id"), message);
    }
    Ok(())
}

/// Checks that the single destination at body `field` (when one is sent) names a record
/// of `tenant`.
pub async fn check_destination(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    item: Option<&DestinationInput>,
    problems: &mut Problems,
) -> Result<(), ApiError> {
    let Some(item) = item else {
        return Ok(());
    };
    let foreign = switchboard_db::destinations::foreign_targets(
        &state.db,
        tenant,
        std::slice::from_ref(item),
    )
    .await?;
    if let Some((_, message)) = foreign.into_iter().next() {
        problems.add(Location::Body, &format!("{field}/id"), message);
    }
    Ok(())
}

/// Checks that announcement `id` (when not 0/absent) belongs to `tenant`.
pub async fn check_announcement(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    id: Option<i64>,
    problems: &mut Problems,
) -> Result<(), ApiError> {
    let id = id.filter(|id| *id > 0);
    check_of_tenant(
        state,
        tenant,
        ("announcements", "an announcement"),
        (field, id),
        problems,
    )
    .await
}

/// Checks that music on hold `id` (when present) belongs to `tenant`. A music on hold
/// deleted after this check and before the write is refused by the write's foreign key.
pub async fn check_music_on_hold(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    id: Option<i64>,
    problems: &mut Problems,
) -> Result<(), ApiError> {
    check_of_tenant(
        state,
        tenant,
        ("music_on_hold", "a music on hold"),
        (field, id),
        problems,
    )
    .await
}

/// Checks that media file `id` (when not 0/absent) belongs to `tenant`.
pub async fn check_media_file(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    id: Option<i64>,
    problems: &mut Problems,
) -> Result<(), ApiError> {
    let id = id.filter(|id| *id > 0);
    check_of_tenant(
        state,
        tenant,
        ("media_files", "a media file"),
        (field, id),
        problems,
    )
    .await
}

/// Checks that record `id` of `table` (when given) belongs to `tenant`, else adds a
/// problem on `field` saying it `must name {what} of the tenant`.
async fn check_of_tenant(
    state: &AppState,
    tenant: TenantId,
    (table, what): (&'static str, &str),
    (field, id): (&str, Option<i64>),
    problems: &mut Problems,
) -> Result<(), ApiError> {
    let Some(id) = id else {
        return Ok(());
    };
    let condition = switchboard_db::scope::of_tenant(tenant);
    if !switchboard_db::crud::exists(&state.db, table, id, condition).await? {
        problems.add(
            Location::Body,
            field,
            format!("must name {what} of the tenant"),
        );
    }
    Ok(())
}

/// Checks that conduit `id` (when given) belongs to `tenant`.
pub async fn check_conduit(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    id: Option<i64>,
    problems: &mut Problems,
) -> Result<(), ApiError> {
    check_of_tenant(
        state,
        tenant,
        ("conduits", "a conduit"),
        (field, id),
        problems,
    )
    .await
}

/// Checks that queue `id` (when given) belongs to `tenant`.
pub async fn check_queue(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    id: Option<i64>,
    problems: &mut Problems,
) -> Result<(), ApiError> {
    check_of_tenant(state, tenant, ("queues", "a queue"), (field, id), problems).await
}

/// Every stored spelling of the phone number `text` as `tenant` writes it: read in the
/// tenant's default country (`phone::spellings`, the one rule of which stored values are
/// the same number), for comparing it with the tenant's lines.
pub async fn number_spellings(
    state: &AppState,
    tenant: TenantId,
    text: &str,
) -> Result<Vec<String>, ApiError> {
    let country = switchboard_db::call_campaigns::tenant_country(&state.db, tenant).await?;
    Ok(switchboard_domain::phone::spellings(text, Some(&country)))
}
