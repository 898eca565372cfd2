//! Music on hold: a playlist of media files of its tenant, in a branch of the tenant when
//! it names one (branch admins cannot write music on hold, so a named branch only has to
//! be the tenant's).

use switchboard_domain::ids::{BranchId, TenantId};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::music_on_hold::{
    CreateMusicOnHold, MusicOnHold, UpdateMusicOnHold,
};
use switchboard_domain::{Principal, Problems};

use crate::{Result, Services, tenancy};

/// Checks a new music on hold of `caller`: the tenant it lands in (answered), its branch
/// and its playlist.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateMusicOnHold,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let files = Some(body.routing_destinations.as_slice());
    check_references(services, caller, (tenant, body.branch_id), files, problems).await?;
    Ok(tenant)
}

/// Checks a change of `caller` to `current`: its branch and playlist are the tenant's.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &MusicOnHold,
    body: &UpdateMusicOnHold,
    problems: &mut Problems,
) -> Result<()> {
    let placed = (current.tenant_id, body.branch_id.flatten());
    let files = body.routing_destinations.as_deref();
    check_references(services, caller, placed, files, problems).await
}

/// Checks the branch and the media files a music on hold body names belong to `tenant`.
async fn check_references(
    services: &impl Services,
    caller: &Principal,
    (tenant, branch): (TenantId, Option<BranchId>),
    files: Option<&[DestinationInput]>,
    problems: &mut Problems,
) -> Result<()> {
    if branch.is_some() {
        tenancy::branch_for_write(services, caller, tenant, branch, problems).await?;
    }
    if let Some(files) = files {
        let field = "routingDestinations";
        tenancy::check_destinations(services, tenant, field, files, problems).await?;
    }
    Ok(())
}
