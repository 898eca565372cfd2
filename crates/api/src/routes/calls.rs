//! `/v2/admin/calls`: every call, recorded or not, by its call id (Asterisk's uniqueid),
//! with the recordings' filters, sorts, search and scope, and the recording's presigned
//! URL when the call has one.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::calls::{self, CallRow, iso_at};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::list::Page;
use switchboard_domain::records::call::Call;

use crate::auth::caller::{CallRecordingsRead, Caller};
use crate::error::ApiResult;
use crate::extract::ListParams;
use crate::listing;
use crate::routes::call_recordings::call_id;
use crate::routes::objects::media_url;
use crate::state::AppState;

/// A call as answered: with a fresh presigned URL of its recording, if any.
pub async fn present(state: &AppState, row: CallRow) -> ApiResult<Call> {
    Ok(Call {
        has_recording: row.recording_key.is_some(),
        recording_duration: row.recording_key.as_ref().and(row.recording_seconds),
        media_url: media_url(state, row.recording_key.as_deref()).await?,
        answer_time: iso_at(row.answer_unix),
        end_time: iso_at(row.end_unix),
        unique_id: row.unique_id,
        tenant_id: row.tenant_id,
        direction: row.direction,
        status: row.status,
        caller_id_num: row.caller_id_num,
        caller_id_name: row.caller_id_name,
        dialed_num: row.dialed_num,
        time: row.time,
        duration: row.duration,
        billsec: row.billsec,
        disposition: row.disposition,
    })
}

/// Lists calls, recorded or not (a branch admin sees its extensions' calls, a user its
/// own); `query` searches numbers, caller name, call id and transcript text.
#[utoipa::path(get, operation_id = "listCalls", path = "/v2/admin/calls/", tag = "calls",
    params(ListParams<Call>),
    responses((status = 200, description = "A page of calls", body = Page<Call>)))]
pub async fn list(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    params: ListParams<Call>,
) -> ApiResult<Response> {
    list_calls(caller, state, params).await
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listCallsUnversioned", path = "/admin/calls/", tag = "calls",
    params(ListParams<Call>),
    responses((status = 200, description = "A page of calls", body = Page<Call>)))]
pub async fn list_unversioned(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    params: ListParams<Call>,
) -> ApiResult<Response> {
    list_calls(caller, state, params).await
}

async fn list_calls(
    caller: Caller<CallRecordingsRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<Call>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = calls::list(&state.db, &caller.scope, &filter, &query).await?;
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond(presented, std::convert::identity))
}

/// One call, recorded or not.
#[utoipa::path(get, operation_id = "getCall", path = "/v2/admin/calls/{callId}", tag = "calls",
    params(("callId" = String, Path, min_length = 1, max_length = 255, description = "The call identifier (uniqueId)")),
    responses((status = 200, description = "The call", body = Call)))]
pub async fn get(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Call>> {
    get_call(caller, state, path).await
}

/// The same call at the release notes' path.
#[utoipa::path(get, operation_id = "getCallUnversioned", path = "/admin/calls/{callId}", tag = "calls",
    params(("callId" = String, Path, min_length = 1, max_length = 255, description = "The call identifier (uniqueId)")),
    responses((status = 200, description = "The call", body = Call)))]
pub async fn get_unversioned(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Call>> {
    get_call(caller, state, path).await
}

async fn get_call(
    caller: Caller<CallRecordingsRead>,
    state: AppState,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<Call>> {
    let unique_id = call_id(path)?;
    let row = calls::get(&state.db, &caller.scope, &unique_id).await?;
    Ok(Json(present(&state, row).await?))
}
