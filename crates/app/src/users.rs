//! Accounts. Nobody grants a role or a permission beyond its own, and every account is
//! placed where its role says: a partner for partner admins, a tenant (and its partner)
//! for tenant roles, a branch for branch admins.

use switchboard_db::users::{self, UserWrite};
use switchboard_db::{extensions, tenants};
use switchboard_domain::ids::{BranchId, ExtensionId, PartnerId, TenantId, UserId};
use switchboard_domain::records::user::{CreateUser, UpdateUser, User, UserAccount};
use switchboard_domain::validation::FromBody;
use switchboard_domain::{Location, Permission, Principal, Problems, Role, Scope};

use crate::{Error, Result, Services, tenancy};

/// Refuses roles above the caller's own.
fn check_role(caller: &Principal, role: Role) -> Result<()> {
    if caller.role.may_manage(role) {
        Ok(())
    } else {
        Err(Error::Forbidden(
            "you may not manage accounts of this role".into(),
        ))
    }
}

/// Refuses managing an account that holds permissions the caller does not: resetting its
/// password would hand them over.
fn check_target(caller: &Principal, target: &User) -> Result<()> {
    let holds_more = target
        .principal()
        .is_some_and(|t| t.permissions.iter().any(|p| !caller.can(*p)));
    if holds_more {
        Err(Error::Forbidden(
            "this account holds permissions you do not".into(),
        ))
    } else {
        Ok(())
    }
}

/// Refuses permissions the caller does not hold itself.
fn check_grants(caller: &Principal, granted: Option<&Vec<String>>) -> Result<()> {
    let beyond = granted
        .into_iter()
        .flatten()
        .filter_map(|name| Permission::from_name(name))
        .any(|p| !caller.can(p));
    if beyond {
        Err(Error::Forbidden(
            "you may not grant permissions you do not hold".into(),
        ))
    } else {
        Ok(())
    }
}

/// Where a new account sits, as [`check_new_account`] found it.
#[derive(Debug)]
pub struct Placement {
    partner: Option<PartnerId>,
    tenant: Option<TenantId>,
    branch: Option<BranchId>,
}

/// Where an account of `role` sits, from the body's `account`: a rule it breaks is added
/// to `problems` (the placement then stands for nothing), a scope it leaves is a 403.
async fn place(
    services: &impl Services,
    caller: &Principal,
    role: Role,
    account: &UserAccount,
    problems: &mut Problems,
) -> Result<Placement> {
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
                    match switchboard_db::partners::get(services.db(), &Scope::Platform, p).await {
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
                _ => return Err(Error::outside_scope("partnerId")),
            };
            Ok(Placement {
                partner: Some(partner),
                tenant: None,
                branch: None,
            })
        }
        Role::TenantAdmin | Role::BranchAdmin | Role::User => {
            let tenant = tenancy::tenant_for_write(services, caller, account.tenant_id).await?;
            let partner = tenants::get(services.db(), &Scope::Platform, tenant)
                .await?
                .partner_id;
            let requested = account.branch_id.flatten();
            let branch =
                tenancy::branch_for_write(services, caller, tenant, requested, problems).await?;
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
    services: &impl Services,
    caller: &Principal,
    tenant: Option<TenantId>,
    ext: Option<ExtensionId>,
    problems: &mut Problems,
) -> Result<()> {
    let Some(ext) = ext else { return Ok(()) };
    let of_tenant = match tenant {
        Some(t) => extensions::of_tenant(services.db(), t, ext).await?,
        None => false,
    };
    let reached = of_tenant
        && (caller.scope.own_branch().is_none()
            || extensions::get(services.db(), &caller.scope, ext)
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

/// Creates an account on behalf of `caller`, with every rule of the create operation.
pub async fn create_account(
    services: &impl Services,
    caller: &Principal,
    body: CreateUser,
) -> Result<User> {
    let mut problems = Problems::new();
    let placement = check_new_account(services, caller, &body.account, &mut problems).await?;
    Error::answer(problems)?;
    write_account(services, body, placement).await
}

/// The rules of a new account beyond its own fields: a role and permissions the caller
/// may grant (403 otherwise), its placement and its extension (added to `problems`).
pub async fn check_new_account(
    services: &impl Services,
    caller: &Principal,
    account: &UserAccount,
    problems: &mut Problems,
) -> Result<Placement> {
    let role = new_role(account);
    check_role(caller, role)?;
    check_grants(caller, account.permissions.as_ref())?;
    let placement = place(services, caller, role, account, problems).await?;
    let ext = account.ext_id.flatten();
    check_extension(services, caller, placement.tenant, ext, problems).await?;
    Ok(placement)
}

/// The role a new account takes: the one sent, a user otherwise.
fn new_role(account: &UserAccount) -> Role {
    account
        .user_role
        .and_then(Role::from_number)
        .unwrap_or(Role::User)
}

/// Writes a checked new account placed at `placement` (from [`check_new_account`]).
pub async fn write_account(
    services: &impl Services,
    CreateUser { account, settings }: CreateUser,
    placement: Placement,
) -> Result<User> {
    let role = new_role(&account);
    let ext = account.ext_id.flatten();
    let password_hash = match account.password {
        Some(password) => Some(services.hash_password(password).await?),
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
    Ok(users::create(services.db(), write).await?)
}

/// Tenant-level roles, between which an account may move.
fn tenant_level(role: Role) -> bool {
    role >= Role::TenantAdmin
}

/// The account a change is about, read in the caller's scope, with its role.
#[derive(Debug)]
pub struct Target {
    user: User,
    role: Role,
}

/// The account `id` as `caller` sees it, to change.
pub async fn target(services: &impl Services, caller: &Principal, id: UserId) -> Result<Target> {
    let user = users::get(services.db(), &caller.scope, id).await?;
    let role = user
        .role()
        .ok_or_else(|| Error::internal("stored role out of range"))?;
    Ok(Target { user, role })
}

/// What [`check_change`] decided: the new role, when it changes, and the branch to write.
#[derive(Debug, Default)]
pub struct Change {
    role: Option<Role>,
    branch: Option<Option<BranchId>>,
}

/// The rules of a change of account `target` beyond the body's own fields: what the
/// caller may change (403 otherwise), and the role, placement and extension it asks for
/// (added to `problems`). Callers change their own settings, e-mail and password, never
/// their own role, permissions or placement.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    target: &Target,
    account: &UserAccount,
    problems: &mut Problems,
) -> Result<Change> {
    let Target {
        user: target,
        role: current_role,
    } = target;
    let current_role = *current_role;
    let id = target.id;
    let placement_changes = account.user_role.is_some()
        || account.permissions.is_some()
        || account.branch_id.is_some()
        || account.ext_id.is_some()
        || account.disabled.is_some();
    if id == caller.user_id {
        if placement_changes {
            return Err(Error::Forbidden(
                "you may not change your own role, permissions, branch, extension or disabled state".into(),
            ));
        }
        // Changing one's own credentials needs the current password: that is
        // PATCH /v2/users/me/password, not an admin edit.
        if account.password.is_some() || account.email.is_some() {
            return Err(Error::Forbidden(
                "change your own password with PATCH /v2/users/me/password; your e-mail only through another admin".into(),
            ));
        }
    } else {
        check_role(caller, current_role)?;
        check_target(caller, target)?;
    }
    let tenant = target.tenant_id.get();
    if account.tenant_id.is_some_and(|t| Some(t) != tenant) {
        problems.add(Location::Body, "tenantId", "cannot be changed");
    }
    if account
        .partner_id
        .is_some_and(|p| Some(p) != target.partner_id.get())
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
            Some(t) => {
                Some(tenancy::branch_for_write(services, caller, t, Some(b), problems).await?)
            }
            None => {
                problems.add(
                    Location::Body,
                    "branchId",
                    "applies to tenant accounts only",
                );
                None
            }
        },
        Some(None) => {
            tenancy::check_leaving_branch(caller)?;
            Some(None)
        }
        None => None,
    };
    let final_branch = branch.unwrap_or(target.branch_id.get());
    if role.unwrap_or(current_role) == Role::BranchAdmin && final_branch.is_none() {
        problems.add(Location::Body, "branchId", "is required for branch admins");
    }
    if let Some(ext) = account.ext_id {
        check_extension(services, caller, tenant, ext, problems).await?;
    }
    Ok(Change { role, branch })
}

/// Writes a checked change (from [`check_change`]) of account `id`; fields not sent stay
/// unchanged. A new password or a disabled account ends every session of the account at
/// once, in the same transaction as the change, and that is audited as coming from
/// `address`.
pub async fn write_change(
    services: &impl Services,
    caller: &Principal,
    id: UserId,
    UpdateUser { account, settings }: UpdateUser,
    change: Change,
    address: String,
) -> Result<User> {
    let password_hash = match account.password {
        Some(password) => Some(services.hash_password(password).await?),
        None => None,
    };
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
        role: change.role.map(Role::number),
        partner_id: None,
        tenant_id: None,
        branch_id: change.branch,
        ext_id: account.ext_id,
        extra_permissions: account.permissions,
        settings,
    };
    let (updated, revoked) = users::update_ending_sessions(
        services.db(),
        &caller.scope,
        id,
        write,
        end_sessions,
        chrono::Utc::now().timestamp(),
    )
    .await?;
    if end_sessions.is_some() {
        record_sessions_ended(services, caller.user_id, &updated, revoked, address).await;
    }
    Ok(updated)
}

/// Audits the end of an account's sessions that a password change or a disabling made,
/// naming who (`by`) did it and how many sessions ended. A failure to record is logged,
/// not answered: the change has happened.
async fn record_sessions_ended(
    services: &impl Services,
    by: UserId,
    updated: &User,
    revoked: u64,
    address: String,
) {
    let disabled = updated.disabled == 1;
    let entry = switchboard_db::audit::NewEntry {
        action: if disabled {
            "user.disable"
        } else {
            "password.reset"
        },
        entity: if disabled { "user" } else { "password" },
        entity_id: Some(updated.id.to_string()),
        tenant_id: updated.tenant_id.get(),
        user_id: Some(by),
        user_email: updated.email.clone(),
        client_address: address,
        details: serde_json::json!({"by": by.get(), "sessionsRevoked": revoked}),
    };
    let action = entry.action;
    if let Err(error) = switchboard_db::audit::record(services.db(), entry).await {
        tracing::error!(%error, action, "could not record an audit entry");
    }
}

/// Gives the account `id` a new password on behalf of `caller` (the command line's
/// `user reset-password`, for an operator locked out of every admin account): the
/// password rule checked, every session of the account ended and the reset audited, as
/// an admin's `PATCH /v2/admin/users/{id}` does.
pub async fn reset_password(
    services: &impl Services,
    caller: &Principal,
    id: UserId,
    password: String,
    address: String,
) -> Result<User> {
    let body = UpdateUser::from_body(&serde_json::json!({ "password": password }))
        .map_err(Error::Invalid)?;
    let password_hash = match body.account.password {
        Some(password) => services.hash_password(password).await?,
        None => return Err(Error::internal("a checked password went missing")),
    };
    let write = UserWrite {
        password_hash: Some(password_hash),
        ..UserWrite::default()
    };
    let (updated, revoked) = users::update_ending_sessions(
        services.db(),
        &caller.scope,
        id,
        write,
        Some("password changed"),
        chrono::Utc::now().timestamp(),
    )
    .await?;
    record_sessions_ended(services, caller.user_id, &updated, revoked, address).await;
    Ok(updated)
}

/// Deletes account `id`, never the caller's own nor one it may not manage.
pub async fn delete_account(
    services: &impl Services,
    caller: &Principal,
    id: UserId,
) -> Result<User> {
    let target = users::get(services.db(), &caller.scope, id).await?;
    if id == caller.user_id {
        return Err(Error::Conflict("you cannot delete your own account".into()));
    }
    check_target(caller, &target)?;
    check_role(
        caller,
        target
            .role()
            .ok_or_else(|| Error::internal("stored role out of range"))?,
    )?;
    Ok(users::delete(services.db(), &caller.scope, id).await?)
}
