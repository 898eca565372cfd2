//! `GET /v2/objects/{key}`: the local object store's signed, expiring download links,
//! with `Range` support for players that seek. The signature is the credential; S3
//! deployments hand out S3's own presigned URLs instead.

use std::collections::HashMap;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use switchboard_storage::{ObjectRange, StorageError};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

tokio::task_local! {
    /// Set while the service answers a request it made of itself ([`with_service_links`]).
    static SERVICE_LINKS: ();
}

/// Runs `work` (a request the service makes of itself, in process: the console's) with
/// every media link answered as the service's own signed link to [`download`], whatever
/// the store: the console plays it from its own origin, with byte ranges, where an S3
/// link would be another origin its Content-Security-Policy refuses. Clients over the
/// network cannot ask for this; they get S3's presigned URLs on S3. (The rows of a
/// streamed list, `paginated=0`, are written after the handler has answered, outside
/// `work`: their links are the store's.)
pub async fn with_service_links<F: Future>(work: F) -> F::Output {
    SERVICE_LINKS.scope((), work).await
}

/// A short-lived signed URL of object `key` (S3's presigned URL on S3, a link to
/// [`download`] otherwise or inside [`with_service_links`]), valid for
/// `SWITCHBOARD_MEDIA_URL_TTL_SECONDS`; empty when there is no object.
pub async fn media_url(state: &AppState, key: Option<&str>) -> ApiResult<String> {
    let Some(key) = key else {
        return Ok(String::new());
    };
    let ttl = state.settings.media_url_ttl;
    if SERVICE_LINKS.try_with(|_| ()).is_ok() {
        return Ok(state.storage.service_download_url(key, ttl)?);
    }
    Ok(state.storage.download_url(key, ttl).await?)
}

/// `inline` for audio, images and video, `attachment` for anything else, with the file
/// name the key ends in (keys are generated: letters, digits, `-`, `_` and `.`).
fn disposition(key: &str, content_type: &str) -> HeaderValue {
    let media = ["audio/", "image/", "video/"]
        .iter()
        .any(|prefix| content_type.starts_with(prefix));
    let name: String = key
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    let kind = if media { "inline" } else { "attachment" };
    HeaderValue::from_str(&format!("{kind}; filename=\"{name}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

/// Fetches a stored object through a signed link.
#[utoipa::path(get, operation_id = "downloadObject", path = "/v2/objects/{key}", tag = "media-files", security(()),
    params(
        ("key" = String, Path, description = "The object's key, as in the signed link"),
        ("expires" = String, Query, pattern = "^[0-9]+$", description = "Expiry, seconds since the epoch"),
        ("signature" = String, Query, pattern = "^[0-9a-f]{64}$", description = "HMAC-SHA256 of key and expiry"),
        ("Range" = Option<String>, Header, description = "One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else is ignored"),
    ),
    responses(
        (status = 200, description = "The object", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 206, description = "The requested byte range", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 403, description = "The link is invalid or has expired", body = crate::error::ErrorBody),
        (status = 404, description = "No such object", body = crate::error::ErrorBody),
        (status = 416, description = "The range is outside the object; `Content-Range: bytes */<length>` tells its length (a `Range` that does not read as one byte range is ignored: 200 with the whole object)", body = crate::error::ErrorBody),
    ))]
pub async fn download(
    State(state): State<AppState>,
    key: Result<Path<String>, axum::extract::rejection::PathRejection>,
    params: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let Path(key) = key.map_err(|_| ApiError::bad_request("the path could not be read"))?;
    let Query(params) =
        params.map_err(|_| ApiError::bad_request("the query string could not be read"))?;
    let expires = params
        .get("expires")
        .map(String::as_str)
        .unwrap_or_default();
    let signature = params
        .get("signature")
        .map(String::as_str)
        .unwrap_or_default();
    let now = chrono::Utc::now().timestamp();
    if !state.storage.verify_download(&key, expires, signature, now) {
        return Err(ApiError::forbidden("the link is invalid or has expired"));
    }
    // A `Range` this route cannot read — another unit, several ranges, a malformed one —
    // is ignored and the whole object answered, as RFC 9110 §14.2 has a server do (it
    // must for a unit it does not know); one it reads but the object does not hold is
    // the 416.
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(ObjectRange::parse_header);
    let object = match state.storage.get(&key, range).await {
        Ok(object) => object,
        Err(StorageError::NotFound) => return Err(ApiError::not_found()),
        Err(other) => return Err(other.into()),
    };
    let partial = range.is_some();
    let length = object.range.end - object.range.start;
    let mut response = Body::from_stream(
        object
            .body
            .map(|chunk| chunk.map_err(std::io::Error::other)),
    )
    .into_response();
    *response.status_mut() = if partial {
        StatusCode::PARTIAL_CONTENT
    } else {
        StatusCode::OK
    };
    let headers = response.headers_mut();
    let content_type = object
        .content_type
        .unwrap_or_else(|| "application/octet-stream".into());
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    // The type is the one the service decided from the bytes: browsers are not to guess
    // another, and only media plays in place; anything else (a PDF, a vCard) downloads.
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_DISPOSITION,
        disposition(&key, &content_type),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-transform"),
    );
    if partial && length > 0 {
        let value = format!(
            "bytes {}-{}/{}",
            object.range.start,
            object.range.end - 1,
            object.size
        );
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::CONTENT_RANGE, value);
        }
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::disposition;

    #[test]
    fn media_plays_in_place_and_the_rest_downloads() {
        assert_eq!(
            disposition("tenants/1/media/0193-ab.wav", "audio/wav"),
            "inline; filename=\"0193-ab.wav\""
        );
        assert_eq!(
            disposition("tenants/1/mms/0193.pdf", "application/pdf"),
            "attachment; filename=\"0193.pdf\""
        );
        assert_eq!(
            disposition("tenants/1/mms/a\"b;c.vcf", "text/vcard"),
            "attachment; filename=\"abc.vcf\"",
            "nothing that could end the quoted name"
        );
    }
}
