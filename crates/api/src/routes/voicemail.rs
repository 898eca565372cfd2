//! `/v2/admin/voicemail-messages`: a tenant's voicemail, a user's own mailbox; listed
//! with optional stats, filed or marked read, deleted with its audio. Every answer
//! carries a short-lived signed URL of the audio.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde_json::Map;
use switchboard_app::tenancy;
use switchboard_db::voicemail::{self, VoicemailRow};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::VoicemailMessageId;
use switchboard_domain::records::voicemail::{UpdateVoicemail, VoicemailMessage, VoicemailStats};

use crate::auth::caller::{Caller, VoicemailRead, VoicemailWrite};
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, PathId};
use crate::listing;
use crate::routes::objects::media_url;
use crate::state::AppState;

/// A stored message as answered: with a fresh signed URL of its audio.
pub async fn present(state: &AppState, row: VoicemailRow) -> ApiResult<VoicemailMessage> {
    let media_url = media_url(state, row.audio_key.as_deref()).await?;
    Ok(row.into_message(media_url))
}

/// The voicemail list's envelope, as documented: the page with optional stats.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
struct VoicemailPage {
    /// The page's messages.
    records: Vec<VoicemailMessage>,
    /// Messages matching the filter.
    total_records: i64,
    /// This page's number.
    page: i64,
    /// The last page's number.
    max_page: i64,
    /// With `stats=1`: counts over the whole filter.
    stats: Option<VoicemailStats>,
}

/// Lists voicemail messages (a user sees its own mailbox only), filtered by tenant,
/// mailbox, read state and folder; `query` searches caller id, message id and transcript; `stats=1` adds counts over the
/// whole filter.
#[utoipa::path(get, operation_id = "listVoicemailMessages", path = "/v2/admin/voicemail-messages/", tag = "voicemail",
    params(ListParams<VoicemailMessage>),
    responses((status = 200, description = "A page of voicemail messages", body = VoicemailPage)))]
pub async fn list(
    caller: Caller<VoicemailRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<VoicemailMessage>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let (listing, stats) = voicemail::list(&state.db, &caller.scope, &filter, &query).await?;
    let mut extra = Map::new();
    if let Some(stats) = stats {
        extra.insert("stats".into(), serde_json::json!(stats));
    }
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond_with(
        presented,
        std::convert::identity,
        extra,
    ))
}

/// One voicemail message.
#[utoipa::path(get, operation_id = "getVoicemailMessage", path = "/v2/admin/voicemail-messages/{id}", tag = "voicemail",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Voicemail message id")),
    responses((status = 200, description = "The message", body = VoicemailMessage)))]
pub async fn get(
    caller: Caller<VoicemailRead>,
    State(state): State<AppState>,
    PathId(id): PathId<VoicemailMessageId>,
) -> ApiResult<Json<VoicemailMessage>> {
    let row = voicemail::get(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

/// Marks a message read or unread, or files it in another folder (`read` follows the
/// folder, as in Asterisk: INBOX and Urgent hold the unread ones).
#[utoipa::path(patch, operation_id = "updateVoicemailMessage", path = "/v2/admin/voicemail-messages/{id}", tag = "voicemail",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Voicemail message id")),
    request_body = UpdateVoicemail,
    responses((status = 200, description = "The message as it now is", body = VoicemailMessage)))]
pub async fn update(
    caller: Caller<VoicemailWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<VoicemailMessageId>,
    JsonBody(update): JsonBody<UpdateVoicemail>,
) -> ApiResult<Json<VoicemailMessage>> {
    let row = voicemail::update(&state.db, &caller.scope, id, &update).await?;
    Ok(Json(present(&state, row).await?))
}

/// Deletes a message and its audio, answering it as it was (its URL no longer fetches).
#[utoipa::path(delete, operation_id = "deleteVoicemailMessage", path = "/v2/admin/voicemail-messages/{id}", tag = "voicemail",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Voicemail message id")),
    responses((status = 200, description = "The deleted message", body = VoicemailMessage)))]
pub async fn delete(
    caller: Caller<VoicemailWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<VoicemailMessageId>,
) -> ApiResult<Json<VoicemailMessage>> {
    let row = voicemail::delete(&state.db, &caller.scope, id).await?;
    // Its audio goes through the job queue, queued with the delete: answered without a URL.
    let row = VoicemailRow {
        audio_key: None,
        ..row
    };
    Ok(Json(present(&state, row).await?))
}
