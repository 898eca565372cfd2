//! `/v2/admin/extensions`: the dialable endpoints of a tenant.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::extensions as app;
use switchboard_app::tenancy;
use switchboard_db::extensions;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::ExtensionId;
use switchboard_domain::list::Page;
use switchboard_domain::records::extension::{CreateExtension, Extension, UpdateExtension};

use crate::auth::caller::{Caller, ExtensionsRead, ExtensionsWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the extensions in the caller's scope.
#[utoipa::path(get, operation_id = "listExtensions", path = "/v2/admin/extensions/", tag = "extensions",
    params(ListParams<Extension>),
    responses((status = 200, description = "A page of extensions", body = Page<Extension>)))]
pub async fn list(
    caller: Caller<ExtensionsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Extension>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = extensions::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates an extension; its number must be free in the tenant.
#[utoipa::path(post, operation_id = "createExtension", path = "/v2/admin/extensions/", tag = "extensions",
    request_body = CreateExtension,
    responses((status = 200, description = "The new extension", body = Extension)))]
pub async fn create(
    caller: Caller<ExtensionsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateExtension>,
) -> ApiResult<Json<Extension>> {
    let (body, placement) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(app::write_new(&state, placement, body).await?))
}

/// One extension.
#[utoipa::path(get, operation_id = "getExtension", path = "/v2/admin/extensions/{id}", tag = "extensions",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Extension id")),
    responses((status = 200, description = "The extension", body = Extension)))]
pub async fn get(
    caller: Caller<ExtensionsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<ExtensionId>,
) -> ApiResult<Json<Extension>> {
    Ok(Json(extensions::get(&state.db, &caller.scope, id).await?))
}

/// Changes an extension; fields not sent stay unchanged.
#[utoipa::path(patch, operation_id = "updateExtension", path = "/v2/admin/extensions/{id}", tag = "extensions",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Extension id")),
    request_body = UpdateExtension,
    responses((status = 200, description = "The changed extension", body = Extension)))]
pub async fn update(
    caller: Caller<ExtensionsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<ExtensionId>,
    body: Checked<UpdateExtension>,
) -> ApiResult<Json<Extension>> {
    let current = extensions::get(&state.db, &caller.scope, id).await?;
    let body = body
        .check(async |body, problems| {
            Ok(app::check_change(&state, &caller, &current, body, problems).await?)
        })
        .await?;
    Ok(Json(
        extensions::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Deletes an extension, answering it as it was.
#[utoipa::path(delete, operation_id = "deleteExtension", path = "/v2/admin/extensions/{id}", tag = "extensions",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Extension id")),
    responses((status = 200, description = "The deleted extension", body = Extension)))]
pub async fn delete(
    caller: Caller<ExtensionsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<ExtensionId>,
) -> ApiResult<Json<Extension>> {
    Ok(Json(
        extensions::delete(&state.db, &caller.scope, id).await?,
    ))
}
