//! `/v2/admin/call-campaigns` (and `/admin/call-campaigns`): outbound calling lists, their
//! records (added one by one or imported as JSON or CSV, each number normalised to E.164
//! in the tenant's default country before any check), and the streamed CSV export.

use axum::Json;
use axum::body::Bytes;
use axum::extract::multipart::Multipart;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::Value;
use switchboard_app::call_campaigns as app;
use switchboard_app::tenancy;
use switchboard_db::call_campaigns::{self, NewRecord};
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::ids::{CallCampaignId, CampaignRecordId};
use switchboard_domain::list::Page;
use switchboard_domain::records::call_campaign::{
    CallCampaign, CampaignRecord, CampaignRecordDetail, CreateCallCampaign, CreateCampaignRecord,
    ImportRow, ImportRows, ImportSummary, MAX_EXPORT, MAX_IMPORT, UpdateCallCampaign,
    UpdateCampaignRecord,
};
use switchboard_domain::validation::FromBody;
use switchboard_domain::{Location, Problems};

use crate::auth::caller::{Caller, CampaignsRead, CampaignsWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Checked, ListParams, Patch, PathId, body_rejection, parse_id};
use crate::routes::media_files::multipart_rejection;
use crate::state::AppState;
use crate::{csv_io, listing};

async fn list_campaigns(
    caller: Caller<CampaignsRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<CallCampaign>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let listing = call_campaigns::list(&state.db, &caller.scope, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Lists the call campaigns in the caller's scope.
#[utoipa::path(get, operation_id = "listCallCampaigns", path = "/v2/admin/call-campaigns/", tag = "call-campaigns",
    params(ListParams<CallCampaign>),
    responses((status = 200, description = "A page of call campaigns", body = Page<CallCampaign>)))]
pub async fn list(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    params: ListParams<CallCampaign>,
) -> ApiResult<Response> {
    list_campaigns(caller, state, params).await
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listCallCampaignsUnversioned", path = "/admin/call-campaigns/", tag = "call-campaigns",
    params(ListParams<CallCampaign>),
    responses((status = 200, description = "A page of call campaigns", body = Page<CallCampaign>)))]
pub async fn list_unversioned(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    params: ListParams<CallCampaign>,
) -> ApiResult<Response> {
    list_campaigns(caller, state, params).await
}

async fn create_campaign(
    caller: Caller<CampaignsWrite>,
    state: AppState,
    body: Checked<CreateCallCampaign>,
) -> ApiResult<Json<CallCampaign>> {
    let (body, checked) = body
        .check_with(async |body, problems| app::check_new(&state, &caller, body, problems).await)
        .await?;
    Ok(Json(app::write_new(&state, checked, body).await?))
}

/// Creates a call campaign (`draft` or `scheduled`): its caller id a phone number of the
/// tenant, its answered calls connected to an extension, IVR, queue or paging group of the
/// tenant.
#[utoipa::path(post, operation_id = "createCallCampaign", path = "/v2/admin/call-campaigns/", tag = "call-campaigns",
    request_body = CreateCallCampaign,
    responses((status = 200, description = "The new call campaign", body = CallCampaign)))]
pub async fn create(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateCallCampaign>,
) -> ApiResult<Json<CallCampaign>> {
    create_campaign(caller, state, body).await
}

/// The same create at the release notes' path.
#[utoipa::path(post, operation_id = "createCallCampaignUnversioned", path = "/admin/call-campaigns/", tag = "call-campaigns",
    request_body = CreateCallCampaign,
    responses((status = 200, description = "The new call campaign", body = CallCampaign)))]
pub async fn create_unversioned(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    body: Checked<CreateCallCampaign>,
) -> ApiResult<Json<CallCampaign>> {
    create_campaign(caller, state, body).await
}

/// One call campaign.
#[utoipa::path(get, operation_id = "getCallCampaign", path = "/v2/admin/call-campaigns/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id")),
    responses((status = 200, description = "The call campaign", body = CallCampaign)))]
pub async fn get(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
) -> ApiResult<Json<CallCampaign>> {
    Ok(Json(
        call_campaigns::get(&state.db, &caller.scope, id).await?,
    ))
}

/// Changes a call campaign; a new `status` must be a step it may take (409 otherwise):
/// draft → scheduled/running/cancelled, scheduled → draft/running/paused/cancelled,
/// running → paused/completed/cancelled, paused → running/completed/cancelled.
#[utoipa::path(patch, operation_id = "updateCallCampaign", path = "/v2/admin/call-campaigns/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id")),
    request_body = UpdateCallCampaign,
    responses((status = 200, description = "The changed call campaign", body = CallCampaign)))]
pub async fn update(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
    patch: Patch<UpdateCallCampaign>,
) -> ApiResult<Json<CallCampaign>> {
    let current = call_campaigns::get(&state.db, &caller.scope, id).await?;
    let (body, change) = patch
        .checked_against(&current)?
        .check_with(async |body, problems| {
            app::check_change(&state, &caller, &current, body, problems).await
        })
        .await?;
    Ok(Json(
        app::write_change(&state, &caller, id, body, change).await?,
    ))
}

/// Deletes a call campaign that is not running, with its records and its own opt-out list.
#[utoipa::path(delete, operation_id = "deleteCallCampaign", path = "/v2/admin/call-campaigns/{id}", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id")),
    responses((status = 200, description = "The deleted call campaign", body = CallCampaign)))]
pub async fn delete(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
) -> ApiResult<Json<CallCampaign>> {
    Ok(Json(
        call_campaigns::delete(&state.db, &caller.scope, id).await?,
    ))
}

/// Lists a campaign's records (filters `status`, `outcome`).
#[utoipa::path(get, operation_id = "listCampaignRecords", path = "/v2/admin/call-campaigns/{id}/records", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id"),
        ListParams<CampaignRecord>),
    responses((status = 200, description = "A page of the campaign's records", body = Page<CampaignRecord>)))]
pub async fn list_records(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
    ListParams { query, filter }: ListParams<CampaignRecord>,
) -> ApiResult<Response> {
    let campaign = app::campaign_of(&state, &caller, id, false).await?;
    let listing = call_campaigns::list_records(&state.db, campaign.id, &filter, &query).await?;
    Ok(listing::respond(listing, std::convert::identity))
}

/// Adds a number to a campaign: normalised to E.164 in the tenant's country first, then
/// refused with 403 when an opt-out list holds it (naming the list's level) and 409 when
/// the campaign already holds it.
#[utoipa::path(post, operation_id = "createCampaignRecord", path = "/v2/admin/call-campaigns/{id}/records", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id")),
    request_body = CreateCampaignRecord,
    responses((status = 200, description = "The new record", body = CampaignRecord)))]
pub async fn create_record(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
    body: Checked<CreateCampaignRecord>,
) -> ApiResult<Json<CampaignRecord>> {
    let adding = app::open_for_records(&state, &caller, id).await?;
    let mut number = None;
    let body = body
        .check(async |body, problems| {
            number = adding.number(&body.number, "number", problems);
            Ok(())
        })
        .await?;
    let number = number.ok_or_else(|| ApiError::internal("a checked record has a number"))?;
    Ok(Json(
        app::add_record(&state, &adding, number, body.name).await?,
    ))
}

/// The multipart form of an import: one part, `file`, the CSV.
#[derive(Debug, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ImportUpload {
    /// The CSV: a header row naming `number` and optionally `name`, then 1 to 10,000
    /// rows, within the request size limit.
    #[schema(value_type = String, format = Binary, content_media_type = "text/csv")]
    pub file: Vec<u8>,
}

/// An import's row read in the tenant's `country`: its number in E.164 and its name, or
/// every rule it breaks — of its fields and of its number — named within the row
/// (`'name' must be …; 'number' is not a phone number …`), for its `invalid` result.
async fn import_row(row: &Value, adding: &app::Adding) -> Result<NewRecord, String> {
    let mut number = None;
    let read = Checked::<ImportRow>::read(row)
        .check(async |row, problems| {
            number = adding.number(&row.number, "number", problems);
            Ok(())
        })
        .await;
    match (read, number) {
        (Ok(row), Some(number)) => Ok(NewRecord {
            number,
            name: row.name,
        }),
        (Ok(_), None) => Err("'number' is not a phone number".to_owned()),
        (Err(refused), _) => Err(refused
            .validation_errors()
            .iter()
            .map(|m| m.replacen("'body/", "'", 1))
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

/// The number of an import's row as sent (empty when it sent none), for its result.
fn input_of(row: &Value) -> String {
    row["number"].as_str().unwrap_or("").to_owned()
}

/// Every problem of a JSON import refused as a whole (`problems`, the array's own rules
/// and its rows' fields), with the number of each row that is not a dialable number in
/// the tenant's `country` (`'body/3/number' is not a phone number …`): a refusal names
/// every reason at once, the rows' too.
fn refused_import(rows: &Value, country: &str, mut problems: Problems) -> ApiError {
    for (index, row) in rows.as_array().into_iter().flatten().enumerate() {
        let path = format!("{index}/number");
        if let Some(text) = row.get("number").and_then(Value::as_str)
            && !problems.names(Location::Body, &path)
        {
            app::record_number(text, country, &path, &mut problems);
        }
    }
    ApiError::validation(problems)
}

/// Imports numbers into a campaign: a JSON array of `{number, name?}`, or a CSV (a header
/// row naming `number` and optionally `name`) uploaded as the `file` part of a
/// `multipart/form-data` form — or sent as the whole body with `Content-Type: text/csv`,
/// which is read the same though not listed below (client generators cannot send a text
/// body); 1 to 10,000 rows. Every row is answered in order: `created` (with its id), `duplicate` (with the
/// existing record's id), `opted-out` (naming the list's level) or `invalid` (with the
/// reason); numbers are normalised to E.164 in the tenant's country first. Each created
/// record is audited (`call-campaign-record`).
#[utoipa::path(post, operation_id = "importCampaignRecords", path = "/v2/admin/call-campaigns/{id}/records/import", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id")),
    request_body(content((ImportRows = "application/json"),
        (ImportUpload = "multipart/form-data"))),
    responses((status = 200, description = "One result per row", body = ImportSummary)))]
pub async fn import_records(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
    headers: HeaderMap,
    request: Request,
) -> ApiResult<Json<ImportSummary>> {
    let adding = app::open_for_records(&state, &caller, id).await?;
    // Each row as a JSON object: a CSV row failing its rules is `invalid`; a JSON body
    // breaking its schema is refused whole, with every row's problems.
    let rows: Vec<Value> = if crate::media_type::sent_is(&headers, "multipart/form-data") {
        let multipart = Multipart::from_request(request, &state)
            .await
            .map_err(multipart_rejection)?;
        csv_io::csv_rows(
            &csv_io::csv_part(multipart, state.settings.body_limit).await?,
            MAX_IMPORT,
            &["number"],
        )?
    } else {
        let body = Bytes::from_request(request, &state)
            .await
            .map_err(body_rejection)?;
        if crate::media_type::sent_is(&headers, "text/csv") {
            csv_io::csv_rows(&body, MAX_IMPORT, &["number"])?
        } else if crate::media_type::sent_is(&headers, "application/json") {
            let value: Value = serde_json::from_slice(&body)
                .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
            if let Err(problems) = ImportRows::from_body(&value) {
                return Err(refused_import(&value, &adding.country, problems));
            }
            match value {
                Value::Array(rows) => rows,
                _ => return Err(ApiError::internal("an import read as rows is an array")),
            }
        } else {
            return Err(ApiError::unsupported_media_type(
                "the body must be sent as Content-Type: application/json, text/csv or multipart/form-data",
            ));
        }
    };
    let mut read = Vec::with_capacity(rows.len());
    for row in &rows {
        read.push(app::ImportedRow {
            input: input_of(row),
            read: import_row(row, &adding).await,
        });
    }
    Ok(Json(app::import_records(&state, &adding, read).await?))
}

/// The `{id}` and `{recordId}` of a record path, both by the path-id rules.
fn record_path(
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
) -> ApiResult<(CallCampaignId, CampaignRecordId)> {
    let Path((id, record)) =
        path.map_err(|_| ApiError::bad_request("the path could not be read"))?;
    let campaign = parse_id(&id)?;
    let record = parse_id(&record).map_err(|e| {
        if e.status() == axum::http::StatusCode::BAD_REQUEST {
            ApiError::invalid(
                Location::Path,
                "recordId",
                &format!("must match pattern {}", crate::extract::ID_PATTERN),
            )
        } else {
            e
        }
    })?;
    Ok((CallCampaignId(campaign), CampaignRecordId(record)))
}

/// One record of a campaign, with every call placed for it (`attemptHistory`: when,
/// the outcome, how long, the engine's code and reference).
#[utoipa::path(get, operation_id = "getCampaignRecord", path = "/v2/admin/call-campaigns/{id}/records/{recordId}", tag = "call-campaigns",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id"),
        ("recordId" = String, Path, pattern = "^[1-9][0-9]*$", description = "Record id"),
    ),
    responses((status = 200, description = "The record with its calls", body = CampaignRecordDetail)))]
pub async fn get_record(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
) -> ApiResult<Json<CampaignRecordDetail>> {
    let (id, record) = record_path(path)?;
    let campaign = app::campaign_of(&state, &caller, id, false).await?;
    let record = call_campaigns::get_record(&state.db, campaign.id, record).await?;
    let attempt_history = call_campaigns::call_attempts(&state.db, record.id).await?;
    Ok(Json(CampaignRecordDetail {
        record,
        attempt_history,
    }))
}

/// Changes a record: a new number is normalised and checked against the opt-out lists
/// again (403); `status` `pending` dials it again from its first attempt, `skipped` never.
#[utoipa::path(patch, operation_id = "updateCampaignRecord", path = "/v2/admin/call-campaigns/{id}/records/{recordId}", tag = "call-campaigns",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id"),
        ("recordId" = String, Path, pattern = "^[1-9][0-9]*$", description = "Record id"),
    ),
    request_body = UpdateCampaignRecord,
    responses((status = 200, description = "The changed record, as GET answers it", body = CampaignRecordDetail)))]
pub async fn update_record(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
    body: Checked<UpdateCampaignRecord>,
) -> ApiResult<Json<CampaignRecordDetail>> {
    let (id, record) = record_path(path)?;
    let campaign = app::campaign_of(&state, &caller, id, false).await?;
    let mut number = None;
    let body = body
        .check(async |body, problems| {
            if let Some(text) = &body.number {
                let country = call_campaigns::tenant_country(&state.db, campaign.tenant_id).await?;
                number = app::record_number(text, &country, "number", problems);
            }
            Ok(())
        })
        .await?;
    match call_campaigns::update_record(
        &state.db,
        campaign.tenant_id,
        campaign.id,
        record,
        number.clone(),
        body.name,
        body.status,
    )
    .await?
    {
        // Answered as GET answers it, attempts and all.
        Ok(record) => {
            let attempt_history = call_campaigns::call_attempts(&state.db, record.id).await?;
            Ok(Json(CampaignRecordDetail {
                record,
                attempt_history,
            }))
        }
        Err(level) => Err(app::opted_out(number.as_deref().unwrap_or(""), &level).into()),
    }
}

/// Deletes a record of a campaign.
#[utoipa::path(delete, operation_id = "deleteCampaignRecord", path = "/v2/admin/call-campaigns/{id}/records/{recordId}", tag = "call-campaigns",
    params(
        ("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id"),
        ("recordId" = String, Path, pattern = "^[1-9][0-9]*$", description = "Record id"),
    ),
    responses((status = 200, description = "The deleted record", body = CampaignRecord)))]
pub async fn delete_record(
    caller: Caller<CampaignsWrite>,
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
) -> ApiResult<Json<CampaignRecord>> {
    let (id, record) = record_path(path)?;
    let campaign = app::campaign_of(&state, &caller, id, false).await?;
    Ok(Json(
        call_campaigns::delete_record(&state.db, campaign.id, record).await?,
    ))
}

fn write_record(out: &mut Vec<u8>, record: &CampaignRecord) {
    let id = record.id.get().to_string();
    let attempts = record.attempts.to_string();
    let fields: [(&str, bool); 9] = [
        (&id, false),
        (&record.number, false),
        (record.name.as_deref().unwrap_or(""), true),
        (record.status.as_str(), false),
        (record.outcome.as_deref().unwrap_or(""), true),
        (&attempts, false),
        (record.last_attempt_at.as_deref().unwrap_or(""), false),
        (record.next_attempt_at.as_deref().unwrap_or(""), false),
        (&record.created_at, false),
    ];
    for (i, (value, free)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        crate::csv_io::csv_field(out, value, *free);
    }
}

/// Refuses an export of `count` records when it is over [`MAX_EXPORT`] (400, giving the
/// count and the limit); exactly at the limit it goes ahead.
fn export_allowed(count: i64) -> ApiResult<()> {
    if count > MAX_EXPORT {
        return Err(ApiError::bad_request(format!(
            "the export would hold {count} records, over the limit of {MAX_EXPORT}: narrow it with status, outcome or query"
        )));
    }
    Ok(())
}

/// Exports a campaign's records as CSV with the list's filters, search and sort, streamed
/// with flat memory. More than 512,000 matching records are refused before any row is
/// sent (400, giving the count and the limit): narrow the filters.
#[utoipa::path(get, operation_id = "exportCampaignRecords", path = "/v2/admin/call-campaigns/{id}/records/export", tag = "call-campaigns",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "Call campaign id"),
        ListParams<CampaignRecord>),
    responses((status = 200, description = "The records as CSV: id, number, name, status, outcome, attempts, lastAttemptAt, nextAttemptAt, createdAt", content_type = "text/csv", body = String)))]
pub async fn export_records(
    caller: Caller<CampaignsRead>,
    State(state): State<AppState>,
    PathId(id): PathId<CallCampaignId>,
    ListParams { query, filter }: ListParams<CampaignRecord>,
) -> ApiResult<Response> {
    let campaign = app::campaign_of(&state, &caller, id, false).await?;
    let count = call_campaigns::count_records(&state.db, campaign.id, &filter, &query).await?;
    export_allowed(count)?;
    let rows = call_campaigns::stream_records(&state.db, campaign.id, &filter, &query);
    Ok(crate::csv_io::csv_response(
        &format!("campaign-{}-records.csv", campaign.id.get()),
        "id,number,name,status,outcome,attempts,lastAttemptAt,nextAttemptAt,createdAt",
        rows,
        write_record,
    ))
}

#[cfg(test)]
mod tests {
    use super::export_allowed;

    #[test]
    fn an_export_at_the_limit_goes_ahead_and_one_over_is_refused() {
        assert!(export_allowed(0).is_ok());
        assert!(export_allowed(512_000).is_ok());
        let refused = export_allowed(512_001)
            .err()
            .map(|error| (error.status().as_u16(), error.message().to_owned()));
        assert_eq!(
            refused,
            Some((
                400,
                "the export would hold 512001 records, over the limit of 512000: narrow it with status, outcome or query"
                    .to_owned()
            ))
        );
    }
}
