//! `POST /v2/messaging/messages/upload-media`: files for MMS messages, each at most 3 MB,
//! typed from their bytes and streamed to object storage as they arrive: a file is never
//! held in memory beyond its first 64 KiB (needed to decide its type), and one byte over
//! the limit stops the upload whether the client sent a `Content-Length` or chunks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::http::HeaderMap;
use switchboard_domain::Location;
use switchboard_domain::ids::TenantId;
use switchboard_domain::validation::{ID, Raw, Rule};
use switchboard_storage::kinds::{self, SNIFF_BYTES};
use utoipa::ToSchema;

use crate::auth::caller::{Caller, MessagingSend};
use crate::error::{ApiError, ApiResult};
use crate::routes::media_files::{multipart_rejection, require_multipart};
use crate::state::AppState;
use crate::tenancy;

/// The largest file, in bytes: 3 MB as carriers count it (3 × 1024 × 1024 = 3,145,728).
pub const MAX_FILE_BYTES: usize = 3 * 1024 * 1024;
/// The most files in one upload.
pub const MAX_FILES: usize = 10;

/// The multipart form of an MMS media upload.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct MmsUpload {
    /// One or more files (repeat the field), each at most 3,145,728 bytes: JPEG, PNG, GIF,
    /// WebP, MP4/3GPP video, MP3/AMR/WAV audio, vCard or PDF, decided from the bytes.
    #[schema(value_type = Vec<String>, format = Binary)]
    pub files: Vec<Vec<u8>>,
    /// The tenant, for platform and partner admins (before the files); others use their own.
    #[schema(nullable = false, pattern = "^[1-9][0-9]*$")]
    pub tenant_id: Option<String>,
}

const TOO_LARGE: u8 = 1;
const MALFORMED: u8 = 2;

fn too_large() -> ApiError {
    ApiError::payload_too_large(format!("each file may be at most {MAX_FILE_BYTES} bytes"))
}

/// Streams one file to storage under a generated key, answering the key.
async fn store_file(state: &AppState, tenant: TenantId, mut field: Field<'_>) -> ApiResult<String> {
    let mut head = Vec::new();
    let mut ended = false;
    while head.len() < SNIFF_BYTES {
        match field.chunk().await.map_err(|e| {
            ApiError::bad_request(format!("malformed multipart body: {}", e.body_text()))
        })? {
            Some(chunk) => head.extend_from_slice(&chunk),
            None => {
                ended = true;
                break;
            }
        }
        if head.len() > MAX_FILE_BYTES {
            return Err(too_large());
        }
    }
    let kind = kinds::mms_kind(&head).map_err(|found| {
        ApiError::unsupported_media_type(format!(
            "a file of type {found} cannot be sent by MMS; carriers take JPEG, PNG, GIF, WebP, MP4, 3GPP, MP3, AMR, WAV, vCard and PDF"
        ))
    })?;
    let key = format!(
        "tenants/{}/mms/{}.{}",
        tenant.get(),
        uuid::Uuid::now_v7(),
        kind.extension()
    );
    let failure = Arc::new(AtomicU8::new(0));
    let flag = failure.clone();
    let mut total = head.len();
    let chunks = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(Bytes::from(head));
        if !ended {
            loop {
                match field.chunk().await {
                    Ok(Some(chunk)) => {
                        total += chunk.len();
                        if total > MAX_FILE_BYTES {
                            flag.store(TOO_LARGE, Ordering::SeqCst);
                            yield Err(std::io::Error::other("file too large"));
                            break;
                        }
                        yield Ok(chunk);
                    }
                    Ok(None) => break,
                    Err(_) => {
                        flag.store(MALFORMED, Ordering::SeqCst);
                        yield Err(std::io::Error::other("malformed multipart body"));
                        break;
                    }
                }
            }
        }
    };
    match state
        .storage
        .put_stream(&key, Box::pin(chunks), kind.content_type())
        .await
    {
        Ok(_) => Ok(key),
        Err(error) => Err(match failure.load(Ordering::SeqCst) {
            TOO_LARGE => too_large(),
            MALFORMED => ApiError::bad_request("malformed multipart body"),
            _ => ApiError::internal(error),
        }),
    }
}

/// Uploads media for MMS messages; answers their URLs, in order, as a flat array. The URLs
/// are signed and expire (see the decisions in the docs).
#[utoipa::path(post, path = "/v2/messaging/messages/upload-media", tag = "messaging",
    request_body(content = MmsUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The files' URLs, in the order sent", body = Vec<String>)))]
pub async fn upload_media(
    caller: Caller<MessagingSend>,
    State(state): State<AppState>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Vec<String>>> {
    require_multipart(&headers)?;
    let mut multipart = multipart.map_err(multipart_rejection)?;
    let mut named_tenant = None;
    let mut tenant = None;
    let mut keys = Vec::new();
    let outcome: ApiResult<()> = async {
        while let Some(field) = multipart.next_field().await.map_err(|e| {
            ApiError::bad_request(format!("malformed multipart body: {}", e.body_text()))
        })? {
            match field.name().unwrap_or_default() {
                "tenantId" => {
                    let text = field
                        .text()
                        .await
                        .map_err(|_| ApiError::bad_request("malformed multipart body"))?;
                    let id = ID
                        .check(Raw::Text(&text))
                        .map_err(|m| ApiError::invalid(Location::Body, "tenantId", &m))?;
                    named_tenant = Some(TenantId(id));
                }
                "files" => {
                    if keys.len() == MAX_FILES {
                        return Err(ApiError::invalid(
                            Location::Body,
                            "files",
                            &format!("must be at most {MAX_FILES} files"),
                        ));
                    }
                    let target = match tenant {
                        Some(t) => t,
                        None => {
                            // The caller's own tenant, or the `tenantId` field sent before the files.
                            let t =
                                tenancy::tenant_for_write(&state, &caller, named_tenant).await?;
                            tenant = Some(t);
                            t
                        }
                    };
                    keys.push(store_file(&state, target, field).await?);
                }
                _ => {}
            }
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        // Nothing half-done stays behind: the files already stored go too.
        for key in &keys {
            let _ = state.storage.delete(key).await;
        }
        return Err(error);
    }
    if keys.is_empty() {
        return Err(ApiError::invalid(Location::Body, "files", "is required"));
    }
    let mut urls = Vec::with_capacity(keys.len());
    for key in &keys {
        urls.push(
            state
                .storage
                .download_url(key, state.settings.mms_url_ttl)
                .await
                .map_err(ApiError::internal)?,
        );
    }
    Ok(Json(urls))
}
