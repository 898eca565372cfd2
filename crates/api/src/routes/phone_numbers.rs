//! `/v2/admin/phone-numbers`: numbers provisioned to a tenant (by platform and partner
//! admins) and their settings (edited by the tenant).

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::phone_numbers as app;
use switchboard_app::tenancy;
use switchboard_db::phone_numbers;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::PhoneNumberId;
use switchboard_domain::list::Page;
use switchboard_domain::records::phone_number::{
    CreatePhoneNumber, PhoneNumber, UpdatePhoneNumber,
};

use crate::audit::now;
use crate::auth::caller::{Caller, PhoneNumbersProvision, PhoneNumbersRead, PhoneNumbersWrite};
use crate::error::ApiResult;
use crate::extract::{Checked, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// Lists phone numbers filtered by tenant, branch, number, fax, use and conduit
/// (`resultsPerPage` is another name for `recordsPerPage`); `query` searches number, comment name and CNAM.
#[utoipa::path(get, operation_id = "listPhoneNumbers", path = "/v2/admin/phone-numbers/", tag = "phone-numbers",
    params(ListParams<PhoneNumber>),
    responses((status = 200, description = "A page of phone numbers", body = Page<PhoneNumber>)))]
pub async fn list(
    caller: Caller<PhoneNumbersRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<PhoneNumber>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = phone_numbers::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Provisions a number to a tenant (platform and partner admins).
#[utoipa::path(post, operation_id = "createPhoneNumber", path = "/v2/admin/phone-numbers/", tag = "phone-numbers",
    request_body = CreatePhoneNumber,
    responses((status = 200, description = "The provisioned number", body = PhoneNumber)))]
pub async fn create(
    caller: Caller<PhoneNumbersProvision>,
    State(state): State<AppState>,
    body: Checked<CreatePhoneNumber>,
) -> ApiResult<Json<PhoneNumber>> {
    let (body, tenant) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(
        phone_numbers::create(&state.db, tenant, body.number, body.settings, now()).await?,
    ))
}

/// One phone number.
#[utoipa::path(get, operation_id = "getPhoneNumber", path = "/v2/admin/phone-numbers/{id}", tag = "phone-numbers",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Phone number id")),
    responses((status = 200, description = "The phone number", body = PhoneNumber)))]
pub async fn get(
    caller: Caller<PhoneNumbersRead>,
    State(state): State<AppState>,
    PathId(id): PathId<PhoneNumberId>,
) -> ApiResult<Json<PhoneNumber>> {
    Ok(Json(
        phone_numbers::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes a number's settings; `tenantId` and `number` do not change.
#[utoipa::path(patch, operation_id = "updatePhoneNumber", path = "/v2/admin/phone-numbers/{id}", tag = "phone-numbers",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Phone number id")),
    request_body = UpdatePhoneNumber,
    responses((status = 200, description = "The changed phone number", body = PhoneNumber)))]
pub async fn update(
    caller: Caller<PhoneNumbersWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<PhoneNumberId>,
    patch: Patch<UpdatePhoneNumber>,
) -> ApiResult<Json<PhoneNumber>> {
    let current = phone_numbers::get(&state.db, &caller.scope, id).await?;
    let UpdatePhoneNumber { settings } = patch
        .checked_against(&current)?
        .check(async |body, problems| {
            Ok(app::check_change(&state, &caller, &current, body, problems).await?)
        })
        .await?;
    Ok(Json(
        phone_numbers::update(&state.db, &caller.scope, id, settings).await?,
    ))
}

/// Releases a number (platform and partner admins), answering it as it was.
#[utoipa::path(delete, operation_id = "deletePhoneNumber", path = "/v2/admin/phone-numbers/{id}", tag = "phone-numbers",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Phone number id")),
    responses((status = 200, description = "The released phone number", body = PhoneNumber)))]
pub async fn delete(
    caller: Caller<PhoneNumbersProvision>,
    State(state): State<AppState>,
    PathId(id): PathId<PhoneNumberId>,
) -> ApiResult<Json<PhoneNumber>> {
    Ok(Json(
        phone_numbers::delete(&state.db, &caller.scope, id).await?,
    ))
}

/// Searches phone numbers: the list's filters and limits, `query` matching the number
/// (its digits, written in any formatting: `+1 (555) 010-2030`), the comment name or
/// the CNAM; answers the paginated envelope with `totalRecords`.
#[utoipa::path(get, operation_id = "searchPhoneNumbers", path = "/v2/admin/phone-numbers/search", tag = "phone-numbers",
    params(ListParams<PhoneNumber>),
    responses((status = 200, description = "A page of matching phone numbers", body = Page<PhoneNumber>)))]
pub async fn search(
    caller: Caller<PhoneNumbersRead>,
    State(state): State<AppState>,
    params: ListParams<PhoneNumber>,
) -> ApiResult<Response> {
    search_numbers(caller, state, params).await
}

/// The phone-number search at the release notes' path.
#[utoipa::path(get, operation_id = "searchPhoneNumbersUnversioned", path = "/admin/phone-numbers/search", tag = "phone-numbers",
    params(ListParams<PhoneNumber>),
    responses((status = 200, description = "A page of matching phone numbers", body = Page<PhoneNumber>)))]
pub async fn search_unversioned(
    caller: Caller<PhoneNumbersRead>,
    State(state): State<AppState>,
    params: ListParams<PhoneNumber>,
) -> ApiResult<Response> {
    search_numbers(caller, state, params).await
}

async fn search_numbers(
    caller: Caller<PhoneNumbersRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<PhoneNumber>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let text = query.search.clone();
    let listing =
        phone_numbers::search(&state.db, &caller.scope, &filter, &query, text.as_deref()).await?;
    Ok(listing::respond(listing, std::convert::identity))
}
