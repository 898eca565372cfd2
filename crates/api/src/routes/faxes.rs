//! `/v2/admin/faxes`: the tenant's faxes — those the engine reported and those sent here
//! (a PDF that parses, or a TIFF, from a fax-enabled number of the tenant), sent through
//! the engine work queue attempt by attempt under the tenant's retry policy; a failed fax
//! is retried by hand at `GET /faxes/retry/{id}`.

use std::collections::HashMap;

use axum::Json;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use switchboard_app::faxes::{self as app, FaxToSend};
use switchboard_app::tenancy;
use switchboard_db::faxes::{self, FaxRow};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{FaxId, TenantId};
use switchboard_domain::list::Page;
use switchboard_domain::records::fax::{
    Fax, FaxRetryPolicy, MAX_DOCUMENT_BYTES, PARTY, SetFaxRetryPolicy,
};
use switchboard_domain::validation::{ID, Raw, Rule};
use switchboard_domain::{Location, Problems};
use utoipa::ToSchema;

use crate::audit::now;
use crate::auth::caller::{Caller, FaxesRead, FaxesWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, ListParams, PathId};
use crate::listing;
use crate::routes::media_files::{
    field_text, multipart_error, multipart_rejection, read_limited, require_multipart,
};
use crate::state::AppState;

/// A fax as answered: with a fresh signed link to its document and its attempts.
async fn present(state: &AppState, row: FaxRow) -> ApiResult<Fax> {
    let document_url = match &row.document_key {
        Some(key) => Some(
            state
                .storage
                .download_url(key, state.settings.media_url_ttl)
                .await?,
        ),
        None => None,
    };
    // Only faxes sent here have attempts: outbound, with a document (a received fax may
    // have a document too).
    let attempts = if row.document_key.is_some() && row.direction == "outbound" {
        faxes::attempts(&state.db, row.id).await?
    } else {
        Vec::new()
    };
    Ok(row.into_fax(document_url, attempts))
}

/// Lists the faxes in the caller's scope; `query` searches the numbers and the fax id.
#[utoipa::path(get, operation_id = "listFaxes", path = "/v2/admin/faxes", tag = "faxes",
    params(ListParams<Fax>),
    responses((status = 200, description = "A page of faxes", body = Page<Fax>)))]
pub async fn list(
    caller: Caller<FaxesRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<Fax>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = faxes::list(&state.db, &caller.scope, &filter, &query).await?;
    let presented = listing::map_async(listing, move |row| {
        let state = state.clone();
        async move { present(&state, row).await }
    })
    .await?;
    Ok(listing::respond(presented, std::convert::identity))
}

/// One fax, with its attempts and a signed link to its document.
#[utoipa::path(get, operation_id = "getFax", path = "/v2/admin/faxes/{id}", tag = "faxes",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The fax's id")),
    responses((status = 200, description = "The fax", body = Fax)))]
pub async fn get(
    caller: Caller<FaxesRead>,
    State(state): State<AppState>,
    PathId(id): PathId<FaxId>,
) -> ApiResult<Json<Fax>> {
    let row = faxes::get(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

/// Deletes a fax with its document; a sending still queued is cancelled.
#[utoipa::path(delete, operation_id = "deleteFax", path = "/v2/admin/faxes/{id}", tag = "faxes",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The fax's id")),
    responses((status = 200, description = "The deleted fax", body = Fax)))]
pub async fn delete(
    caller: Caller<FaxesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<FaxId>,
) -> ApiResult<Json<Fax>> {
    let row = faxes::get(&state.db, &caller.scope, id).await?;
    let answer = present(&state, row).await?;
    faxes::delete(&state.db, &caller.scope, id, now()).await?;
    Ok(Json(Fax {
        document_url: None,
        ..answer
    }))
}

/// The multipart form of a fax to send.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct FaxUpload {
    /// The document: a PDF (refused unless it parses) or a TIFF, at most 20 MiB.
    #[schema(value_type = String, format = Binary)]
    pub document: Vec<u8>,
    /// The recipient.
    #[schema(min_length = 1, max_length = 64, pattern = "^[^\\u0000]*$")]
    pub to: String,
    /// One of the tenant's fax-enabled numbers.
    #[schema(min_length = 1, max_length = 64, pattern = "^[^\\u0000]*$")]
    pub from: String,
    /// The tenant, for platform and partner admins; others use their own.
    #[schema(nullable = false, pattern = "^[1-9][0-9]*$")]
    pub tenant_id: Option<String>,
}

/// Sends a fax (multipart: `document`, `to`, `from`, optional `tenantId`): the document
/// is stored and the fax queued for the engine (`queued` → `sending` → `sent` or
/// `failed`, attempt by attempt under the tenant's retry policy).
#[utoipa::path(post, operation_id = "sendFax", path = "/v2/admin/faxes", tag = "faxes",
    request_body(content = FaxUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The queued fax", body = Fax)))]
pub async fn send(
    caller: Caller<FaxesWrite>,
    State(state): State<AppState>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<Fax>> {
    require_multipart(&headers)?;
    let mut multipart = multipart.map_err(multipart_rejection)?;
    let mut problems = Problems::new();
    let (mut document, mut to, mut from, mut tenant_id) = (None, None, None, None);
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        if name == "document" {
            document = Some(read_limited(field, MAX_DOCUMENT_BYTES).await?);
            continue;
        }
        let value = String::from_utf8(read_limited(field, 64 * 1024).await?)
            .map_err(|_| ApiError::invalid(Location::Body, &name, "must be UTF-8 text"))?;
        match name.as_str() {
            "to" => to = field_text(&value, "to", &PARTY, &mut problems),
            "from" => from = field_text(&value, "from", &PARTY, &mut problems),
            "tenantId" => match ID.check(Raw::Text(&value)) {
                Ok(id) => tenant_id = Some(TenantId(id)),
                Err(message) => problems.add(Location::Body, "tenantId", message),
            },
            _ => {}
        }
    }
    for (present, name) in [
        (document.is_some(), "document"),
        (to.is_some() || problems.names(Location::Body, "to"), "to"),
        (
            from.is_some() || problems.names(Location::Body, "from"),
            "from",
        ),
    ] {
        if !present {
            problems.add(Location::Body, name, "is required");
        }
    }
    if !problems.is_empty() {
        return Err(ApiError::validation(problems));
    }
    let (Some(document), Some(to), Some(from)) = (document, to, from) else {
        return Err(ApiError::internal("a checked field went missing"));
    };
    let fax = FaxToSend {
        document,
        to,
        from,
        tenant_id,
    };
    let id = app::send_fax(&state, &caller, fax).await?;
    let row = faxes::get(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

async fn retry_fax(caller: Caller<FaxesWrite>, state: AppState, id: FaxId) -> ApiResult<Json<Fax>> {
    let row = faxes::get(&state.db, &caller.scope, id).await?;
    app::retry_fax(&state, &row).await?;
    let row = faxes::get(&state.db, &caller.scope, id).await?;
    Ok(Json(present(&state, row).await?))
}

/// The answer of a retry made by a GET, its refusals included (a 410 is cacheable by
/// default): never stored by a cache between the client and us, so a repeated GET
/// reaches the service and is judged again instead of replaying an earlier answer.
fn not_cacheable(answer: ApiResult<Json<Fax>>) -> Response {
    let mut response = answer.into_response();
    response.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    response
}

/// Requeues a failed fax as a new attempt of the same fax: 409 when it is not failed, 410
/// when its document is gone. A GET because the release notes name it so; it changes
/// state, so it is answered `Cache-Control: no-store`, and
/// `POST /v2/admin/faxes/{id}/retry` is the preferred form.
#[utoipa::path(get, operation_id = "retryFaxUnversioned", path = "/faxes/retry/{id}", tag = "faxes",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The fax's id")),
    responses(
        (status = 200, description = "The fax, queued again (`Cache-Control: no-store`)", body = Fax,
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 409, description = "The fax is not failed", body = crate::error::ErrorBody),
        (status = 410, description = "Its document is gone", body = crate::error::ErrorBody),
    ))]
pub async fn retry_unversioned(
    caller: Caller<FaxesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<FaxId>,
) -> Response {
    not_cacheable(retry_fax(caller, state, id).await)
}

/// The same at `/v2` (also `Cache-Control: no-store`; prefer the POST).
#[utoipa::path(get, operation_id = "retryFaxByGet", path = "/v2/faxes/retry/{id}", tag = "faxes",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The fax's id")),
    responses(
        (status = 200, description = "The fax, queued again (`Cache-Control: no-store`)", body = Fax,
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 409, description = "The fax is not failed", body = crate::error::ErrorBody),
        (status = 410, description = "Its document is gone", body = crate::error::ErrorBody),
    ))]
pub async fn retry(
    caller: Caller<FaxesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<FaxId>,
) -> Response {
    not_cacheable(retry_fax(caller, state, id).await)
}

/// Requeues a failed fax as a new attempt of the same fax, the preferred form of
/// `GET /faxes/retry/{id}` (same rules: 409 when it is not failed, 410 when its document
/// is gone).
#[utoipa::path(post, operation_id = "retryFax", path = "/v2/admin/faxes/{id}/retry", tag = "faxes",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The fax's id")),
    responses(
        (status = 200, description = "The fax, queued again", body = Fax),
        (status = 409, description = "The fax is not failed", body = crate::error::ErrorBody),
        (status = 410, description = "Its document is gone", body = crate::error::ErrorBody),
    ))]
pub async fn retry_post(
    caller: Caller<FaxesWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<FaxId>,
) -> ApiResult<Json<Fax>> {
    retry_fax(caller, state, id).await
}

/// The tenant's automatic retry policy (three attempts five minutes apart on any failure
/// until one is set); platform and partner admins name the tenant with `tenantId`.
#[utoipa::path(get, operation_id = "getFaxRetryPolicy", path = "/v2/admin/faxes/retry-policy", tag = "faxes",
    params(("tenantId" = Option<i64>, Query, minimum = 1, description = "The tenant (platform and partner admins)")),
    responses((status = 200, description = "The policy", body = FaxRetryPolicy)))]
pub async fn get_policy(
    caller: Caller<FaxesRead>,
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<FaxRetryPolicy>> {
    let tenant = match params.get("tenantId") {
        Some(raw) => Some(TenantId(ID.check(Raw::Text(raw)).map_err(|message| {
            ApiError::invalid(Location::Query, "tenantId", &message)
        })?)),
        None => None,
    };
    let tenant = tenancy::tenant_named_at(&state, &caller, tenant, Location::Query).await?;
    Ok(Json(faxes::policy(&state.db, tenant).await?))
}

/// Sets the tenant's automatic retry policy: attempts in all, seconds between them, and
/// the result codes worth another attempt (none: every failure).
#[utoipa::path(put, operation_id = "setFaxRetryPolicy", path = "/v2/admin/faxes/retry-policy", tag = "faxes",
    request_body = SetFaxRetryPolicy,
    responses((status = 200, description = "The policy", body = FaxRetryPolicy)))]
pub async fn set_policy(
    caller: Caller<FaxesWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<SetFaxRetryPolicy>,
) -> ApiResult<Json<FaxRetryPolicy>> {
    let tenant = tenancy::tenant_for_write(&state, &caller, body.tenant_id).await?;
    let policy = FaxRetryPolicy {
        tenant_id: tenant,
        max_attempts: body.max_attempts,
        delay_seconds: body.delay_seconds,
        retry_codes: body.retry_codes,
    };
    faxes::set_policy(&state.db, &policy, now()).await?;
    Ok(Json(policy))
}
