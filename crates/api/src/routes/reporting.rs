//! `/admin/reporting/calls` (and `/v2/…`, interface §8): one call's report — timeline,
//! parties, recording, transcript — and the reporting list of calls with aggregates per
//! day or hour of the tenant's time zone; and `POST /v2/ingest/transcripts`, where the
//! engine or a transcription service records a call's transcript, once per call.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::response::Response;
use chrono::{Duration, Utc};
use serde_json::Map;
use switchboard_app::tenancy;
use switchboard_db::{calls, reports};
use switchboard_domain::Location;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::records::call::Call;
use switchboard_domain::records::report::{
    CallAggregates, CallBucket, CallParty, CallQueue, CallReportFilter, CallReportView, Grouping,
    IngestTranscript, MAX_HOURLY_RANGE_SECONDS, MAX_RANGE_SECONDS, ReportRecording, ReportedCall,
    TimelineEvent, Transcript, TransferParty, bucket_label, offset_spans,
};

use crate::auth::caller::{CallRecordingsRead, Caller, IngestWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, ListParams};
use crate::listing;
use crate::routes::call_recordings::call_id;
use crate::routes::calls::present;
use crate::routes::ingest::IngestResult;
use crate::state::AppState;

/// Where a step sits among steps at the same second: a call starts, is answered, is
/// transferred, then ends.
fn step_rank(event: &str) -> u8 {
    match event {
        "started" => 0,
        "answered" => 1,
        "transferred" => 2,
        _ => 3,
    }
}

/// A party of a transfer as shown.
fn transfer_party(number: String, extension: Option<i64>, name: Option<String>) -> TransferParty {
    TransferParty {
        number,
        extension_id: extension.map(switchboard_domain::ids::ExtensionId),
        name: name.unwrap_or_default(),
    }
}

/// The timeline of a call, as reported: its steps and its transfers in order of time.
async fn timeline(state: &AppState, row: &calls::CallRow) -> ApiResult<Vec<TimelineEvent>> {
    let mut events: Vec<(i64, TimelineEvent)> = vec![(
        row.start_unix,
        TimelineEvent::step("started", row.time.clone()),
    )];
    if let Some(at) = calls::iso_at(row.answer_unix) {
        events.push((
            row.answer_unix.unwrap_or_default(),
            TimelineEvent::step("answered", at),
        ));
    }
    for transfer in reports::transfers(&state.db, row.id).await? {
        events.push((
            transfer.at_unix,
            TimelineEvent {
                event: "transferred".into(),
                at: calls::iso_at(Some(transfer.at_unix)).unwrap_or_default(),
                kind: Some(transfer.kind),
                from: Some(transfer_party(
                    transfer.from_number,
                    transfer.from_extension_id,
                    transfer.from_name,
                )),
                to: Some(transfer_party(
                    transfer.to_number,
                    transfer.to_extension_id,
                    transfer.to_name,
                )),
            },
        ));
    }
    if let Some(at) = calls::iso_at(row.end_unix) {
        let event = if row.status == "missed" {
            "missed"
        } else {
            "ended"
        };
        events.push((
            row.end_unix.unwrap_or_default(),
            TimelineEvent::step(event, at),
        ));
    }
    // Stable: transfers at the same second keep the order they are stored in.
    events.sort_by_key(|(at, event)| (*at, step_rank(&event.event)));
    Ok(events.into_iter().map(|(_, event)| event).collect())
}

/// The parties of a call: the extensions the engine identified, and for a side it did
/// not, the number (and name) the call reported.
async fn parties(state: &AppState, row: &calls::CallRow) -> ApiResult<Vec<CallParty>> {
    let noted = reports::parties(&state.db, row.id).await?;
    let mut parties = Vec::new();
    for (role, number, name) in [
        ("caller", &row.caller_id_num, &row.caller_id_name),
        ("callee", &row.dialed_num, &String::new()),
    ] {
        let mut of_role = noted.iter().filter(|p| p.role == role).peekable();
        if of_role.peek().is_none() {
            if !number.is_empty() {
                parties.push(CallParty {
                    role: role.into(),
                    extension_id: None,
                    number: number.clone(),
                    name: name.clone(),
                });
            }
            continue;
        }
        for party in of_role {
            parties.push(CallParty {
                role: role.into(),
                extension_id: Some(party.extension_id),
                number: party.number.clone().unwrap_or_default(),
                name: party.name.clone().unwrap_or_default(),
            });
        }
    }
    Ok(parties)
}

/// The report of one call.
async fn report(state: &AppState, row: calls::CallRow) -> ApiResult<CallReportView> {
    let timeline = timeline(state, &row).await?;
    let parties = parties(state, &row).await?;
    let queue = match row.queue_id {
        None => None,
        Some(id) => {
            let (name, number) = reports::queue(&state.db, row.tenant_id, id)
                .await?
                .unwrap_or_default();
            Some(CallQueue { id, name, number })
        }
    };
    let transcript = match reports::transcript(&state.db, row.id).await? {
        None => None,
        Some(stored) => Some(Transcript {
            channels: serde_json::from_str(&stored.channels).map_err(ApiError::internal)?,
            segments: serde_json::from_str(&stored.segments).map_err(ApiError::internal)?,
            recorded_at: calls::iso_at(Some(stored.created_at)).unwrap_or_default(),
        }),
    };
    let bytes = row.recording_bytes.unwrap_or(0);
    let call = present(state, row).await?;
    let recording = call.has_recording.then(|| ReportRecording {
        media_url: call.media_url.clone(),
        bytes,
        duration: call.recording_duration.unwrap_or(0),
    });
    Ok(CallReportView {
        call,
        timeline,
        queue,
        parties,
        recording,
        transcript,
    })
}

/// One call's report: the call, its timeline (started, answered, transferred, ended or
/// missed, in order of time), the queue it passed through, its parties, its recording
/// (a presigned URL) and its transcript with the channel legend recorded with it. A user
/// reaches its own calls only.
#[utoipa::path(get, operation_id = "getCallReport", path = "/v2/admin/reporting/calls/{callId}", tag = "reporting",
    params(("callId" = String, Path, min_length = 1, max_length = 255, description = "The call identifier (uniqueId)")),
    responses((status = 200, description = "The call's report", body = CallReportView)))]
pub async fn get(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<CallReportView>> {
    get_report(caller, state, path).await
}

/// The same report at the release notes' path.
#[utoipa::path(get, operation_id = "getCallReportUnversioned", path = "/admin/reporting/calls/{callId}", tag = "reporting",
    params(("callId" = String, Path, min_length = 1, max_length = 255, description = "The call identifier (uniqueId)")),
    responses((status = 200, description = "The call's report", body = CallReportView)))]
pub async fn get_unversioned(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<CallReportView>> {
    get_report(caller, state, path).await
}

async fn get_report(
    caller: Caller<CallRecordingsRead>,
    state: AppState,
    path: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<CallReportView>> {
    let unique_id = call_id(path)?;
    let row = calls::get(&state.db, &caller.scope, &unique_id).await?;
    Ok(Json(report(&state, row).await?))
}

/// The reporting list's envelope: a page of calls and the aggregates of every call the
/// filter matches.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
struct CallReportPage {
    /// The page's calls.
    records: Vec<Call>,
    /// Calls matching the filter.
    total_records: i64,
    /// This page's number.
    page: i64,
    /// The last page's number.
    max_page: i64,
    /// Counts, answered and missed, mean and p90 wait and talk, per day or hour.
    aggregates: CallAggregates,
}

/// Lists the calls of a range (`from`, `to`; default the last 7 days, at most 366 days,
/// 31 for `groupBy=hour`) filtered by tenant, direction, disposition, number, extension
/// and queue, with `aggregates` over all of them: counts, answered, missed, mean and p90
/// (nearest rank) wait and talk seconds, in total and per day or hour of the tenant's
/// time zone, computed in the database.
#[utoipa::path(get, operation_id = "listCallReports", path = "/v2/admin/reporting/calls/", tag = "reporting",
    params(ListParams<ReportedCall>),
    responses((status = 200, description = "A page of calls with the aggregates", body = CallReportPage)))]
pub async fn list(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    params: ListParams<ReportedCall>,
) -> ApiResult<Response> {
    list_report(caller, state, params).await
}

/// The same list at the release notes' path.
#[utoipa::path(get, operation_id = "listCallReportsUnversioned", path = "/admin/reporting/calls/", tag = "reporting",
    params(ListParams<ReportedCall>),
    responses((status = 200, description = "A page of calls with the aggregates", body = CallReportPage)))]
pub async fn list_unversioned(
    caller: Caller<CallRecordingsRead>,
    State(state): State<AppState>,
    params: ListParams<ReportedCall>,
) -> ApiResult<Response> {
    list_report(caller, state, params).await
}

/// The range a filter asks for, checked.
fn range(filter: &CallReportFilter, hourly: bool) -> ApiResult<(i64, i64)> {
    let to = filter.to.unwrap_or_else(Utc::now);
    let from = filter.from.unwrap_or(to - Duration::days(7));
    let (from, to) = (from.timestamp(), to.timestamp());
    if from >= to {
        return Err(ApiError::invalid(
            Location::Query,
            "from",
            "must be before to",
        ));
    }
    let longest = if hourly {
        MAX_HOURLY_RANGE_SECONDS
    } else {
        MAX_RANGE_SECONDS
    };
    if to - from > longest {
        return Err(ApiError::invalid(
            Location::Query,
            "to",
            &format!(
                "must be at most {} days after from{}",
                longest / 86_400,
                if hourly { " with groupBy=hour" } else { "" }
            ),
        ));
    }
    Ok((from, to))
}

async fn list_report(
    caller: Caller<CallRecordingsRead>,
    state: AppState,
    ListParams { query, filter }: ListParams<ReportedCall>,
) -> ApiResult<Response> {
    tenancy::check_tenant_filter(&state, &caller, filter.tenant_id()).await?;
    let hourly = filter.group_by == Some(Grouping::Hour);
    let (from, to) = range(&filter, hourly)?;
    let zone_name = match filter.tenant_id.or(caller.scope.own_tenant()) {
        Some(tenant) => reports::time_zone(&state.db, tenant).await?,
        None => "UTC".to_owned(),
    };
    let zone: chrono_tz::Tz = zone_name.parse().unwrap_or(chrono_tz::UTC);
    let spans = offset_spans(&zone, from, to);
    let width = if hourly { 3600 } else { 86_400 };
    let buckets = reports::aggregates(
        &state.db,
        &caller.scope,
        &filter,
        (from, to),
        &spans,
        Some(width),
    )
    .await?;
    let totals = reports::aggregates(&state.db, &caller.scope, &filter, (from, to), &spans, None)
        .await?
        .into_iter()
        .next()
        .map(|(_, figures)| figures)
        .unwrap_or_default();
    let aggregates = CallAggregates {
        from: calls::iso_at(Some(from)).unwrap_or_default(),
        to: calls::iso_at(Some(to)).unwrap_or_default(),
        group_by: if hourly {
            Grouping::Hour
        } else {
            Grouping::Day
        },
        time_zone: zone.name().to_owned(),
        totals,
        buckets: buckets
            .into_iter()
            .map(|(key, figures)| CallBucket {
                period: bucket_label(key, width),
                figures,
            })
            .collect(),
    };
    let listing = reports::list(&state.db, &caller.scope, &filter, (from, to), &query).await?;
    let mut extra = Map::new();
    extra.insert(
        "aggregates".into(),
        serde_json::to_value(aggregates).map_err(ApiError::internal)?,
    );
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

/// Records a call's transcript (the engine's or a transcription service's token, or a
/// platform admin): its channel legend (0, 1, … each `caller`, `callee` or `agent`) and
/// its segments. Once per call: a repeat changes nothing and answers `recorded: false`,
/// so the legend stays as first recorded. The call must have been reported.
#[utoipa::path(post, operation_id = "ingestTranscript", path = "/v2/ingest/transcripts", tag = "ingest",
    request_body = IngestTranscript,
    responses((status = 200, description = "What was recorded", body = IngestResult)))]
pub async fn ingest_transcript(
    caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<IngestTranscript>,
) -> ApiResult<Json<IngestResult>> {
    let recorded = switchboard_app::calls::record_transcript(&state, &caller, &body).await?;
    Ok(Json(IngestResult::of(recorded)))
}
