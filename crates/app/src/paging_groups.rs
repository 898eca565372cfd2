//! Paging groups: every member and the intro message are records of the group's tenant.

use switchboard_domain::ids::{MediaFileId, TenantId};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::paging_group::{
    CreatePagingGroup, PagingGroup, UpdatePagingGroup,
};
use switchboard_domain::{Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{Result, Services};

/// Checks a new paging group of `caller`: the tenant it lands in (answered) and its
/// references.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreatePagingGroup,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, Some(body.tenant_id)).await?;
    let members = Some(body.routing_destinations.as_slice());
    let intro = body.intro_message_media_file_id.get();
    check_references(services, tenant, members, intro, problems).await?;
    Ok(tenant)
}

/// Checks a change to `current`: what it names is of the group's tenant.
pub async fn check_change(
    services: &impl Services,
    current: &PagingGroup,
    body: &UpdatePagingGroup,
    problems: &mut Problems,
) -> Result<()> {
    let members = body.routing_destinations.as_deref();
    let intro = body.intro_message_media_file_id.and_then(|m| m.get());
    check_references(services, current.tenant_id, members, intro, problems).await
}

/// Checks every reference a paging group body makes belongs to `tenant`: the members
/// and the intro message.
async fn check_references(
    services: &impl Services,
    tenant: TenantId,
    members: Option<&[DestinationInput]>,
    intro: Option<MediaFileId>,
    problems: &mut Problems,
) -> Result<()> {
    if let Some(members) = members {
        let field = "routingDestinations";
        tenancy::check_destinations(services, tenant, field, members, problems).await?;
    }
    let field = "introMessageMediaFileId";
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MediaFile,
        field,
        intro,
        problems,
    )
    .await
}
