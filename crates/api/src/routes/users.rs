//! `/v2/admin/users`: accounts. Nobody grants a role or a permission beyond its own, and
//! every account is placed where its role says: a partner for partner admins, a tenant
//! (and its partner) for tenant roles, a branch for branch admins.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_app::users as app;
use switchboard_db::users;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::UserId;
use switchboard_domain::list::Page;
use switchboard_domain::records::user::{CreateUser, UpdateUser, User};

use crate::auth::caller::{Caller, UsersRead, UsersWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

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
            let account = &body.account;
            placement = Some(app::check_new_account(&state, &caller, account, problems).await?);
            Ok(())
        })
        .await?;
    let placement =
        placement.ok_or_else(|| ApiError::internal("a checked account has a placement"))?;
    Ok(Json(
        app::write_account(&state, body, placement)
            .await?
            .shown_to(caller.user_id),
    ))
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
    let target = app::target(&state, &caller, id).await?;
    let mut change = app::Change::default();
    let body = body
        .check(async |body, problems| {
            let account = &body.account;
            change = app::check_change(&state, &caller, &target, account, problems).await?;
            Ok(())
        })
        .await?;
    let updated = app::write_change(&state, &caller, id, body, change, address).await?;
    Ok(Json(updated.shown_to(caller.user_id)))
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
    let deleted = app::delete_account(&state, &caller, id).await?;
    Ok(Json(deleted.shown_to(caller.user_id)))
}
