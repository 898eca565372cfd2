//! `/v2/admin/business-hours`: weekly hours in a time zone, the destinations inside and
//! outside them, holidays (also as the sub-resource `/{id}/holidays`), and the exact
//! open-now answer at `/{id}/status`.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::Response;
use chrono::{SecondsFormat, Utc};
use switchboard_db::business_hours;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{BusinessHourId, HolidayId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::business_hour::{
    BusinessHour, BusinessHourStatus, CreateBusinessHour, CreateHoliday, Holiday, HolidayRef,
    MAX_HOLIDAYS, StatusQuery, UpdateBusinessHour, UpdateHoliday,
};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::schedule::{self, Reason};
use switchboard_domain::{Location, Problems};

use crate::auth::caller::{BusinessHoursRead, BusinessHoursWrite, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, Patch, PathId, QueryParams, parse_id};
use crate::state::AppState;
use crate::{listing, tenancy};

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

/// Checks the media files named by `holidays` (at `field/<index>/mediaFileId`).
async fn check_holiday_media(
    state: &AppState,
    tenant: TenantId,
    field: &str,
    holidays: &[CreateHoliday],
    problems: &mut Problems,
) -> ApiResult<()> {
    for (index, holiday) in holidays.iter().enumerate() {
        let path = if field.is_empty() {
            "mediaFileId".to_owned()
        } else {
            format!("{field}/{index}/mediaFileId")
        };
        let media = holiday.media_file_id.get().map(i64::from);
        tenancy::check_media_file(state, tenant, &path, media, problems).await?;
    }
    Ok(())
}

/// Checks every reference a business-hours body makes belongs to `tenant`: both
/// destination lists and the holidays' media files.
async fn check_references(
    state: &AppState,
    tenant: TenantId,
    matching: Option<&[DestinationInput]>,
    not_matching: Option<&[DestinationInput]>,
    holidays: Option<&[CreateHoliday]>,
    problems: &mut Problems,
) -> ApiResult<()> {
    if let Some(list) = matching {
        tenancy::check_destinations(state, tenant, "matchDestinations", list, problems).await?;
    }
    if let Some(list) = not_matching {
        tenancy::check_destinations(state, tenant, "notMatchDestinations", list, problems).await?;
    }
    if let Some(holidays) = holidays {
        check_holiday_media(state, tenant, "holidays", holidays, problems).await?;
    }
    Ok(())
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
    let (mut tenant, mut branch) = (TenantId(0), None);
    let body = body
        .check(async |body, problems| {
            tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
            branch =
                tenancy::required_branch(&state, &caller, tenant, body.branch_id, problems).await?;
            check_references(
                &state,
                tenant,
                Some(&body.match_destinations),
                Some(&body.not_match_destinations),
                Some(&body.holidays),
                problems,
            )
            .await
        })
        .await?;
    let branch =
        branch.ok_or_else(|| ApiError::internal("checked business hours have a branch"))?;
    Ok(Json(
        business_hours::create(&state.db, tenant, branch, body).await?,
    ))
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
    let tenant = current.tenant_id;
    let mut branch = None;
    let mut body = patch
        .checked_against(&current)?
        .check(async |body, problems| {
            if body.branch_id.is_some() {
                branch =
                    tenancy::branch_for_write(&state, &caller, tenant, body.branch_id, problems)
                        .await?;
            }
            check_references(
                &state,
                tenant,
                body.match_destinations.as_deref(),
                body.not_match_destinations.as_deref(),
                body.holidays.as_deref(),
                problems,
            )
            .await
        })
        .await?;
    if body.branch_id.is_some() {
        body.branch_id = branch;
    }
    Ok(Json(
        business_hours::update(&state.db, &caller.scope, id, body).await?,
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
    let record = business_hours::get(&state.db, &caller.scope, id).await?;
    let at = query.at.unwrap_or_else(Utc::now);
    let tz: chrono_tz::Tz = record
        .timezone
        .parse()
        .map_err(|_| ApiError::internal("stored time zone does not parse"))?;
    // The schedule names a closing holiday by its index among the closures, so keep the
    // holidays that made them in the same order.
    let (holidays, closures): (Vec<&Holiday>, Vec<_>) = record
        .holidays
        .iter()
        .filter_map(|h| Some((h, h.closure()?)))
        .unzip();
    // Bounded (MAX_INTERVALS_PER_DAY, MAX_HOLIDAYS, a 400-day horizon) but not free: off
    // the request threads, so a burst of evaluations cannot stall other requests.
    let weekly = record.weekly();
    let answer = tokio::task::spawn_blocking(move || schedule::status(&weekly, &closures, tz, at))
        .await
        .map_err(ApiError::internal)?;
    let (reason, holiday) = match &answer.reason {
        Reason::InsideHours => ("inside-hours", None),
        Reason::OutsideHours => ("outside-hours", None),
        Reason::Holiday { index, .. } => (
            "holiday",
            holidays.get(*index).map(|h| HolidayRef {
                id: h.id,
                name: h.name.clone(),
            }),
        ),
    };
    let (destinations, list) = if answer.open {
        (record.match_destinations, "match")
    } else {
        (record.not_match_destinations, "notMatch")
    };
    Ok(Json(BusinessHourStatus {
        open: answer.open,
        reason: reason.into(),
        holiday,
        destinations,
        destination_list: list.into(),
        at: at.to_rfc3339_opts(SecondsFormat::Secs, true),
        local_time: at
            .with_timezone(&tz)
            .to_rfc3339_opts(SecondsFormat::Secs, false),
        next_change_at: answer
            .next_change_at
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
    }))
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
            if record.holidays.len() >= MAX_HOLIDAYS {
                problems.add(
                    Location::Path,
                    "id",
                    format!("already holds {MAX_HOLIDAYS} holidays, the most a record may hold"),
                );
            }
            let holidays = std::slice::from_ref(holiday);
            check_holiday_media(&state, record.tenant_id, "", holidays, problems).await
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
    let tenant = record.tenant_id;
    let patch = update
        .check(async |update, problems| {
            let media = update.media_file_id.and_then(|m| m.get()).map(i64::from);
            tenancy::check_media_file(&state, tenant, "mediaFileId", media, problems).await
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
