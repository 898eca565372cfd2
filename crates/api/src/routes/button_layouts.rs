//! `/v2/admin/button-layouts`: what each key of a desk-phone model does, shared by the
//! tenant's phones of that model. Layouts are tenant-wide: branch admins read them.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::button_layouts as app;
use switchboard_app::tenancy;
use switchboard_db::button_layouts;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::ButtonLayoutId;
use switchboard_domain::list::Page;
use switchboard_domain::records::button_layout::{
    ButtonLayout, CreateButtonLayout, UpdateButtonLayout,
};

use crate::auth::caller::{Caller, DevicesRead, DevicesWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists the button layouts in the caller's scope, with their keys.
#[utoipa::path(get, operation_id = "listButtonLayouts", path = "/v2/admin/button-layouts/", tag = "button-layouts",
    params(ListParams<ButtonLayout>),
    responses((status = 200, description = "A page of button layouts", body = Page<ButtonLayout>)))]
pub async fn list(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<ButtonLayout>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = button_layouts::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates a button layout for one model of the catalogue.
#[utoipa::path(post, operation_id = "createButtonLayout", path = "/v2/admin/button-layouts/", tag = "button-layouts",
    request_body = CreateButtonLayout,
    responses((status = 200, description = "The new layout", body = ButtonLayout)))]
pub async fn create(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    body: Checked<CreateButtonLayout>,
) -> ApiResult<Json<ButtonLayout>> {
    app::tenant_wide(&caller)?;
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(app::write_new(&state, tenant, body).await?))
}

/// One button layout with its keys.
#[utoipa::path(get, operation_id = "getButtonLayout", path = "/v2/admin/button-layouts/{id}", tag = "button-layouts",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Button layout id")),
    responses((status = 200, description = "The layout", body = ButtonLayout)))]
pub async fn get(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<ButtonLayoutId>,
) -> ApiResult<Json<ButtonLayout>> {
    Ok(Json(
        button_layouts::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes a button layout; a sent `keys` replaces every key. Every phone using it is
/// re-provisioned (its `configVersion` grows, with DEVICE_CONFIG_CHANGED).
#[utoipa::path(patch, operation_id = "updateButtonLayout", path = "/v2/admin/button-layouts/{id}", tag = "button-layouts",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Button layout id")),
    request_body = UpdateButtonLayout,
    responses((status = 200, description = "The changed layout", body = ButtonLayout)))]
pub async fn update(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<ButtonLayoutId>,
    patch: Patch<UpdateButtonLayout>,
) -> ApiResult<Json<ButtonLayout>> {
    let current = button_layouts::get(&state.db, &caller.scope, id).await?;
    app::tenant_wide(&caller)?;
    let body = patch
        .checked_against(&current)?
        .check(
            async |body, problems| Ok(app::check_change(&state, &current, body, problems).await?),
        )
        .await?;
    let layout = button_layouts::update(&state.db, &caller.scope, id, &body).await?;
    Ok(Json(layout))
}

/// Deletes a button layout no device uses (409 naming them otherwise).
#[utoipa::path(delete, operation_id = "deleteButtonLayout", path = "/v2/admin/button-layouts/{id}", tag = "button-layouts",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Button layout id")),
    responses((status = 200, description = "The deleted layout", body = ButtonLayout)))]
pub async fn delete(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<ButtonLayoutId>,
) -> ApiResult<Json<ButtonLayout>> {
    button_layouts::get(&state.db, &caller.scope, id).await?;
    app::tenant_wide(&caller)?;
    Ok(Json(
        button_layouts::delete(&state.db, &caller.scope, id).await?,
    ))
}
