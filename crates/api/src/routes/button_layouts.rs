//! `/v2/admin/button-layouts`: what each key of a desk-phone model does, shared by the
//! tenant's phones of that model. Layouts are tenant-wide: branch admins read them.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_db::button_layouts;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{ButtonLayoutId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::button_layout::{
    ButtonLayout, CreateButtonLayout, KeyInput, Target, UpdateButtonLayout, check_keys, targets,
};
use switchboard_domain::records::device_model;
use switchboard_domain::{Location, Principal, Problems};

use crate::auth::caller::{Caller, DevicesRead, DevicesWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::state::AppState;
use crate::{listing, tenancy};

/// Branch admins may use layouts but not change them: a layout serves the whole tenant.
fn tenant_wide(caller: &Principal) -> ApiResult<()> {
    if caller.scope.own_branch().is_some() {
        return Err(ApiError::forbidden(
            "button layouts are tenant-wide; a branch admin may read them only",
        ));
    }
    Ok(())
}

/// Checks `keys` against `model` and the tenant's records: every broken rule at its
/// `'body/keys/N/…'` path.
async fn check(
    state: &AppState,
    tenant: TenantId,
    model: &str,
    keys: &[KeyInput],
    problems: &mut Problems,
) -> ApiResult<()> {
    if let Some(model) = device_model::find(model) {
        check_keys(model, keys, problems);
    }
    for (n, target) in targets(keys) {
        let (table, message) = match target {
            Target::Extension(_) => ("extensions", "must name an extension of the tenant"),
            Target::PagingGroup(_) => ("paging_groups", "must name a paging group of the tenant"),
        };
        let (Target::Extension(id) | Target::PagingGroup(id)) = target;
        let condition = switchboard_db::scope::of_tenant(tenant);
        if !switchboard_db::crud::exists(&state.db, table, id, condition).await? {
            problems.add(Location::Body, &format!("keys/{n}/value"), message);
        }
    }
    Ok(())
}

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
    tenant_wide(&caller)?;
    let mut tenant = None;
    let body = body
        .check(async |body, problems| {
            let owner = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
            tenant = Some(owner);
            check(&state, owner, &body.device_model, &body.keys, problems).await
        })
        .await?;
    let tenant = tenant.ok_or_else(|| ApiError::internal("a checked layout has a tenant"))?;
    Ok(Json(
        button_layouts::create(&state.db, tenant, body.name, body.device_model, &body.keys).await?,
    ))
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
    tenant_wide(&caller)?;
    let body = patch
        .checked_against(&current)?
        .check(async |body, problems| match &body.keys {
            Some(keys) => {
                let model = body
                    .device_model
                    .as_deref()
                    .unwrap_or(&current.device_model);
                check(&state, current.tenant_id, model, keys, problems).await
            }
            None => Ok(()),
        })
        .await?;
    let model = body
        .device_model
        .clone()
        .unwrap_or_else(|| current.device_model.clone());
    if body.keys.is_some() {
        // Checked with the body above.
    } else if model != current.device_model {
        // The kept keys must fit the new model.
        let keys: Vec<KeyInput> = current
            .keys
            .iter()
            .map(|k| KeyInput {
                index: k.index,
                kind: k.kind,
                value: k.value.clone(),
                label: k.label.clone(),
            })
            .collect();
        let mut problems = Problems::new();
        check(&state, current.tenant_id, &model, &keys, &mut problems).await?;
        if !problems.is_empty() {
            return Err(ApiError::validation(problems));
        }
    }
    let layout = button_layouts::update(
        &state.db,
        &caller.scope,
        id,
        body.name,
        body.device_model,
        body.keys.as_deref(),
    )
    .await?;
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
    tenant_wide(&caller)?;
    Ok(Json(
        button_layouts::delete(&state.db, &caller.scope, id).await?,
    ))
}
