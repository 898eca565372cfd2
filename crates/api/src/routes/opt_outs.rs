//! `/v2/admin/opt-outs`: the do-not-call lists — the platform's (platform admins only),
//! a tenant's and a campaign's — one entry at a time, imported (JSON or CSV) and exported.

use axum::Json;
use axum::body::Bytes;
use axum::extract::multipart::Multipart;
use axum::extract::{FromRequest, Request, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::Value;
use switchboard_app::opt_outs::{self as app, Known};
use switchboard_app::tenancy;
use switchboard_db::opt_outs::{self, NewOptOut};
use switchboard_domain::declare::DeclaredFilter;

use switchboard_domain::ids::OptOutId;
use switchboard_domain::list::Page;
use switchboard_domain::records::call_campaign::{ImportResult, ImportSummary, MAX_IMPORT};
use switchboard_domain::records::opt_out::{CreateOptOut, OptOut, UpdateOptOut};
use switchboard_domain::{Location, Principal};

use crate::auth::caller::{Caller, CampaignsRead, CampaignsWrite};
use crate::csv_io::{csv_field, csv_part, csv_response, csv_rows};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, Patch, PathId, body_rejection};
use crate::listing;
use crate::media_type;
use crate::routes::media_files::multipart_rejection;
use crate::state::AppState;

/// The entry of a create body (or an import's row), every broken rule of its fields and
/// of [`app::check_entry`] answered together.
async fn checked_entry(
    state: &AppState,
    caller: &Principal,
    body: Checked<CreateOptOut>,
    known: &mut Known,
) -> ApiResult<NewOptOut> {
    let mut built = None;
    body.check(async |body, problems| {
        built = app::check_entry(state, caller, body, known, problems).await?;
        Ok(())
    })
    .await?;
    built.ok_or_else(|| ApiError::internal("a checked opt-out entry was not built"))
}

/// Lists the opt-out entries in the caller's scope (the platform's list: platform admins).
#[utoipa::path(get, operation_id = "listOptOuts", path = "/v2/admin/opt-outs/", tag = "call-campaigns",
    params(ListParams<OptOut>),
    responses((status = 200, description = "A page of opt-out entries", body = Page<OptOut>)))]
pub async fn list(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<OptOut>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = opt_outs::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Adds a number to an opt-out list: the platform's (platform admins only), a tenant's
/// (the default) or a campaign's; 409 when that list already holds it.
#[utoipa::path(post, operation_id = "createOptOut", path = "/v2/admin/opt-outs/", tag = "call-campaigns",
    request_body = CreateOptOut,
    responses((status = 200, description = "The new entry", body = OptOut)))]
pub async fn create(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateOptOut>,
) -> ApiResult<Json<OptOut>> {
    let entry = checked_entry(&state, &caller, body, &mut Known::default()).await?;
    Ok(Json(opt_outs::create(&state.db, entry).await?))
}

/// One opt-out entry.
#[utoipa::path(get, operation_id = "getOptOut", path = "/v2/admin/opt-outs/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Opt-out entry id")),
    responses((status = 200, description = "The entry", body = OptOut)))]
pub async fn get(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<OptOutId>,
) -> ApiResult<Json<OptOut>> {
    Ok(Json(opt_outs::get(&state.db, &caller.scope, id).await?))
}

/// Changes an entry's reason or expiry.
#[utoipa::path(patch, operation_id = "updateOptOut", path = "/v2/admin/opt-outs/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Opt-out entry id")),
    request_body = UpdateOptOut,
    responses((status = 200, description = "The changed entry", body = OptOut)))]
pub async fn update(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<OptOutId>,
    patch: Patch<UpdateOptOut>,
) -> ApiResult<Json<OptOut>> {
    let body = patch.against(&opt_outs::get(&state.db, &caller.scope, id).await?)?;
    Ok(Json(
        opt_outs::update(&state.db, &caller.scope, id, body).await?,
    ))
}

/// Removes an entry: the number may be called again (unless another list holds it).
#[utoipa::path(delete, operation_id = "deleteOptOut", path = "/v2/admin/opt-outs/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Opt-out entry id")),
    responses((status = 200, description = "The removed entry", body = OptOut)))]
pub async fn delete(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<OptOutId>,
) -> ApiResult<Json<OptOut>> {
    Ok(Json(opt_outs::delete(&state.db, &caller.scope, id).await?))
}

/// The multipart form of an opt-out import: one part, `file`, the CSV.
#[derive(Debug, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct OptOutUpload {
    /// The CSV: a header row naming `number` and any of `level`, `tenantId`,
    /// `campaignId`, `source`, `reason`, `expiresAt`, then 1 to 10,000 rows.
    #[schema(value_type = String, format = Binary, content_media_type = "text/csv")]
    pub file: Vec<u8>,
}

/// Imports entries: a JSON array of entry bodies, or a CSV (a header row naming `number`
/// and any of `level`, `tenantId`, `campaignId`, `source`, `reason`, `expiresAt`)
/// uploaded as the `file` part of a `multipart/form-data` form — or sent as the whole
/// body with `Content-Type: text/csv`, read the same though not listed below (client
/// generators cannot send a text body); 1 to 10,000 rows, in one transaction. Every row
/// is answered: `created`, `duplicate` (the list already held it, with that entry's id)
/// or `invalid` (with the reason).
#[utoipa::path(post, operation_id = "importOptOuts", path = "/v2/admin/opt-outs/import", tag = "call-campaigns",
    request_body(content((Vec<CreateOptOut> = "application/json"),
        (OptOutUpload = "multipart/form-data"))),
    responses((status = 200, description = "One result per row", body = ImportSummary)))]
pub async fn import(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    headers: HeaderMap,
    request: Request,
) -> ApiResult<Json<ImportSummary>> {
    let (content, body) = if media_type::sent_is(&headers, "multipart/form-data") {
        let form = Multipart::from_request(request, &state)
            .await
            .map_err(multipart_rejection)?;
        let csv = csv_part(form, state.settings.body_limit).await?;
        (Some("text/csv".to_owned()), Bytes::from(csv))
    } else {
        let content = media_type::sent(&headers).map(|sent| sent.essence_str().to_owned());
        let body = Bytes::from_request(request, &state)
            .await
            .map_err(body_rejection)?;
        (content, body)
    };
    let rows: Vec<Value> = match content.as_deref() {
        Some("text/csv") => csv_rows(&body, MAX_IMPORT, &["number"])?
            .into_iter()
            .map(|mut row| {
                // CSV cells are text: ids become numbers again for the body reader.
                for key in ["tenantId", "campaignId"] {
                    if let Some(n) = row[key].as_str().and_then(|s| s.parse::<i64>().ok()) {
                        row[key] = n.into();
                    }
                }
                row
            })
            .collect(),
        Some("application/json") => {
            let value: Value = serde_json::from_slice(&body)
                .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
            let Value::Array(rows) = value else {
                return Err(ApiError::invalid(Location::Body, "", "must be an array"));
            };
            if rows.is_empty() || rows.len() > MAX_IMPORT {
                return Err(ApiError::invalid(
                    Location::Body,
                    "",
                    &format!("must hold 1 to {MAX_IMPORT} items"),
                ));
            }
            rows
        }
        _ => {
            return Err(ApiError::unsupported_media_type(
                "the body must be sent as Content-Type: application/json, multipart/form-data or text/csv",
            ));
        }
    };
    let mut summary = ImportSummary::default();
    let mut known = Known::default();
    let mut entries = Vec::new();
    let mut positions = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        let input = row["number"].as_str().unwrap_or("").to_owned();
        // A row answers every rule it breaks, of its fields and of its entry, at once.
        let read = match checked_entry(&state, &caller, Checked::read(row), &mut known).await {
            Ok(mut entry) => {
                if entry.source == "manual" && row.get("source").is_none() {
                    entry.source = "import".into();
                }
                Ok(entry)
            }
            // The database failing fails the import; a refused row is answered.
            Err(e) if e.status().is_server_error() => return Err(e),
            Err(e) if e.validation_errors().is_empty() => Err(e.message().to_owned()),
            Err(e) => Err(e.validation_errors().join("; ")),
        };
        match read {
            Ok(entry) => {
                positions.push((index, input, entry.number.clone()));
                entries.push(entry);
            }
            Err(reason) => summary.results.push(ImportResult {
                row: index + 1,
                input,
                number: None,
                result: "invalid".into(),
                id: None,
                reason: Some(reason),
            }),
        }
    }
    let recorded = opt_outs::import(&state.db, entries).await?;
    for ((index, input, number), recorded) in positions.into_iter().zip(recorded) {
        let result = if recorded.new { "created" } else { "duplicate" };
        summary.results.push(ImportResult {
            row: index + 1,
            input,
            number: Some(number),
            result: result.into(),
            id: Some(recorded.id),
            reason: None,
        });
    }
    summary.results.sort_by_key(|r| r.row);
    for result in &summary.results {
        match result.result.as_str() {
            "created" => summary.created += 1,
            "duplicate" => summary.duplicates += 1,
            _ => summary.invalid += 1,
        }
    }
    Ok(Json(summary))
}

fn write_entry(out: &mut Vec<u8>, entry: &OptOut) {
    let id = entry.id.get().to_string();
    let tenant = entry
        .tenant_id
        .map(|t| t.get().to_string())
        .unwrap_or_default();
    let campaign = entry
        .campaign_id
        .map(|c| c.get().to_string())
        .unwrap_or_default();
    let fields: [(&str, bool); 9] = [
        (&id, false),
        (entry.level.as_str(), false),
        (&tenant, false),
        (&campaign, false),
        (&entry.number, false),
        (entry.source.as_str(), false),
        (entry.reason.as_deref().unwrap_or(""), true),
        (&entry.created_at, false),
        (entry.expires_at.as_deref().unwrap_or(""), false),
    ];
    for (i, (value, free)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        csv_field(out, value, *free);
    }
}

/// Exports the opt-out entries in the caller's scope as CSV (the list's filters, search
/// and sort), streamed; its header row is the import's.
#[utoipa::path(get, operation_id = "exportOptOuts", path = "/v2/admin/opt-outs/export", tag = "call-campaigns",
    params(ListParams<OptOut>),
    responses((status = 200, description = "The entries as CSV: id, level, tenantId, campaignId, number, source, reason, createdAt, expiresAt", content_type = "text/csv", body = String)))]
pub async fn export(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    ListParams { query, filter }: ListParams<OptOut>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = opt_outs::list(&state.db, &caller.scope, &filter, &{
        let mut all = query;
        all.paginated = false;
        all
    })
    .await?;
    let switchboard_db::list::Listing::Stream(rows) = listing else {
        return Err(ApiError::internal("an export was not streamed"));
    };
    Ok(csv_response(
        "opt-outs.csv",
        "id,level,tenantId,campaignId,number,source,reason,createdAt,expiresAt",
        rows,
        write_entry,
    ))
}
