//! `/v2/ingest/…`: the telephony engine pushes what it produces — voicemail messages,
//! call progress with recordings, text messages and faxes — as it happens. Platform
//! admins, or the engine with the configured service token (`SWITCHBOARD_INGEST_TOKEN`),
//! may push; the importers record through the same code ([`switchboard_app::engine`]).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request, State};
use serde::Serialize;
use serde_json::Value;
use switchboard_app::engine::{self, MessageAudio};
use switchboard_app::faxes;
use switchboard_app::tenancy::{self, Referenced};
use switchboard_db::crud::Recorded;
use switchboard_db::{calls, texts, voicemail};
use switchboard_domain::Location;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::call::{IngestCall, MAX_RECORDING_BYTES};
use switchboard_domain::records::fax::MAX_DOCUMENT_BYTES;
use switchboard_domain::records::traffic::{IngestFax, IngestSms};
use switchboard_domain::records::voicemail::IngestVoicemail;
use switchboard_storage::audio;
use utoipa::ToSchema;

use crate::audit::now;
use crate::auth::caller::{Caller, IngestWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::Checked;
use crate::guard;
use crate::routes::media_files::{multipart_error, multipart_rejection};
use crate::state::AppState;

/// Largest voicemail audio accepted, in bytes (an hour of 8 kHz 16-bit WAV).
pub const MAX_VOICEMAIL_AUDIO_BYTES: usize = 64 * 1024 * 1024;

/// Largest JSON part of a multipart push: the record's fields, not its audio.
const MAX_FIELDS_BYTES: usize = 64 * 1024;

/// A pushed record: its JSON description and, in a multipart body, its audio (or a
/// fax's document).
struct Pushed {
    fields: Value,
    audio: Option<Bytes>,
}

fn is_multipart(request: &Request) -> Option<bool> {
    match crate::media_type::sent(request.headers())?.essence_str() {
        "application/json" => Some(false),
        "multipart/form-data" => Some(true),
        _ => None,
    }
}

fn malformed(error: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!("malformed JSON: {error}"))
}

/// Reads a JSON body, or a multipart body with the JSON in part `fields_part` and the
/// audio in part `audio_part` (at most `limit` bytes).
async fn read_pushed(
    request: Request,
    state: &AppState,
    fields_part: &str,
    audio_part: &str,
    limit: usize,
) -> ApiResult<Pushed> {
    match is_multipart(&request) {
        Some(false) => {
            // The route takes large audio; a JSON body gets the ordinary limit.
            let limit = state.settings.body_limit;
            let bytes = axum::body::to_bytes(request.into_body(), limit)
                .await
                .map_err(|_| {
                    ApiError::payload_too_large(format!(
                        "the JSON body is larger than {limit} bytes"
                    ))
                })?;
            let fields = serde_json::from_slice(&bytes).map_err(malformed)?;
            Ok(Pushed {
                fields,
                audio: None,
            })
        }
        Some(true) => {
            let mut multipart = Multipart::from_request(request, state)
                .await
                .map_err(multipart_rejection)?;
            let mut fields = None;
            let mut audio = None;
            while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
                let name = field.name().unwrap_or_default().to_owned();
                let part_limit = if name == fields_part {
                    MAX_FIELDS_BYTES
                } else if name == audio_part {
                    limit
                } else {
                    return Err(ApiError::invalid(
                        Location::Body,
                        &name,
                        &format!(
                            "is not a part of this body (expected {fields_part} and {audio_part})"
                        ),
                    ));
                };
                let mut bytes = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
                    if bytes.len() + chunk.len() > part_limit {
                        return Err(ApiError::payload_too_large(format!(
                            "part {name} is larger than {part_limit} bytes"
                        )));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                if name == fields_part {
                    fields = Some(serde_json::from_slice(&bytes).map_err(malformed)?);
                } else {
                    audio = Some(Bytes::from(bytes));
                }
            }
            let fields = fields
                .ok_or_else(|| ApiError::invalid(Location::Body, fields_part, "is required"))?;
            Ok(Pushed { fields, audio })
        }
        None => Err(ApiError::unsupported_media_type(
            "the body must be application/json or multipart/form-data",
        )),
    }
}

/// Passes `written` through; when its transaction failed, first deletes the audio this
/// push stored (no record refers to it: its key is unique to the upload).
async fn forget_on_failure<T>(
    state: &AppState,
    stored: &[String],
    written: switchboard_db::Result<T>,
) -> ApiResult<T> {
    if written.is_err() {
        for key in stored {
            if let Err(error) = state.storage.delete(key).await {
                tracing::warn!(%error, key, "could not delete the audio of a failed push");
            }
        }
    }
    Ok(written?)
}

/// The tenant a checked report was found to name (its rules ran without a problem).
fn checked_tenant(tenant: Option<TenantId>) -> ApiResult<TenantId> {
    tenant.ok_or_else(|| ApiError::internal("a checked report names no tenant"))
}

/// What a push recorded.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestResult {
    /// Whether the push changed anything (`false` for a repeat: pushing twice is safe).
    pub recorded: bool,
    /// The record's id.
    pub id: i64,
    /// Calls: the call's status after the push (`started`, `answered`, `ended`, `missed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Calls: whether a recording was attached by this push.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording_attached: Option<bool>,
}

impl IngestResult {
    /// The answer for a record recorded once (a voicemail message, a text, a fax).
    pub(crate) fn of(recorded: Recorded) -> IngestResult {
        IngestResult {
            recorded: recorded.new,
            id: recorded.id,
            status: None,
            recording_attached: None,
        }
    }
}

/// The multipart form of a voicemail push, for the API document.
#[derive(ToSchema)]
#[allow(dead_code)]
struct VoicemailPush {
    /// The message's fields (JSON).
    message: IngestVoicemail,
    /// Its audio: WAV, MP3 or Ogg.
    #[schema(value_type = Option<String>, format = Binary, content_media_type = "application/octet-stream")]
    audio: Option<Vec<u8>>,
}

/// The multipart form of a call push, for the API document.
#[derive(ToSchema)]
#[allow(dead_code)]
struct CallPush {
    /// The call report (JSON).
    call: IngestCall,
    /// Its recording: WAV (transcoded to MP3) or MP3.
    #[schema(value_type = Option<String>, format = Binary, content_media_type = "application/octet-stream")]
    recording: Option<Vec<u8>>,
}

/// Records a voicemail message left on the engine (JSON, or multipart with parts
/// `message` and `audio`); emits VOICEMAIL_RECEIVED. A message already recorded (same
/// tenant, context, mailbox and msgId) is answered with `recorded: false`.
#[utoipa::path(post, operation_id = "ingestVoicemailMessage", path = "/v2/ingest/voicemail-messages", tag = "ingest",
    request_body(content(
        (IngestVoicemail = "application/json"),
        (VoicemailPush = "multipart/form-data"),
    )),
    responses((status = 200, description = "What was recorded", body = IngestResult)))]
pub async fn voicemail(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    request: Request,
) -> ApiResult<Json<IngestResult>> {
    let pushed = read_pushed(
        request,
        &state,
        "message",
        "audio",
        MAX_VOICEMAIL_AUDIO_BYTES,
    )
    .await?;
    let mut tenant = None;
    let mut message = Checked::<IngestVoicemail>::read(&pushed.fields)
        .check(async |message, problems| {
            tenant = tenancy::reported_tenant(&state, &caller, message.tenant_id, problems).await?;
            if let Some(tenant) = tenant {
                // The record will belong to the tenant: a stray extension id would hand
                // it to nobody (or, worse, to whoever holds that id).
                let extension = message.extension_id.map(|e| e.get());
                tenancy::check_reference(
                    &state,
                    tenant,
                    Referenced::Extension,
                    "extensionId",
                    extension,
                    problems,
                )
                .await?;
            }
            Ok(())
        })
        .await?
        .into_new();
    message.tenant = checked_tenant(tenant)?;
    let known = voicemail::exists(
        &state.db,
        message.tenant,
        &message.mailbox_context,
        &message.mailbox_user,
        &message.msg_id,
    )
    .await?;
    if !known && let Some(bytes) = pushed.audio {
        // Raw GSM (Asterisk's `gsm`) has no header to sniff; it is told by its frames.
        let (content_type, extension) = match audio::sniff(&bytes) {
            Some(format) => (format.content_type(), format.extension()),
            None if audio::gsm(&bytes) == Some(audio::Gsm::Raw) => ("audio/x-gsm", "gsm"),
            None => {
                return Err(ApiError::unsupported_media_type(
                    "the audio must be WAV (PCM or GSM), raw GSM, MP3 or Ogg",
                ));
            }
        };
        let audio = MessageAudio {
            bytes,
            content_type,
            extension,
        };
        engine::store_voicemail_audio(&state.storage, &mut message, audio).await?;
    }
    let stored: Vec<String> = [&message.audio, &message.original_audio]
        .into_iter()
        .flatten()
        .map(|(key, _)| key.clone())
        .collect();
    let written = async {
        let mut tx = state.db.begin().await?;
        let recorded = voicemail::record(&mut tx, message, now()).await?;
        tx.commit().await?;
        Ok::<_, switchboard_db::Error>(recorded)
    };
    let recorded = forget_on_failure(&state, &stored, written.await).await?;
    Ok(Json(IngestResult::of(recorded)))
}

/// Records a step of a call (JSON, or multipart with parts `call` and `recording`):
/// `started`, `answered` or `ended` emit CALL_STARTED, CALL_ANSWERED and CALL_ENDED (or
/// CALL_MISSED when it was never answered); a report that does not move the call forward
/// changes nothing of its status. Any report may name the queue the call passed through
/// (the first named stays) and carry its transfers (each recorded once, however often
/// reported). A recording (WAV or MP3, stored as MP3) emits RECORDING_READY.
#[utoipa::path(post, operation_id = "ingestCall", path = "/v2/ingest/calls", tag = "ingest",
    request_body(content(
        (IngestCall = "application/json"),
        (CallPush = "multipart/form-data"),
    )),
    responses((status = 200, description = "What was recorded", body = IngestResult)))]
pub async fn call(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    request: Request,
) -> ApiResult<Json<IngestResult>> {
    let pushed = read_pushed(request, &state, "call", "recording", MAX_RECORDING_BYTES).await?;
    let mut tenant = None;
    let mut report = Checked::<IngestCall>::read(&pushed.fields)
        .check(async |call, problems| {
            tenant = tenancy::reported_tenant(&state, &caller, call.tenant_id, problems).await?;
            let Some(tenant) = tenant else {
                return Ok(());
            };
            let named = [
                ("callerExtensionId".to_owned(), call.caller_extension_id),
                ("calleeExtensionId".to_owned(), call.callee_extension_id),
            ];
            let transferred = call.transfers.iter().enumerate().flat_map(|(i, transfer)| {
                [
                    (
                        format!("transfers/{i}/fromExtensionId"),
                        transfer.from_extension_id,
                    ),
                    (
                        format!("transfers/{i}/toExtensionId"),
                        transfer.to_extension_id,
                    ),
                ]
            });
            for (field, extension) in named.into_iter().chain(transferred) {
                let extension = extension.map(|e| e.get());
                tenancy::check_reference(
                    &state,
                    tenant,
                    Referenced::Extension,
                    &field,
                    extension,
                    problems,
                )
                .await?;
            }
            let queue = call.queue_id.map(|q| q.get());
            Ok(tenancy::check_reference(
                &state,
                tenant,
                Referenced::Queue,
                "queueId",
                queue,
                problems,
            )
            .await?)
        })
        .await?
        .into_report();
    report.tenant = checked_tenant(tenant)?;
    let known = calls::find(&state.db, report.tenant, &report.unique_id).await?;
    let has_recording = known.as_ref().is_some_and(|c| c.recording_key.is_some());
    let mut recording = None;
    if !has_recording && let Some(bytes) = pushed.audio {
        let converted = engine::recording_to_mp3(bytes)
            .await
            .map_err(ApiError::unsupported_media_type)?;
        let size = i64::try_from(converted.mp3.len()).unwrap_or(i64::MAX);
        let key = engine::store_recording(
            &state.storage,
            report.tenant,
            &report.unique_id,
            converted.mp3,
        )
        .await?;
        recording = Some(engine::StoredRecording {
            key,
            bytes: size,
            seconds: converted.seconds,
        });
    }
    let written = async {
        let mut tx = state.db.begin().await?;
        let outcome = engine::record_call(&mut tx, &report, recording.as_ref(), now()).await?;
        tx.commit().await?;
        Ok::<_, switchboard_db::Error>(outcome)
    };
    let stored: Vec<String> = recording.iter().map(|r| r.key.clone()).collect();
    let outcome = forget_on_failure(&state, &stored, written.await).await?;
    let recorded = outcome.recorded();
    let call = match outcome.call {
        Some(call) => call,
        None => calls::find(&state.db, report.tenant, &report.unique_id)
            .await?
            .ok_or_else(|| ApiError::internal("a recorded call vanished"))?,
    };
    Ok(Json(IngestResult {
        recorded,
        id: call.id.get(),
        status: Some(call.status),
        recording_attached: Some(outcome.recording_attached),
    }))
}

/// Records a text message the engine sent or received; emits SMS_RECEIVED (inbound) or
/// SMS_SENT (outbound). A message already recorded (same tenant and messageId) is
/// answered with `recorded: false`.
#[utoipa::path(post, operation_id = "ingestSms", path = "/v2/ingest/sms", tag = "ingest",
    request_body = IngestSms,
    responses((status = 200, description = "What was recorded", body = IngestResult)))]
pub async fn sms(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    body: Checked<IngestSms>,
) -> ApiResult<Json<IngestResult>> {
    let mut tenant = None;
    let mut sms = body
        .check(async |sms, problems| {
            tenant = tenancy::reported_tenant(&state, &caller, sms.tenant, problems).await?;
            Ok(())
        })
        .await?;
    sms.tenant = checked_tenant(tenant)?;
    let mut tx = state.db.begin().await?;
    let recorded = texts::record_sms(&mut tx, sms, now()).await?;
    tx.commit().await?;
    Ok(Json(IngestResult::of(recorded)))
}

/// The multipart form of a fax push, for the API document.
#[derive(ToSchema)]
#[allow(dead_code)]
struct FaxPush {
    /// The fax's fields (JSON).
    fax: IngestFax,
    /// Its document: a PDF that parses, or a TIFF, at most 20 MiB.
    #[schema(value_type = Option<String>, format = Binary, content_media_type = "application/octet-stream")]
    document: Option<Vec<u8>>,
}

/// Records a fax the engine sent or received (JSON, or multipart with parts `fax` and
/// `document`); emits FAX_RECEIVED (inbound) or FAX_SENT (outbound). A document — a PDF
/// that parses or a TIFF, at most 20 MiB; anything else is a 415 and nothing is stored —
/// is kept with the fax, which then answers a signed `documentURL`; a PDF's page count
/// stands in for `pages` when the engine reported none. A fax already recorded (same
/// tenant and faxId) is answered with `recorded: false`, its document left as it was.
#[utoipa::path(post, operation_id = "ingestFax", path = "/v2/ingest/faxes", tag = "ingest",
    request_body(content(
        (IngestFax = "application/json"),
        (FaxPush = "multipart/form-data"),
    )),
    responses((status = 200, description = "What was recorded", body = IngestResult)))]
pub async fn fax(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    request: Request,
) -> ApiResult<Json<IngestResult>> {
    let pushed = read_pushed(request, &state, "fax", "document", MAX_DOCUMENT_BYTES).await?;
    let mut tenant = None;
    let mut fax = Checked::<IngestFax>::read(&pushed.fields)
        .check(async |fax, problems| {
            tenant = tenancy::reported_tenant(&state, &caller, fax.tenant, problems).await?;
            Ok(())
        })
        .await?;
    fax.tenant = checked_tenant(tenant)?;
    let mut document = None;
    if let Some(bytes) = pushed.audio
        && !switchboard_db::faxes::fax_exists(&state.db, fax.tenant, &fax.fax_id).await?
    {
        let stored = faxes::store_document(&state, fax.tenant, bytes).await?;
        if fax.pages == 0
            && let Some(pages) = stored.pages
        {
            fax.pages = pages;
        }
        document = Some(switchboard_db::faxes::FaxDocument {
            key: stored.key,
            content_type: stored.content_type,
            bytes: stored.bytes,
            pledge: stored.pledge,
        });
    }
    let written = async {
        let mut tx = state.db.begin().await?;
        let recorded =
            switchboard_db::faxes::record_fax(&mut tx, fax, document.as_ref(), now()).await?;
        tx.commit().await?;
        Ok::<_, switchboard_db::Error>(recorded)
    }
    .await;
    // A document not kept (the write failed, or a concurrent push of the same fax was
    // recorded first) goes now rather than when its pledge falls due.
    let kept = written.as_ref().is_ok_and(|recorded| recorded.new);
    if let Some(document) = document.as_ref().filter(|_| !kept) {
        guard::abandon_upload_objects(&state, &[document.pledge]).await;
    }
    let recorded = written?;
    Ok(Json(IngestResult::of(recorded)))
}
