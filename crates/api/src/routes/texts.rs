//! `/v2/messaging/messages`: the tenant's text messages — those the engine reported
//! (`/v2/ingest/sms`) and those sent here, which go through the engine work queue
//! (`/v2/engine/jobs/…`) and emit SMS_SENT when the engine reports them sent.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use switchboard_app::tenancy;
use switchboard_db::mms_media;
use switchboard_db::texts::{self, OutgoingSms, TextRow};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::list::Page;
use switchboard_domain::records::traffic::{SendText, TextMessage};
use switchboard_domain::{Location, Problems};

use crate::audit::now;
use crate::auth::caller::{Caller, MessagingRead, MessagingSend};
use crate::error::{ApiError, ApiResult};
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
        sign_media(state, &keys).await?
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

/// Links to the MMS media stored at `keys`, signed now for as long as MMS links last
/// (carriers fetch the media when the text goes out).
pub(crate) async fn sign_media(state: &AppState, keys: &[String]) -> ApiResult<Vec<String>> {
    let mut urls = Vec::with_capacity(keys.len());
    for key in keys {
        urls.push(
            state
                .storage
                .download_url(key, state.settings.mms_url_ttl)
                .await?,
        );
    }
    Ok(urls)
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
    PathId(id): PathId<i64>,
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
    let tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
    let mut problems = Problems::new();
    if body.body.trim().is_empty() && body.media_ids.is_empty() {
        problems.add(
            Location::Body,
            "body",
            "is required when no mediaIds are sent",
        );
    }
    let spellings = tenancy::number_spellings(&state, tenant, &body.from).await?;
    let line = texts::sms_line(&state.db, &caller.scope, tenant, &spellings).await?;
    if line.is_none() {
        problems.add(
            Location::Body,
            "from",
            "must be an SMS-enabled phone number of the tenant whose texts reach an extension \
             you reach (your own, as a user; your branch's, as a branch admin)",
        );
    }
    let mut media_keys = Vec::new();
    for (i, id) in body.media_ids.iter().enumerate() {
        match mms_media::get(&state.db, &caller.scope, *id).await {
            Ok(file) if file.tenant_id == tenant.get() => media_keys.push(file.object_key),
            Ok(_) | Err(switchboard_db::Error::NotFound) => problems.add(
                Location::Body,
                &format!("mediaIds/{i}"),
                "must name an upload of the tenant",
            ),
            Err(error) => return Err(error.into()),
        }
    }
    if !problems.is_empty() {
        return Err(ApiError::validation(problems));
    }
    let Some(from) = line else {
        return Err(ApiError::internal("a checked line went missing"));
    };
    let sms = OutgoingSms {
        tenant,
        // The line as the tenant stores it, however the sender wrote it.
        from,
        to: body.to,
        body: body.body,
        media_urls: sign_media(&state, &media_keys).await?,
        media_keys,
    };
    let mut tx = state.db.begin().await?;
    let id = texts::queue_sms(&mut tx, &sms, now()).await?;
    tx.commit().await?;
    let row = texts::get_text(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}
