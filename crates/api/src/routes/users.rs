//! `/v2/admin/users`: accounts. Nobody grants a role or a permission beyond its own, and
//! every account is placed where its role says: a partner for partner admins, a tenant
//! (and its partner) for tenant roles, a branch for branch admins.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::users::{self, UserWrite};
use switchboard_db::{extensions, tenants};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
use switchboard_domain::list::Page;
use switchboard_domain::records::user::{CreateUser, UpdateUser, User, UserAccount};
use switchboard_domain::validation::FromBody;
use switchboard_domain::{Location, Permission, Principal, Problems, Role, Scope};

use crate::auth::caller::{Caller, UsersRead, UsersWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

/// Lists the users in the caller's scope.
#[utoipa::path(get, operation_id = "listUsers", path = "/v2/admin/users/", tag = "users",
    params(ListParams<User>),
    responses((status = 200, description = "A page of users", body = Page<User>)))]
pub async fn list(
    caller: Caller<UsersRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<User>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = users::list(&state.db, &caller.scope, &filter, &query).await?;
    let viewer = caller.user_id;
    Ok(listing::respond(listing, move |user: User| {
        user.shown_to(viewer)
    }))
}

/// Refuses roles above the caller's own.
fn check_role(caller: &Principal, role: Role) -> ApiResult<()> {
    if caller.role.may_manage(role) {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            "you may not manage accounts of this role",
        ))
    }
}

/// Refuses managing an account that holds permissions the caller does not: resetting its
/// password would hand them over.
fn check_target(caller: &Principal, target: &User) -> ApiResult<()> {
    let holds_more = target
        .principal()
        .is_some_and(|t| t.permissions.iter().any(|p| !caller.can(*p)));
    if holds_more {
        Err(ApiError::forbidden(
            "this account holds permissions you do not",
        ))
    } else {
        Ok(())
    }
}

/// Refuses permissions the caller does not hold itself.
fn check_grants(caller: &Principal, granted: Option<&Vec<String>>) -> ApiResult<()> {
    let beyond = granted
        .into_iter()
        .flatten()
        .filter_map(|name| Permission::from_name(name))
        .any(|p| !caller.can(p));
    if beyond {
        Err(ApiError::forbidden(
            "you may not grant permissions you do not hold",
        ))
    } else {
        Ok(())
    }
}

/// Where an account sits.
struct Placement {
    partner: Option<PartnerId>,
    tenant: Option<TenantId>,
    branch: Option<BranchId>,
}

/// Where an account of `role` sits, from the body's `account`: a rule it breaks is added
/// to `problems` (the placement then stands for nothing), a scope it leaves is a 403.
async fn place(
    state: &AppState,
    caller: &Principal,
    role: Role,
    account: &UserAccount,
    problems: &mut Problems,
) -> ApiResult<Placement> {
    match role {
        Role::PlatformAdmin => Ok(Placement {
            partner: None,
            tenant: None,
            branch: None,
        }),
        Role::PartnerAdmin => {
            let partner = match (caller.scope, account.partner_id) {
                (Scope::Partner(own), None) => own,
                (Scope::Partner(own), Some(p)) if p == own => own,
                (Scope::Platform, Some(p)) => {
                    match switchboard_db::partners::get(&state.db, &Scope::Platform, p).await {
                        Ok(_) => {}
                        Err(switchboard_db::Error::NotFound) => problems.add(
                            Location::Body,
                            "partnerId",
                            "must name an existing partner",
                        ),
                        Err(other) => return Err(other.into()),
                    }
                    p
                }
                (Scope::Platform, None) => {
                    problems.add(Location::Body, "partnerId", "is required");
                    PartnerId(0)
                }
                _ => return Err(ApiError::forbidden("partnerId is outside your scope")),
            };
            Ok(Placement {
                partner: Some(partner),
                tenant: None,
                branch: None,
            })
        }
        Role::TenantAdmin | Role::BranchAdmin | Role::User => {
            let tenant = tenancy::tenant_for_write(state, caller, account.tenant_id).await?;
            let partner = tenants::get(&state.db, &Scope::Platform, tenant)
                .await?
                .partner_id;
            let requested = account.branch_id.flatten();
            let branch =
                tenancy::branch_for_write(state, caller, tenant, requested, problems).await?;
            if role == Role::BranchAdmin && branch.is_none() {
                problems.add(Location::Body, "branchId", "is required for branch admins");
            }
            Ok(Placement {
                partner: Some(partner),
                tenant: Some(tenant),
                branch,
            })
        }
    }
}

/// Checks the account's extension is one of its tenant's that the caller reaches (a
/// branch admin hands out only its own branch's extensions).
async fn check_extension(
    state: &AppState,
    caller: &Principal,
    tenant: Option<TenantId>,
    ext: Option<ExtensionId>,
    problems: &mut Problems,
) -> ApiResult<()> {
    let Some(ext) = ext else { return Ok(()) };
    let of_tenant = match tenant {
        Some(t) => extensions::of_tenant(&state.db, t, ext).await?,
        None => false,
    };
    let reached = of_tenant
        && (caller.scope.own_branch().is_none()
            || switchboard_db::extensions::get(&state.db, &caller.scope, ext)
                .await
                .is_ok());
    if !reached {
        problems.add(
            Location::Body,
            "extId",
            "must name an extension of the user's tenant",
        );
    }
    Ok(())
}

/// Creates an account.
#[utoipa::path(post, operation_id = "createUser", path = "/v2/admin/users/", tag = "users",
    request_body = CreateUser,
    responses((status = 200, description = "The new user", body = User)))]
pub async fn create(
    caller: Caller<UsersWrite>,
    State(state): State<AppState>,
    body: Checked<CreateUser>,
) -> ApiResult<Json<User>> {
    let mut placement = None;
    let body = body
        .check(async |body, problems| {
            placement = Some(check_new_account(&state, &caller, &body.account, problems).await?);
            Ok(())
        })
        .await?;
    let placement =
        placement.ok_or_else(|| ApiError::internal("a checked account has a placement"))?;
    Ok(Json(
        write_account(&state, body, placement)
            .await?
            .shown_to(caller.user_id),
    ))
}

/// Creates an account on behalf of `caller`, with every rule of the create operation; the
/// command line uses it too.
pub async fn create_account(
    state: &AppState,
    caller: &Principal,
    body: CreateUser,
) -> ApiResult<User> {
    let mut problems = Problems::new();
    let placement = check_new_account(state, caller, &body.account, &mut problems).await?;
    tenancy::answer(problems)?;
    write_account(state, body, placement).await
}

/// The rules of a new account beyond its own fields: a role and permissions the caller
/// may grant (403 otherwise), its placement and its extension (added to `problems`).
async fn check_new_account(
    state: &AppState,
    caller: &Principal,
    account: &UserAccount,
    problems: &mut Problems,
) -> ApiResult<Placement> {
    let role = new_role(account);
    check_role(caller, role)?;
    check_grants(caller, account.permissions.as_ref())?;
    let placement = place(state, caller, role, account, problems).await?;
    let ext = account.ext_id.flatten();
    check_extension(state, caller, placement.tenant, ext, problems).await?;
    Ok(placement)
}

/// The role a new account takes: the one sent, a user otherwise.
fn new_role(account: &UserAccount) -> Role {
    account
        .user_role
        .and_then(Role::from_number)
        .unwrap_or(Role::User)
}

/// Writes a checked new account placed at `placement`.
async fn write_account(
    state: &AppState,
    CreateUser { account, settings }: CreateUser,
    placement: Placement,
) -> ApiResult<User> {
    let role = new_role(&account);
    let ext = account.ext_id.flatten();
    let password_hash = match account.password {
        Some(password) => Some(state.passwords.hash(password).await?),
        None => None,
    };
    let write = UserWrite {
        email: account.email,
        password_hash,
        role: Some(role.number()),
        partner_id: Some(placement.partner),
        tenant_id: Some(placement.tenant),
        branch_id: Some(placement.branch),
        ext_id: Some(ext),
        extra_permissions: account.permissions,
        disabled: account.disabled,
        settings,
    };
    Ok(users::create(&state.db, write).await?)
}

/// One user.
#[utoipa::path(get, operation_id = "getUser", path = "/v2/admin/users/{id}", tag = "users",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "User id")),
    responses((status = 200, description = "The user", body = User)))]
pub async fn get(
    caller: Caller<UsersRead>,
    State(state): State<AppState>,
    PathId(id): PathId<UserId>,
) -> ApiResult<Json<User>> {
    Ok(Json(
        users::get(&state.db, &caller.scope, id)
            .await?
            .shown_to(caller.user_id),
    ))
}

/// Tenant-level roles, between which an account may move.
fn tenant_level(role: Role) -> bool {
    role >= Role::TenantAdmin
}

/// Changes an account; fields not sent stay unchanged. Callers change their own settings,
/// e-mail and password, never their own role, permissions or placement.
#[utoipa::path(patch, operation_id = "updateUser", path = "/v2/admin/users/{id}", tag = "users",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "User id")),
    request_body = UpdateUser,
    responses((status = 200, description = "The changed user", body = User)))]
pub async fn update(
    caller: Caller<UsersWrite>,
    State(state): State<AppState>,
    crate::client::ClientAddress(address): crate::client::ClientAddress,
    PathId(id): PathId<UserId>,
    body: Checked<UpdateUser>,
) -> ApiResult<Json<User>> {
    let target = users::get(&state.db, &caller.scope, id).await?;
    let current_role = target
        .role()
        .ok_or_else(|| ApiError::internal("stored role out of range"))?;
    let (mut role, mut branch) = (None, None);
    let UpdateUser { account, settings } = body
        .check(async |body, problems| {
            let account = &body.account;
            (role, branch) =
                check_change(&state, &caller, (&target, current_role), account, problems).await?;
            Ok(())
        })
        .await?;
    let password_hash = match account.password {
        Some(password) => Some(state.passwords.hash(password).await?),
        None => None,
    };
    // A new password or a disabled account ends every session of the account at once, in
    // the same transaction as the change.
    let end_sessions = if account.disabled == Some(1) {
        Some("account disabled")
    } else if password_hash.is_some() {
        Some("password changed")
    } else {
        None
    };
    let write = UserWrite {
        email: account.email,
        password_hash,
        disabled: account.disabled,
        role: role.map(Role::number),
        partner_id: None,
        tenant_id: None,
        branch_id: branch,
        ext_id: account.ext_id,
        extra_permissions: account.permissions,
        settings,
    };
    let (updated, revoked) = users::update_ending_sessions(
        &state.db,
        &caller.scope,
        id,
        write,
        end_sessions,
        crate::audit::now(),
    )
    .await?;
    if end_sessions.is_some() {
        record_sessions_ended(&state, caller.user_id, &updated, revoked, address).await;
    }
    Ok(Json(updated.shown_to(caller.user_id)))
}

/// Audits the end of an account's sessions that a password change or a disabling made,
/// naming who (`by`) did it and how many sessions ended.
async fn record_sessions_ended(
    state: &AppState,
    by: UserId,
    updated: &User,
    revoked: u64,
    address: String,
) {
    let disabled = updated.disabled == 1;
    crate::audit::record(
        state,
        switchboard_db::audit::NewEntry {
            action: if disabled {
                "user.disable"
            } else {
                "password.reset"
            },
            entity: if disabled { "user" } else { "password" },
            entity_id: Some(updated.id.to_string()),
            tenant_id: (updated.tenant_id > 0).then_some(TenantId(updated.tenant_id)),
            user_id: Some(by),
            user_email: updated.email.clone(),
            client_address: address,
            details: serde_json::json!({"by": by.get(), "sessionsRevoked": revoked}),
        },
    )
    .await;
}

/// Gives the account `id` a new password on behalf of `caller` (the command line's
/// `user reset-password`, for an operator locked out of every admin account): the
/// password rule checked, every session of the account ended and the reset audited, as
/// an admin's `PATCH /v2/admin/users/{id}` does.
pub async fn reset_password(
    state: &AppState,
    caller: &Principal,
    id: UserId,
    password: String,
    address: String,
) -> ApiResult<User> {
    let body = UpdateUser::from_body(&serde_json::json!({ "password": password }))
        .map_err(ApiError::validation)?;
    let password_hash = match body.account.password {
        Some(password) => state.passwords.hash(password).await?,
        None => return Err(ApiError::internal("a checked password went missing")),
    };
    let write = UserWrite {
        password_hash: Some(password_hash),
        ..UserWrite::default()
    };
    let (updated, revoked) = users::update_ending_sessions(
        &state.db,
        &caller.scope,
        id,
        write,
        Some("password changed"),
        crate::audit::now(),
    )
    .await?;
    record_sessions_ended(state, caller.user_id, &updated, revoked, address).await;
    Ok(updated)
}

/// The rules of a change of account `target` (of `current_role`) beyond the body's own
/// fields: what the caller may change (403 otherwise), and the role, placement and
/// extension it asks for (added to `problems`). Answers the new role, when it changes,
/// and the branch to write.
async fn check_change(
    state: &AppState,
    caller: &Principal,
    (target, current_role): (&User, Role),
    account: &UserAccount,
    problems: &mut Problems,
) -> ApiResult<(Option<Role>, Option<Option<BranchId>>)> {
    let id = UserId(target.id);
    let placement_changes = account.user_role.is_some()
        || account.permissions.is_some()
        || account.branch_id.is_some()
        || account.ext_id.is_some()
        || account.disabled.is_some();
    if id == caller.user_id {
        if placement_changes {
            return Err(ApiError::forbidden(
                "you may not change your own role, permissions, branch, extension or disabled state",
            ));
        }
        // Changing one's own credentials needs the current password: that is
        // PATCH /v2/users/me/password, not an admin edit.
        if account.password.is_some() || account.email.is_some() {
            return Err(ApiError::forbidden(
                "change your own password with PATCH /v2/users/me/password; your e-mail only through another admin",
            ));
        }
    } else {
        check_role(caller, current_role)?;
        check_target(caller, target)?;
    }
    let tenant = (target.tenant_id > 0).then_some(TenantId(target.tenant_id));
    if account.tenant_id.is_some_and(|t| Some(t) != tenant) {
        problems.add(Location::Body, "tenantId", "cannot be changed");
    }
    if account
        .partner_id
        .is_some_and(|p| p.get() != target.partner_id)
    {
        problems.add(Location::Body, "partnerId", "cannot be changed");
    }
    let role = match account.user_role.and_then(Role::from_number) {
        Some(role) if role != current_role => {
            check_role(caller, role)?;
            if !(tenant_level(role) && tenant_level(current_role)) {
                problems.add(
                    Location::Body,
                    "userRole",
                    "can only change between tenant admin, branch admin and user",
                );
            }
            Some(role)
        }
        _ => None,
    };
    check_grants(caller, account.permissions.as_ref())?;
    let branch = match account.branch_id {
        Some(Some(b)) => match tenant {
            Some(t) => Some(tenancy::branch_for_write(state, caller, t, Some(b), problems).await?),
            None => {
                problems.add(
                    Location::Body,
                    "branchId",
                    "applies to tenant accounts only",
                );
                None
            }
        },
        Some(None) if caller.scope.own_branch().is_some() => {
            return Err(ApiError::forbidden("branchId is outside your scope"));
        }
        other => other,
    };
    let final_branch =
        branch.unwrap_or((target.branch_id > 0).then_some(BranchId(target.branch_id)));
    if role.unwrap_or(current_role) == Role::BranchAdmin && final_branch.is_none() {
        problems.add(Location::Body, "branchId", "is required for branch admins");
    }
    if let Some(ext) = account.ext_id {
        check_extension(state, caller, tenant, ext, problems).await?;
    }
    Ok((role, branch))
}

/// Deletes an account other than the caller's own.
#[utoipa::path(delete, operation_id = "deleteUser", path = "/v2/admin/users/{id}", tag = "users",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "User id")),
    responses((status = 200, description = "The deleted user", body = User)))]
pub async fn delete(
    caller: Caller<UsersWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<UserId>,
) -> ApiResult<Json<User>> {
    let target = users::get(&state.db, &caller.scope, id).await?;
    if id == caller.user_id {
        return Err(ApiError::conflict("you cannot delete your own account"));
    }
    check_target(&caller, &target)?;
    check_role(
        &caller,
        target
            .role()
            .ok_or_else(|| ApiError::internal("stored role out of range"))?,
    )?;
    Ok(Json(
        users::delete(&state.db, &caller.scope, id)
            .await?
            .shown_to(caller.user_id),
    ))
}
