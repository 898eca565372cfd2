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
//!
//! The cap is shared fairly ([`UploadSlots`]): one tenant holds at most a quarter of the
//! slots (at least one), so a caller whose uploads stall cannot refuse every other
//! tenant's. Callers above tenants (platform and partner admins, the engine) draw on the
//! whole cap.

use axum::extract::Request;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::middleware::slots::UploadSlot;
pub use crate::middleware::slots::UploadSlots;
use crate::state::AppState;

/// Seconds an upload refused for want of a slot is asked to wait.
pub const UPLOAD_RETRY_AFTER: u64 = 5;

/// Seconds a request that timed out is asked to wait before trying again.
pub const TIMEOUT_RETRY_AFTER: u64 = 1;

/// Whether `request` is an upload (a `POST` of a multipart body).
fn is_upload(request: &Request) -> bool {
    request.method() == axum::http::Method::POST
        && crate::media_type::sent_type(request.headers(), "multipart")
}

/// The tenant an upload counts against: the one its bearer token was issued for.
/// Callers above tenants (platform and partner admins, the engine's token) draw on the
/// whole cap, as does a request without a valid token, which authentication refuses
/// before any body is read.
fn holder(state: &AppState, request: &Request) -> Option<String> {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())?;
    let tenant = state.tokens.verify(token)?.tenant;
    (tenant > 0).then(|| format!("tenant:{tenant}"))
}

/// What bounds a request: its time limit and, for an upload, the slot it holds until it
/// is answered.
pub struct Bound {
    limit: std::time::Duration,
    _slot: Option<UploadSlot>,
}

/// The bound of `request`: the request timeout, or (an upload) an upload slot and the
/// upload timeout; the 503 refusal when an upload finds no free slot.
pub fn bound(state: &AppState, request: &Request) -> Result<Bound, ApiError> {
    if !is_upload(request) {
        return Ok(Bound {
            limit: state.settings.request_timeout,
            _slot: None,
        });
    }
    match state.settings.upload_slots.take(holder(state, request)) {
        Some(slot) => Ok(Bound {
            limit: state.settings.upload_timeout,
            _slot: Some(slot),
        }),
        None => Err(ApiError::unavailable(
            "too many uploads at once; retry in a moment",
            UPLOAD_RETRY_AFTER,
        )),
    }
}

impl Bound {
    /// Runs `work` within the bound (see [`within`]), giving the slot back after.
    pub async fn run(self, work: impl Future<Output = Response>) -> Response {
        within(self.limit, work).await
    }
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

/// Pledges the deletion of the object an upload is about to store at `key`, before it
/// is stored: the application layer's rule ([`switchboard_app::uploads::pledge_object`]),
/// for the uploads whose routes are not use cases yet.
pub async fn pledge_upload_object(state: &AppState, key: &str) -> Result<i64, ApiError> {
    Ok(switchboard_app::uploads::pledge_object(state, key).await?)
}

/// Gives up the objects of an upload that is not kept (refused, or failed half-way):
/// [`switchboard_app::uploads::abandon_objects`].
pub async fn abandon_upload_objects(state: &AppState, pledges: &[i64]) {
    switchboard_app::uploads::abandon_objects(state, pledges).await;
}
