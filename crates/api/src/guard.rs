//! Bounds on the time and the room one request takes: a timeout for every request that
//! is not an upload, and a cap on the uploads in flight.
//!
//! The timeout covers the work up to the response's head: a streamed list
//! (`paginated=0`) has its head at once and is bounded by its client instead (rounds on
//! short-lived connections, and the write-stall limit of [`crate::stall`]). Uploads
//! (`multipart/form-data`: media files, MMS media, ingest with audio) are excepted, since
//! a large file on a slow link may rightly take longer than the request timeout; they are
//! bounded by their body limits, by the upload timeout (so a client trickling bytes holds
//! a slot for a bounded time) and by the cap on how many run at once, beyond which they
//! are refused with 503 and `Retry-After` rather than queued. Only a `POST` is an upload:
//! the header alone does not lift another request's timeout.

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

/// Seconds an upload refused for want of a slot is asked to wait.
pub const UPLOAD_RETRY_AFTER: u64 = 5;

/// Seconds a request that timed out is asked to wait before trying again.
pub const TIMEOUT_RETRY_AFTER: u64 = 1;

/// Whether `request` is an upload (a `POST` of a multipart body).
fn is_upload(request: &Request) -> bool {
    request.method() == axum::http::Method::POST
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("multipart/")
            })
}

/// Runs `request` within the request timeout, or (an upload) within an upload slot.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if is_upload(&request) {
        let Ok(_slot) = state.settings.upload_slots.clone().try_acquire_owned() else {
            return ApiError::unavailable(
                "too many uploads at once; retry in a moment",
                UPLOAD_RETRY_AFTER,
            )
            .into_response();
        };
        return within(state.settings.upload_timeout, next.run(request)).await;
    }
    within(state.settings.request_timeout, next.run(request)).await
}

/// Answers `work`'s response, or 503 when it takes longer than `limit` (dropping it rolls
/// back any transaction it holds).
async fn within(limit: std::time::Duration, work: impl Future<Output = Response>) -> Response {
    match tokio::time::timeout(limit, work).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(seconds = limit.as_secs(), "the request timed out");
            ApiError::unavailable(
                "the request took too long and was abandoned; nothing it began was kept",
                TIMEOUT_RETRY_AFTER,
            )
            .into_response()
        }
    }
}
