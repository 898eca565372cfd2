//! `/v2/admin/devices` (also `/admin/devices`, and the search at `/devices/search` and
//! `/v2/devices/search`, as the release notes write them): desk phones, their
//! provisioning credentials, the device-model catalogue, and the registrations the
//! telephony engine reports.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::devices as app;
use switchboard_app::tenancy;
use switchboard_db::devices;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::DeviceId;
use switchboard_domain::list::Page;
use switchboard_domain::records::device::{
    CreateDevice, CreatedDevice, Device, IngestRegistration, ProvisioningCredentials, UpdateDevice,
};
use switchboard_domain::records::device_model::{self, DeviceModel};

use crate::auth::caller::{Caller, DevicesRead, DevicesWrite, IngestWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, JsonBody, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// The device-model catalogue shipped with the service.
#[utoipa::path(get, operation_id = "listDeviceModels", path = "/v2/admin/device-models/", tag = "devices",
    responses((status = 200, description = "Every model of the catalogue", body = Vec<DeviceModel>)))]
pub async fn models(_caller: Caller<DevicesRead>) -> Json<&'static [DeviceModel]> {
    Json(device_model::catalogue())
}

async fn list_devices(
    caller: Caller<DevicesRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<Device>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = devices::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Lists the desk phones in the caller's scope; `query` matches the name, or the MAC in
/// any notation (6 hex digits or more: all phones of a vendor).
#[utoipa::path(get, operation_id = "listDevices", path = "/v2/admin/devices/", tag = "devices",
    params(ListParams<Device>),
    responses((status = 200, description = "A page of devices", body = Page<Device>)))]
pub async fn list(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    params: ListParams<Device>,
) -> ApiResult<Response> {
    list_devices(caller, state, params).await
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listDevicesUnversioned", path = "/admin/devices/", tag = "devices",
    params(ListParams<Device>),
    responses((status = 200, description = "A page of devices", body = Page<Device>)))]
pub async fn list_unversioned(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    params: ListParams<Device>,
) -> ApiResult<Response> {
    list_devices(caller, state, params).await
}

/// Searches the desk phones (the device list under the release notes' name; it answers
/// the paginated envelope, no longer a bare array).
#[utoipa::path(get, operation_id = "searchDevicesUnversioned", path = "/devices/search", tag = "devices",
    params(ListParams<Device>),
    responses((status = 200, description = "A page of devices", body = Page<Device>)))]
pub async fn search(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    params: ListParams<Device>,
) -> ApiResult<Response> {
    list_devices(caller, state, params).await
}

/// The device search under `/v2`.
#[utoipa::path(get, operation_id = "searchDevices", path = "/v2/devices/search", tag = "devices",
    params(ListParams<Device>),
    responses((status = 200, description = "A page of devices", body = Page<Device>)))]
pub async fn search_v2(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    params: ListParams<Device>,
) -> ApiResult<Response> {
    list_devices(caller, state, params).await
}

/// Where a device fetches its configuration.
fn provisioning_url(state: &AppState, mac: &str, model: &str) -> String {
    let file = device_model::find(model)
        .map_or("{mac}.cfg", |m| m.provisioning_file.as_str())
        .replace("{mac}", &mac.replace(':', ""));
    format!(
        "{}/provisioning/{file}",
        state.settings.public_url.trim_end_matches('/')
    )
}

/// Creates a desk phone; the answer carries its provisioning password, shown this once.
/// A MAC address another device has (in any tenant) is a 409 that does not say whose.
#[utoipa::path(post, operation_id = "createDevice", path = "/v2/admin/devices/", tag = "devices",
    request_body = CreateDevice,
    responses((status = 200, description = "The new device, with its provisioning password", body = CreatedDevice)))]
pub async fn create(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    body: Checked<CreateDevice>,
) -> ApiResult<Json<CreatedDevice>> {
    let (body, placement) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(app::write_new(&state, placement, body).await?))
}

/// One desk phone with its lines and registration state.
#[utoipa::path(get, operation_id = "getDevice", path = "/v2/admin/devices/{id}", tag = "devices",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Device id")),
    responses((status = 200, description = "The device", body = Device)))]
pub async fn get(
    caller: Caller<DevicesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<DeviceId>,
) -> ApiResult<Json<Device>> {
    Ok(Json(devices::get(&state.db, &caller.scope, id).await?))
}

/// Changes a desk phone; a sent `lines` replaces its lines. Whatever its file shows grows
/// its `configVersion` and emits DEVICE_CONFIG_CHANGED.
#[utoipa::path(patch, operation_id = "updateDevice", path = "/v2/admin/devices/{id}", tag = "devices",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Device id")),
    request_body = UpdateDevice,
    responses((status = 200, description = "The changed device", body = Device)))]
pub async fn update(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<DeviceId>,
    patch: Patch<UpdateDevice>,
) -> ApiResult<Json<Device>> {
    let current = devices::get(&state.db, &caller.scope, id).await?;
    let (body, branch_id) = patch
        .checked_against(&current)?
        .check_with(async |body, problems| {
            app::check_change(&state, &caller, &current, body, problems).await
        })
        .await?;
    Ok(Json(
        app::write_change(&state, &caller, id, body, branch_id).await?,
    ))
}

/// Deletes a desk phone with its lines, answering it as it was; its file is gone at once.
#[utoipa::path(delete, operation_id = "deleteDevice", path = "/v2/admin/devices/{id}", tag = "devices",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Device id")),
    responses((status = 200, description = "The deleted device", body = Device)))]
pub async fn delete(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<DeviceId>,
) -> ApiResult<Json<Device>> {
    Ok(Json(devices::delete(&state.db, &caller.scope, id).await?))
}

/// Replaces a device's provisioning password: the answer shows the new one once, and the
/// old one stops working at once.
#[utoipa::path(post, operation_id = "rotateDeviceCredentials", path = "/v2/admin/devices/{id}/provisioning-credentials", tag = "devices",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Device id")),
    responses((status = 200, description = "The new credentials", body = ProvisioningCredentials)))]
pub async fn rotate_credentials(
    caller: Caller<DevicesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<DeviceId>,
) -> ApiResult<Json<ProvisioningCredentials>> {
    let (device, password) = app::rotate_credentials(&state, &caller, id).await?;
    Ok(Json(ProvisioningCredentials {
        url: provisioning_url(&state, &device.mac, &device.model),
        username: device.provisioning_username,
        password,
    }))
}

/// Records that the engine saw a desk phone register (or its registration end); a MAC no
/// tenant has is a 404.
#[utoipa::path(post, operation_id = "ingestDeviceRegistration", path = "/v2/ingest/device-registrations", tag = "ingest",
    request_body = IngestRegistration,
    responses((status = 200, description = "The device as it now is", body = Device)))]
pub async fn registration(
    _caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<IngestRegistration>,
) -> ApiResult<Json<Device>> {
    Ok(Json(devices::register(&state.db, body).await?))
}
