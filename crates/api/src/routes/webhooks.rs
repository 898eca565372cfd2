//! `/v2/webhooks`: where a tenant's events are posted. Credentials are sealed at rest and
//! answered masked; the Standard Webhooks signing secret is answered on create and by
//! `/{id}/signing-secret`, and `/{id}/rotate-secret` replaces it while the old one keeps
//! signing for 24 hours.

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::SecondsFormat;
use rand::RngCore;
use switchboard_app::tenancy;
use switchboard_db::audit::NewEntry;
use switchboard_db::webhooks::{self, WebhookRow, WebhookWrite};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::WebhookId;
use switchboard_domain::list::Page;
use switchboard_domain::records::webhook::{
    CreateWebhook, SigningSecret, TYPES, UpdateWebhook, Webhook, WebhookCreated, WebhookFields,
    WebhookType,
};

use crate::audit::{self, now};
use crate::auth::caller::{Caller, WebhooksRead, WebhooksWrite};
use crate::client::ClientAddress;
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, ListParams, Patch, PathId};
use crate::listing;
use crate::state::AppState;

/// How long the secret before a rotation keeps signing.
pub const ROTATION_OVERLAP_SECONDS: i64 = 24 * 3600;

fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("whsec_{}", STANDARD.encode(bytes))
}

fn secrets(state: &AppState, row: &WebhookRow) -> ApiResult<SigningSecret> {
    let seat = switchboard_db::seal::webhook_signing_secret(row.id.get());
    let open = |sealed: &str| {
        state
            .sealer
            .open(seat, sealed)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| ApiError::internal("a sealed webhook secret does not open"))
    };
    let live_previous = row.previous_secret_expires_at.filter(|at| *at > now());
    let previous = match (&row.previous_secret_sealed, live_previous) {
        (Some(sealed), Some(_)) => Some(open(sealed)?),
        _ => None,
    };
    Ok(SigningSecret {
        signing_secret: open(&row.signing_secret_sealed)?,
        previous_signing_secret: previous,
        previous_expires_at: live_previous
            .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
            .map(|at| at.to_rfc3339_opts(SecondsFormat::Secs, true)),
    })
}

/// The write of a body: an empty credential clears it.
fn write_of(fields: WebhookFields) -> WebhookWrite {
    let credential = |value: Option<String>| value.map(|v| (!v.is_empty()).then_some(v));
    WebhookWrite {
        kind: fields.kind.map(|k| k.as_str().to_owned()),
        url: fields.url,
        username: fields.username,
        password: credential(fields.password),
        authtoken: credential(fields.authtoken),
        enable: false,
    }
}

/// Every type a webhook can be registered for: the interface's eleven, then later areas'.
#[utoipa::path(get, operation_id = "listWebhookTypes", path = "/v2/webhooks/list-types", tag = "webhooks",
    responses((status = 200, description = "Every webhook type", body = Vec<WebhookType>)))]
pub async fn list_types(_caller: Caller) -> Json<Vec<WebhookType>> {
    Json(
        TYPES
            .iter()
            .map(|(kind, description)| WebhookType {
                kind: kind.as_str().into(),
                description: (*description).into(),
            })
            .collect(),
    )
}

/// Lists the webhooks in the caller's scope.
#[utoipa::path(get, operation_id = "listWebhooks", path = "/v2/webhooks/", tag = "webhooks",
    params(ListParams<Webhook>),
    responses((status = 200, description = "A page of webhooks", body = Page<Webhook>)))]
pub async fn list(
    caller: Caller<WebhooksRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Webhook>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = webhooks::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, WebhookRow::into_webhook))
}

/// Creates a webhook; the answer carries its signing secret.
#[utoipa::path(post, operation_id = "createWebhook", path = "/v2/webhooks/", tag = "webhooks",
    request_body = CreateWebhook,
    responses((status = 200, description = "The new webhook and its signing secret", body = WebhookCreated)))]
pub async fn create(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<CreateWebhook>,
) -> ApiResult<Json<WebhookCreated>> {
    let fields = WebhookFields::from(body);
    let tenant = tenancy::tenant_for_write(&state, &caller, fields.tenant_id).await?;
    let secret = new_secret();
    let row = webhooks::create(
        &state.db,
        tenant,
        write_of(fields),
        &state.sealer,
        &secret,
        now(),
    )
    .await?;
    Ok(Json(WebhookCreated {
        webhook: row.into_webhook(),
        signing_secret: secret,
    }))
}

/// One webhook.
#[utoipa::path(get, operation_id = "getWebhook", path = "/v2/webhooks/{id}", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id")),
    responses((status = 200, description = "The webhook", body = Webhook)))]
pub async fn get(
    caller: Caller<WebhooksRead>,
    State(state): State<AppState>,
    PathId(id): PathId<WebhookId>,
) -> ApiResult<Json<Webhook>> {
    Ok(Json(
        webhooks::get(&state.db, &caller.scope, id)
            .await?
            .into_webhook(),
    ))
}

/// Changes a webhook; an empty `password` or `authtoken` clears it. Any change (`{}`
/// included) enables a disabled webhook again: new events are delivered from then on.
#[utoipa::path(patch, operation_id = "updateWebhook", path = "/v2/webhooks/{id}", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id")),
    request_body = UpdateWebhook,
    responses((status = 200, description = "The changed webhook", body = Webhook)))]
pub async fn update(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    PathId(id): PathId<WebhookId>,
    patch: Patch<UpdateWebhook>,
) -> ApiResult<Json<Webhook>> {
    let before = webhooks::get(&state.db, &caller.scope, id).await?;
    let fields = WebhookFields::from(patch.against(&before.clone().into_webhook())?);
    let write = WebhookWrite {
        enable: true,
        ..write_of(fields)
    };
    let row = webhooks::update(&state.db, &caller.scope, id, write, &state.sealer).await?;
    if let Some(reason) = before
        .disabled_reason
        .filter(|_| before.disabled_at.is_some())
    {
        // Who turned deliveries back on, beside the entry that says why they stopped.
        audit::record(
            &state,
            NewEntry {
                action: "webhook.enabled",
                entity: "webhook",
                entity_id: Some(id.to_string()),
                tenant_id: Some(row.tenant_id),
                user_id: Some(caller.user_id),
                client_address: address,
                details: serde_json::json!({"url": row.url, "disabledReason": reason}),
                ..NewEntry::default()
            },
        )
        .await;
    }
    Ok(Json(row.into_webhook()))
}

/// Deletes a webhook, answering it as it was.
#[utoipa::path(delete, operation_id = "deleteWebhook", path = "/v2/webhooks/{id}", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id")),
    responses((status = 200, description = "The deleted webhook", body = Webhook)))]
pub async fn delete(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<WebhookId>,
) -> ApiResult<Json<Webhook>> {
    Ok(Json(
        webhooks::delete(&state.db, &caller.scope, id)
            .await?
            .into_webhook(),
    ))
}

/// The webhook's signing secret (and the previous one while it still signs).
#[utoipa::path(get, operation_id = "getWebhookSigningSecret", path = "/v2/webhooks/{id}/signing-secret", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id")),
    responses((status = 200, description = "The signing secrets", body = SigningSecret)))]
pub async fn signing_secret(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<WebhookId>,
) -> ApiResult<Json<SigningSecret>> {
    let row = webhooks::get(&state.db, &caller.scope, id).await?;
    Ok(Json(secrets(&state, &row)?))
}

/// Replaces the signing secret; deliveries are signed with both for 24 hours, so receivers
/// can switch without losing events.
#[utoipa::path(post, operation_id = "rotateWebhookSecret", path = "/v2/webhooks/{id}/rotate-secret", tag = "webhooks",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Webhook id")),
    responses((status = 200, description = "The new secret, and the old one until it stops", body = SigningSecret)))]
pub async fn rotate_secret(
    caller: Caller<WebhooksWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<WebhookId>,
) -> ApiResult<Json<SigningSecret>> {
    let row = webhooks::rotate(
        &state.db,
        &caller.scope,
        id,
        &state.sealer,
        &new_secret(),
        now() + ROTATION_OVERLAP_SECONDS,
    )
    .await?;
    Ok(Json(secrets(&state, &row)?))
}
