//! `/v2/engine/jobs/…`: the engine work queue. The telephony engine (with the ingest
//! token, or a platform admin) claims outbound work — faxes and texts to send, campaign
//! calls to place — under a lease, and reports each attempt's result; each kind's handling lives with its
//! resource, and [`KINDS`] registers them all.

use axum::Json;
use axum::extract::State;
use switchboard_db::engine_jobs::{self, Kind, ResultError};
use switchboard_db::{call_campaigns, faxes, texts};
use switchboard_domain::Location;
use switchboard_domain::ids::EngineJobId;
use switchboard_domain::records::engine_job::{
    ClaimJobs, ClaimedJob, ClaimedJobs, DEFAULT_LEASE_SECONDS, JobResult, ResultRecorded,
};
use switchboard_domain::validation::iso;

use crate::audit::now;
use crate::auth::caller::{Caller, IngestWrite};
use crate::error::{ApiError, ApiResult};
use crate::extract::{JsonBody, PathId};
use crate::state::AppState;

/// Every kind of engine work, each declared with its resource: the queue names none of
/// them. A new kind adds one line here and its name to the domain's `engine_job::KINDS`.
const KINDS: &[Kind] = &[texts::SMS_JOBS, faxes::FAX_JOBS, call_campaigns::CALL_JOBS];

/// Leases up to `max` due jobs of the kinds asked for to the caller until the lease
/// runs out; each is a new attempt, numbered. A job whose result has not come when its
/// lease runs out goes back to the queue. Engines claiming at once never get the same
/// job.
#[utoipa::path(post, operation_id = "claimEngineJobs", path = "/v2/engine/jobs/claim", tag = "engine",
    request_body = ClaimJobs,
    responses((status = 200, description = "The leased jobs (none when no work is due)", body = ClaimedJobs)))]
pub async fn claim(
    _caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    JsonBody(body): JsonBody<ClaimJobs>,
) -> ApiResult<Json<ClaimedJobs>> {
    let now = now();
    let lease_until = now + body.lease_seconds.unwrap_or(DEFAULT_LEASE_SECONDS);
    // Every claim is its own lease holder: a result is matched to its attempt, not to
    // the engine that sent it.
    let owner = format!("engine-{}", uuid::Uuid::now_v7().simple());
    let kinds: Vec<&str> = body.kinds.iter().map(|k| k.as_str()).collect();
    let max = u64::try_from(body.max).unwrap_or(1);
    let jobs = engine_jobs::claim(
        &state.db,
        KINDS,
        &kinds,
        &owner,
        now,
        lease_until,
        max,
        state.settings.engine_max_leases,
    )
    .await?;
    let until = chrono::DateTime::from_timestamp(lease_until, 0).unwrap_or_default();
    let mut claimed = Vec::with_capacity(jobs.len());
    for job in jobs {
        let mut payload = job.payload_json();
        // A payload names stored objects by key; the engine gets fresh signed links: a
        // fax's document, a text's MMS media.
        let objects = KINDS
            .iter()
            .find(|kind| kind.name == job.kind)
            .map(|kind| (kind.objects)(&job))
            .unwrap_or_default();
        if let Some(key) = &objects.document {
            let url = state
                .storage
                .download_url(key, state.settings.media_url_ttl)
                .await?;
            payload["documentURL"] = url.into();
        }
        if let Some(keys) = &objects.media {
            payload["mediaUrls"] = switchboard_app::texts::sign_media(&state, keys)
                .await?
                .into();
        }
        claimed.push(ClaimedJob {
            payload,
            id: job.id,
            kind: job.kind,
            tenant_id: job.tenant_id,
            subject_id: job.subject_id,
            attempt: job.attempts,
            lease_until: iso(until),
        });
    }
    Ok(Json(ClaimedJobs { jobs: claimed }))
}

/// Records what an attempt came to, with what it means for the job's record (a fax
/// `sent` or `failed`, a text `sent` with its SMS_SENT event) in one transaction. A
/// second report of the same attempt changes nothing (`recorded: false`); a report of an
/// attempt whose lease ran out and whose job another engine took is refused with 409.
#[utoipa::path(post, operation_id = "reportEngineJobResult", path = "/v2/engine/jobs/{id}/result", tag = "engine",
    params(("id" = String, Path, pattern = "^[1-9][0-9]*$", description = "The job's id")),
    request_body = JobResult,
    responses(
        (status = 200, description = "What was recorded", body = ResultRecorded),
        (status = 409, description = "The attempt is not the job's current one, or the job has ended", body = crate::error::ErrorBody),
    ))]
pub async fn result(
    _caller: Caller<IngestWrite>,
    State(state): State<AppState>,
    PathId(id): PathId<EngineJobId>,
    JsonBody(body): JsonBody<JobResult>,
) -> ApiResult<Json<ResultRecorded>> {
    let reported = engine_jobs::report(&state.db, KINDS, id, &body, now())
        .await
        .map_err(|error| match error {
            ResultError::NotFound => ApiError::not_found(),
            ResultError::Outcome(_) => {
                ApiError::invalid(Location::Body, "outcome", &error.to_string())
            }
            ResultError::Stale(message) => ApiError::conflict(message),
            ResultError::Db(error) => error.into(),
        })?;
    Ok(Json(ResultRecorded {
        recorded: reported.recorded,
        id,
        attempt: body.attempt,
        state: reported.state,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_declared_in_the_domain_and_back() {
        let declared: Vec<&str> = switchboard_domain::records::engine_job::EngineJobKind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect();
        let handled: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        assert_eq!(declared, handled);
    }
}
