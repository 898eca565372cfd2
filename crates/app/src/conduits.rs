//! What the engine reports of a conduit (a tenant's external connection): its health
//! checks, which move its status.

use switchboard_db::audit::{self, Actor};
use switchboard_db::conduits;
use switchboard_domain::records::conduit::{ConduitCheckResult, IngestConduitCheck};
use switchboard_domain::{Location, Principal, Scope};

use crate::{Error, Result, Services, tenancy};

/// How far ahead of the server's clock a check's `checkedAt` may be (clock skew): a
/// check dated later would keep every real check after it from being recorded.
const CHECK_SKEW_SECONDS: i64 = 60;

/// Records a health check of a conduit of the check's tenant reported by `caller` (the
/// engine's token, or a platform admin) from `client_address`: a failed check makes an
/// `active` conduit `failing`, a passed one a `failing` conduit `active`, a `disabled`
/// one is never touched; a status change is audited as the system that observed it. A
/// check older than the last recorded changes nothing.
pub async fn record_check(
    services: &impl Services,
    caller: &Principal,
    check: &IngestConduitCheck,
    client_address: String,
) -> Result<ConduitCheckResult> {
    let tenant = tenancy::tenant_for_write(services, caller, Some(check.tenant_id)).await?;
    let now = chrono::Utc::now().timestamp();
    let at = check.checked_at.map_or(now, |at| at.timestamp());
    if at > now + CHECK_SKEW_SECONDS {
        let message = "must not be in the future";
        return Err(Error::invalid(Location::Body, "checkedAt", message));
    }
    // The status a check moves is a change to an administered record: audited, as the
    // system that observed it (the engine's token acts as no user).
    let system = Actor {
        user_id: None,
        user_email: "system:conduit-check".into(),
        client_address,
    };
    let recorded = (check.ok, at, check.detail.as_str());
    let checked = audit::acting_as(
        system,
        conduits::record_check(services.db(), tenant, check.conduit_id, recorded, now),
    )
    .await
    .map_err(|error| match error {
        switchboard_db::Error::NotFound => Error::invalid(
            Location::Body,
            "conduitId",
            "must name a conduit of the tenant",
        ),
        other => other.into(),
    })?;
    let conduit = conduits::get(services.db(), &Scope::Platform, check.conduit_id).await?;
    Ok(ConduitCheckResult {
        recorded: checked.recorded,
        previous_status: checked.previous_status,
        conduit: conduit.into_conduit(),
    })
}
