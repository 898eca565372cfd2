//! `/v2/messaging/messages`: the tenant's text messages — those the engine reported
//! (`/v2/ingest/sms`) and those sent here, which go through the engine work queue
//! (`/v2/engine/jobs/…`) and emit SMS_SENT when the engine reports them sent.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::texts::{self, TextRow};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::TextMessageId;
use switchboard_domain::list::Page;
use switchboard_domain::records::traffic::{SendText, TextMessage};

use crate::auth::caller::{Caller, MessagingRead, MessagingSend};
use crate::error::ApiResult;
use crate::extract::{JsonBody, ListParams, PathId};
use crate::listing;
use crate::state::AppState;

/// A stored text as answered: the media of a text sent here as links signed now (they
/// expire), those ingest reported as they came.
async fn present(state: &AppState, row: TextRow) -> ApiResult<TextMessage> {
    let keys: Vec<String> = serde_json::from_str(&row.media_keys).unwrap_or_default();
    let media_urls = if keys.is_empty() {
        serde_json::from_str(&row.media_urls).unwrap_or_default()
    } else {
        switchboard_app::texts::sign_media(state, &keys).await?
    };
    Ok(TextMessage {
        media_urls,
        id: row.id,
        tenant_id: row.tenant_id,
        message_id: row.message_id,
        direction: row.direction,
        from: row.from_number,
        to: row.to_number,
        body: row.body,
        status: row.status,
        time: row.time,
    })
}

/// Lists the texts in the caller's scope; `query` searches the text and the numbers.
#[utoipa::path(get, operation_id = "listTextMessages", path = "/v2/messaging/messages", tag = "messaging",
    params(ListParams<TextMessage>),
    responses((status = 200, description = "A page of texts", body = Page<TextMessage>)))]
pub async fn list(
    caller: Caller<MessagingRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<TextMessage>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = texts::list_texts(&state.db, &caller.scope, &filter, &query).await?;
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond(presented, std::convert::identity))
}

/// One text.
#[utoipa::path(get, operation_id = "getTextMessage", path = "/v2/messaging/messages/{id}", tag = "messaging",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The text's id")),
    responses((status = 200, description = "The text", body = TextMessage)))]
pub async fn get(
    caller: Caller<MessagingRead>,
    State(state): State<AppState>,
    PathId(id): PathId<TextMessageId>,
) -> ApiResult<Json<TextMessage>> {
    let row = texts::get_text(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

/// Sends a text from one of the tenant's SMS-enabled numbers (a number whose texts reach
/// an extension), with media the tenant uploaded: it is recorded `queued` and queued
/// for the engine, which reports it `sent` (SMS_SENT) or `failed`.
#[utoipa::path(post, operation_id = "sendTextMessage", path = "/v2/messaging/messages", tag = "messaging",
    request_body = SendText,
    responses((status = 200, description = "The queued text", body = TextMessage)))]
pub async fn send(
    caller: Caller<MessagingSend>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<SendText>,
) -> ApiResult<Json<TextMessage>> {
    let id = switchboard_app::texts::send_text(&state, &caller, body).await?;
    let row = texts::get_text(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}
