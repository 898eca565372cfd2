//! `/v2/admin/business-hours`: weekly hours in a time zone, the destinations inside and
//! outside them, holidays (also as the sub-resource `/{id}/holidays`), and the exact
//! open-now answer at `/{id}/status`.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::Response;
use chrono::Utc;
use switchboard_app::business_hours as app;
use switchboard_app::tenancy;
use switchboard_db::business_hours;
use switchboard_domain::Location;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{BusinessHourId, HolidayId};
use switchboard_domain::list::Page;
use switchboard_domain::records::business_hour::{
    BusinessHour, BusinessHourStatus, CreateBusinessHour, CreateHoliday, Holiday, StatusQuery,
    UpdateBusinessHour, UpdateHoliday,
};

use crate::auth::caller::{BusinessHoursRead, BusinessHoursWrite, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, Patch, PathId, QueryParams, parse_id};
use crate::listing;
use crate::state::AppState;

/// Lists the business hours in the caller's scope.
#[utoipa::path(get, operation_id = "listBusinessHours", path = "/v2/admin/business-hours/", tag = "business-hours",
    params(ListParams<BusinessHour>),
    responses((status = 200, description = "A page of business hours", body = Page<BusinessHour>)))]
pub async fn list(
    caller: Caller<BusinessHoursRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<BusinessHour>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = business_hours::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Creates business hours with their destination lists and holidays.
#[utoipa::path(post, operation_id = "createBusinessHours", path = "/v2/admin/business-hours/", tag = "business-hours",
    request_body = CreateBusinessHour,
    responses((status = 200, description = "The new business hours", body = BusinessHour)))]
pub async fn create(
    caller: Caller<BusinessHoursWrite>,
    State(state): State<AppState>,
    body: Checked<CreateBusinessHour>,
) -> ApiResult<Json<BusinessHour>> {
    let (body, placement) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(app::write_new(&state, placement, body).await?))
}

/// One business-hours record.
#[utoipa::path(get, operation_id = "getBusinessHours", path = "/v2/admin/business-hours/{id}", tag = "business-hours",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id")),
    responses((status = 200, description = "The business hours", body = BusinessHour)))]
pub async fn get(
    caller: Caller<BusinessHoursRead>,
    State(state): State<AppState>,
    PathId(id): PathId<BusinessHourId>,
) -> ApiResult<Json<BusinessHour>> {
    Ok(Json(
        business_hours::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes business hours; sent destination lists, hours and holidays replace the current ones.
#[utoipa::path(patch, operation_id = "updateBusinessHours", path = "/v2/admin/business-hours/{id}", tag = "business-hours",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id")),
    request_body = UpdateBusinessHour,
    responses((status = 200, description = "The changed business hours", body = BusinessHour)))]
pub async fn update(
    caller: Caller<BusinessHoursWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<BusinessHourId>,
    patch: Patch<UpdateBusinessHour>,
) -> ApiResult<Json<BusinessHour>> {
    let current = business_hours::get(&state.db, &caller.scope, id).await?;
    let (body, branch) = patch
        .checked_against(&current)?
        .check_with(async |body, problems| {
            app::check_change(&state, &caller, &current, body, problems).await
        })
        .await?;
    Ok(Json(
        app::write_change(&state, &caller, id, body, branch).await?,
    ))
}

/// Deletes business hours with their destinations and holidays in one transaction,
/// answering the deleted record. An empty body, an empty JSON body or `{}` is accepted.
#[utoipa::path(delete, operation_id = "deleteBusinessHours", path = "/v2/admin/business-hours/{id}", tag = "business-hours",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id")),
    responses((status = 200, description = "The deleted business hours", body = BusinessHour)))]
pub async fn delete(
    caller: Caller<BusinessHoursWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<BusinessHourId>,
) -> ApiResult<Json<BusinessHour>> {
    Ok(Json(
        business_hours::delete(&state.db, &caller.scope, id).await?,
    ))
}

/// Answers whether the business is open at `at` (default now), which holiday closes it,
/// which destination list applies, and when that next changes: exact across daylight-saving
/// changes and midnight.
#[utoipa::path(get, operation_id = "getBusinessHoursStatus", path = "/v2/admin/business-hours/{id}/status", tag = "business-hours",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id"),
        ("at" = Option<String>, Query, format = DateTime, description = "RFC 3339 instant; default now"),
    ),
    responses((status = 200, description = "Open or closed, and until when", body = BusinessHourStatus)))]
pub async fn status(
    caller: Caller<BusinessHoursRead>,
    State(state): State<AppState>,
    PathId(id): PathId<BusinessHourId>,
    QueryParams(query): QueryParams<StatusQuery>,
) -> ApiResult<Json<BusinessHourStatus>> {
    let at = query.at.unwrap_or_else(Utc::now);
    Ok(Json(app::status(&state, &caller, id, at).await?))
}

/// The holidays of a business-hours record, by id.
#[utoipa::path(get, operation_id = "listHolidays", path = "/v2/admin/business-hours/{id}/holidays", tag = "business-hours",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id")),
    responses((status = 200, description = "Its holidays", body = Vec<Holiday>)))]
pub async fn list_holidays(
    caller: Caller<BusinessHoursRead>,
    State(state): State<AppState>,
    PathId(id): PathId<BusinessHourId>,
) -> ApiResult<Json<Vec<Holiday>>> {
    Ok(Json(
        business_hours::get(&state.db, &caller.scope, id)
            .await?
            .holidays,
    ))
}

/// Adds a holiday.
#[utoipa::path(post, operation_id = "createHoliday", path = "/v2/admin/business-hours/{id}/holidays", tag = "business-hours",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id")),
    request_body = CreateHoliday,
    responses((status = 200, description = "The new holiday", body = Holiday)))]
pub async fn add_holiday(
    caller: Caller<BusinessHoursWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<BusinessHourId>,
    holiday: Checked<CreateHoliday>,
) -> ApiResult<Json<Holiday>> {
    let record = business_hours::get(&state.db, &caller.scope, id).await?;
    let holiday = holiday
        .check(async |holiday, problems| {
            Ok(app::check_new_holiday(&state, &record, holiday, problems).await?)
        })
        .await?;
    Ok(Json(
        business_hours::add_holiday(&state.db, &caller.scope, id, holiday).await?,
    ))
}

/// The `{id}` and `{holidayId}` of a holiday path, both by the path-id rules.
fn holiday_path(
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
) -> ApiResult<(BusinessHourId, HolidayId)> {
    let Path((id, holiday)) =
        path.map_err(|_| ApiError::bad_request("the path could not be read"))?;
    let owner = parse_id(&id)?;
    let holiday = parse_id(&holiday).map_err(|e| {
        if e.status() == axum::http::StatusCode::BAD_REQUEST {
            ApiError::invalid(
                Location::Path,
                "holidayId",
                &format!("must match pattern {}", crate::extract::ID_PATTERN),
            )
        } else {
            e
        }
    })?;
    Ok((BusinessHourId(owner), HolidayId(holiday)))
}

/// One holiday.
#[utoipa::path(get, operation_id = "getHoliday", path = "/v2/admin/business-hours/{id}/holidays/{holidayId}", tag = "business-hours",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id"),
        ("holidayId" = String, Path, pattern = "^[1-9][0-9]*$", description = "Holiday id"),
    ),
    responses((status = 200, description = "The holiday", body = Holiday)))]
pub async fn get_holiday(
    caller: Caller<BusinessHoursRead>,
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
) -> ApiResult<Json<Holiday>> {
    let (owner, id) = holiday_path(path)?;
    Ok(Json(
        business_hours::holiday(&state.db, &caller.scope, owner, id).await?,
    ))
}

/// Changes a holiday; sending `date` or `from`/`to` replaces when it is.
#[utoipa::path(patch, operation_id = "updateHoliday", path = "/v2/admin/business-hours/{id}/holidays/{holidayId}", tag = "business-hours",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id"),
        ("holidayId" = String, Path, pattern = "^[1-9][0-9]*$", description = "Holiday id"),
    ),
    request_body = UpdateHoliday,
    responses((status = 200, description = "The changed holiday", body = Holiday)))]
pub async fn update_holiday(
    caller: Caller<BusinessHoursWrite>,
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
    update: Checked<UpdateHoliday>,
) -> ApiResult<Json<Holiday>> {
    let (owner, id) = holiday_path(path)?;
    let record = business_hours::get(&state.db, &caller.scope, owner).await?;
    let patch = update
        .check(async |update, problems| {
            Ok(app::check_holiday_change(&state, &record, update, problems).await?)
        })
        .await?
        .into_patch();
    Ok(Json(
        business_hours::update_holiday(&state.db, &caller.scope, owner, id, patch).await?,
    ))
}

/// Deletes a holiday, answering it as it was.
#[utoipa::path(delete, operation_id = "deleteHoliday", path = "/v2/admin/business-hours/{id}/holidays/{holidayId}", tag = "business-hours",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Business hours id"),
        ("holidayId" = String, Path, pattern = "^[1-9][0-9]*$", description = "Holiday id"),
    ),
    responses((status = 200, description = "The deleted holiday", body = Holiday)))]
pub async fn delete_holiday(
    caller: Caller<BusinessHoursWrite>,
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
) -> ApiResult<Json<Holiday>> {
    let (owner, id) = holiday_path(path)?;
    Ok(Json(
        business_hours::delete_holiday(&state.db, &caller.scope, owner, id).await?,
    ))
}
