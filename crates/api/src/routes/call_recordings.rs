//! `/v2/admin/call-recordings`: recorded calls by their call id (Asterisk's uniqueid),
//! each with a presigned URL of its MP3 — S3's own when the store is S3, switchboard's
//! HMAC-signed link otherwise — listed and deleted.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::calls::{self, CallRow};
use switchboard_domain::Location;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::list::Page;
use switchboard_domain::records::call::{CALL_ID, CallRecording};
use switchboard_domain::validation::{Raw, Rule};

use crate::auth::caller::{CallRecordingsRead, CallRecordingsWrite, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::ListParams;
use crate::listing;
use crate::routes::objects::media_url;
use crate::state::AppState;

/// A recorded call as answered: with a fresh presigned URL of its MP3.
pub async fn present(state: &AppState, row: CallRow) -> ApiResult<CallRecording> {
    let media_url = media_url(state, row.recording_key.as_deref()).await?;
    Ok(row.into_recording(media_url))
}

/// The `callId` path segment: 1 to 255 characters.
pub(crate) fn call_id(path: Result<Path<String>, PathRejection>) -> ApiResult<String> {
    let Path(raw) = path.map_err(|_| ApiError::bad_request("the path could not be read"))?;
    CALL_ID
        .check(Raw::Text(&raw))
        .map_err(|message| ApiError::invalid(Location::Path, "callId", &message))
}

/// Lists recorded calls (a user sees its own calls only), newest first when sorted by
/// `time` descending; `query` searches numbers, caller name, call id and transcript text.
#[utoipa::path(get, operation_id = "listCallRecordings", path = "/v2/admin/call-recordings/", tag = "call-recordings",
    params(ListParams<CallRecording>),
    responses((status = 200, description = "A page of call recordings", body = Page<CallRecording>)))]
pub async fn list(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<CallRecording>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = calls::list_recordings(&state.db, &caller.scope, &filter, &query).await?;
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond(presented, std::convert::identity))
}

/// One call's recording.
#[utoipa::path(get, operation_id = "getCallRecording", path = "/v2/admin/call-recordings/{callId}", tag = "call-recordings",
    params(("callId" = String, Path, min_length = 1, max_length = 255, description = "The call identifier (uniqueId)")),
    responses((status = 200, description = "The call recording", body = CallRecording)))]
pub async fn get(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<CallRecording>> {
    let unique_id = call_id(path)?;
    let row = calls::recording(&state.db, &caller.scope, &unique_id).await?;
    Ok(Json(present(&state, row).await?))
}

/// Deletes a call's recording (the call record stays), answering it as it was.
#[utoipa::path(delete, operation_id = "deleteCallRecording", path = "/v2/admin/call-recordings/{callId}", tag = "call-recordings",
    params(("callId" = String, Path, min_length = 1, max_length = 255, description = "The call identifier (uniqueId)")),
    responses((status = 200, description = "The deleted recording", body = CallRecording)))]
pub async fn delete(
    caller: Caller<CallRecordingsWrite>,
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<CallRecording>> {
    let unique_id = call_id(path)?;
    let row = calls::delete_recording(&state.db, &caller.scope, &unique_id).await?;
    // Its audio goes through the job queue, queued with the change: answered without a URL.
    let row = CallRow {
        recording_key: None,
        ..row
    };
    Ok(Json(present(&state, row).await?))
}
