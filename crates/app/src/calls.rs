//! What the engine reports of a call beyond the call itself: its transcript.

use switchboard_db::crud::Recorded;
use switchboard_db::{calls, reports};
use switchboard_domain::records::report::IngestTranscript;
use switchboard_domain::{Location, Principal};

use crate::{Error, Result, Services, tenancy};

/// Records a call's transcript reported by `caller` (the engine's or a transcription
/// service's token, or a platform admin): its channel legend and segments, once per call
/// (a repeat changes nothing, so the legend stays as first recorded). The call must have
/// been reported.
pub async fn record_transcript(
    services: &impl Services,
    caller: &Principal,
    transcript: &IngestTranscript,
) -> Result<Recorded> {
    let tenant = tenancy::tenant_for_write(services, caller, Some(transcript.tenant_id)).await?;
    let call = calls::find(services.db(), tenant, &transcript.unique_id)
        .await?
        .ok_or_else(|| {
            Error::invalid(Location::Body, "uniqueId", "must name a call of the tenant")
        })?;
    let mut tx = services.db().begin().await?;
    let recorded = reports::record_transcript(
        &mut tx,
        tenant,
        call.id,
        &transcript.channels,
        &transcript.segments,
        chrono::Utc::now().timestamp(),
    )
    .await?;
    tx.commit().await?;
    Ok(recorded)
}
