//! `POST /v2/messaging/messages/upload-media`: files for MMS messages, each at most 3 MB,
//! typed from their bytes and streamed to object storage as they arrive: a file is never
//! held in memory beyond its first 64 KiB (needed to decide its type), and one byte over
//! the limit stops the upload whether the client sent a `Content-Length` or chunks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::http::HeaderMap;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::mms_media::{self, MmsMediaRow, StoredFile, Uploader};
use switchboard_domain::Location;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{MmsMediaId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::mms_media::MmsMedia;
use switchboard_domain::validation::{ID, Raw, Rule};
use switchboard_storage::kinds::{self, SNIFF_BYTES};
use utoipa::ToSchema;

use crate::auth::caller::{Caller, MessagingSend};
use crate::error::{ApiError, ApiResult};
use crate::extract::{ListParams, PathId};
use crate::routes::media_files::{multipart_rejection, require_multipart};
use crate::state::AppState;
use crate::{guard, listing};

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

/// Streams one file to storage under a generated key, answering what was stored.
async fn store_file(
    state: &AppState,
    tenant: TenantId,
    mut field: Field<'_>,
) -> ApiResult<StoredFile> {
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
    // Pledged before storing: a dropped connection before the record leaves no object.
    let pledge = guard::pledge_upload_object(state, &key).await?;
    let failure = Arc::new(AtomicU8::new(0));
    let flag = failure.clone();
    let size = Arc::new(AtomicUsize::new(0));
    let measured = size.clone();
    let mut total = head.len();
    let chunks = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(Bytes::from(head));
        if ended {
            measured.store(total, Ordering::SeqCst);
        } else {
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
                    Ok(None) => {
                        measured.store(total, Ordering::SeqCst);
                        break;
                    }
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
        Ok(_) => Ok(StoredFile {
            key,
            content_type: kind.content_type().to_owned(),
            bytes: i64::try_from(size.load(Ordering::SeqCst)).unwrap_or(i64::MAX),
            pledge,
        }),
        Err(error) => {
            guard::abandon_upload_objects(state, &[pledge]).await;
            Err(match failure.load(Ordering::SeqCst) {
                TOO_LARGE => too_large(),
                MALFORMED => ApiError::bad_request("malformed multipart body"),
                _ => error.into(),
            })
        }
    }
}

/// Uploads media for MMS messages; answers their URLs, in order, as a flat array. The URLs
/// are signed and expire (see the decisions in the docs).
#[utoipa::path(post, operation_id = "uploadMessagingMedia", path = "/v2/messaging/messages/upload-media", tag = "messaging",
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
    let mut files: Vec<StoredFile> = Vec::new();
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
                    if files.len() == MAX_FILES {
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
                    files.push(store_file(&state, target, field).await?);
                }
                _ => {}
            }
        }
        Ok(())
    }
    .await;
    if let Err(error) = outcome {
        // Nothing half-done stays behind: the files already stored go too.
        forget(&state, &files).await;
        return Err(error);
    }
    let Some(tenant) = tenant.filter(|_| !files.is_empty()) else {
        return Err(ApiError::invalid(Location::Body, "files", "is required"));
    };
    let uploader = switchboard_db::users::find(&state.db, caller.user_id)
        .await?
        .ok_or_else(|| ApiError::unauthorized("the account no longer exists"))?;
    let now = chrono::Utc::now().timestamp();
    let expires_at = now.saturating_add(state.settings.mms_retention_seconds);
    let recorded = mms_media::record(
        &state.db,
        tenant,
        &Uploader {
            user_id: caller.user_id,
            email: uploader.email,
        },
        &files,
        (now, expires_at),
        state.settings.mms_quota_bytes,
    )
    .await;
    let refused = match recorded {
        Ok(Ok(_)) => None,
        Ok(Err(over)) => Some(ApiError::payload_too_large(format!(
            "the tenant's MMS media quota of {} bytes would be exceeded: {} bytes are in use and this upload needs {}; delete uploads to make room",
            over.quota, over.used, over.wanted
        ))),
        Err(error) => Some(error.into()),
    };
    if let Some(error) = refused {
        forget(&state, &files).await;
        return Err(error);
    }
    let keys: Vec<String> = files.iter().map(|file| file.key.clone()).collect();
    Ok(Json(
        switchboard_app::texts::sign_media(&state, &keys).await?,
    ))
}

/// Deletes what an upload stored when it is not kept (refused, or failed half-way),
/// through the pledged deletions (made due now), so a store failure is retried too.
async fn forget(state: &AppState, files: &[StoredFile]) {
    let pledges: Vec<i64> = files.iter().map(|file| file.pledge).collect();
    guard::abandon_upload_objects(state, &pledges).await;
}

/// An upload as answered: with a fresh signed URL.
async fn present(state: &AppState, row: MmsMediaRow) -> ApiResult<MmsMedia> {
    let url = state
        .storage
        .download_url(&row.object_key, state.settings.mms_url_ttl)
        .await?;
    Ok(row.into_media(url))
}

/// Lists MMS media uploads (a branch admin sees its branch's users' uploads, a user its
/// own); `query` searches the content type, the uploader's e-mail and the key.
#[utoipa::path(get, operation_id = "listMessagingMedia", path = "/v2/messaging/media/", tag = "messaging",
    params(ListParams<MmsMedia>),
    responses((status = 200, description = "A page of uploads", body = Page<MmsMedia>)))]
pub async fn list_media(
    caller: Caller<MessagingSend>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<MmsMedia>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = mms_media::list(&state.db, &caller.scope, &filter, &query).await?;
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond(presented, std::convert::identity))
}

/// Deletes an upload: its record at once (its bytes leave the quota), its file through
/// the job queue; answers it as it was.
#[utoipa::path(delete, operation_id = "deleteMessagingMedia", path = "/v2/messaging/media/{id}", tag = "messaging",
    params(("id" = i64, Path, minimum = 1, description = "The upload's id")),
    responses((status = 200, description = "The deleted upload", body = MmsMedia)))]
pub async fn delete_media(
    caller: Caller<MessagingSend>,
    State(state): State<AppState>,
    PathId(id): PathId<MmsMediaId>,
) -> ApiResult<Json<MmsMedia>> {
    let row = mms_media::delete(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}
