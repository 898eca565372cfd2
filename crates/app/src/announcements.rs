//! Announcements: placed in a branch of their tenant, playing a media file of the tenant
//! on IVRs of the tenant, and ending after they start.

use switchboard_db::announcements;
use switchboard_domain::ids::{AnnouncementId, TenantId};
use switchboard_domain::records::announcement::{
    Announcement, CreateAnnouncement, IsoDate, UpdateAnnouncement,
};
use switchboard_domain::{Location, Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{BranchMove, Error, Placement, Result, Services};

/// Checks a new announcement of `caller`: where it lands (answered) and its references.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateAnnouncement,
    problems: &mut Problems,
) -> Result<Placement> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let branch =
        tenancy::required_branch(services, caller, tenant, body.branch_id, problems).await?;
    let fields = UpdateAnnouncement::from(body.clone());
    check_references(services, tenant, &fields, problems).await?;
    Ok(Placement::checked(tenant, branch))
}

/// Writes a new announcement where [`check_new`] placed it.
pub async fn write_new(
    services: &impl Services,
    placement: Placement,
    body: CreateAnnouncement,
) -> Result<Announcement> {
    let branch = placement
        .branch()
        .ok_or_else(|| Error::internal("a checked announcement has a branch"))?;
    let fields = UpdateAnnouncement::from(body);
    Ok(announcements::create(services.db(), placement.tenant(), branch, fields).await?)
}

/// Checks a change of `caller` to `current`: a branch it moves to (answered, when sent),
/// its references, and an end still after the start.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &Announcement,
    fields: &UpdateAnnouncement,
    problems: &mut Problems,
) -> Result<BranchMove> {
    let tenant = current.tenant_id;
    let branch = match fields.branch_id {
        Some(_) => {
            tenancy::branch_for_write(services, caller, tenant, fields.branch_id, problems).await?
        }
        None => None,
    };
    check_references(services, tenant, fields, problems).await?;
    let start = fields.start_date.as_ref().unwrap_or(&current.start_date);
    let end = fields.end_date.as_ref().unwrap_or(&current.end_date);
    if IsoDate::instant(end) <= IsoDate::instant(start) {
        problems.add(Location::Body, "endDate", "must be after startDate");
    }
    Ok(BranchMove::checked(branch))
}

/// Writes a change checked by [`check_change`], in the branch it answered.
pub async fn write_change(
    services: &impl Services,
    caller: &Principal,
    id: AnnouncementId,
    mut fields: UpdateAnnouncement,
    branch: BranchMove,
) -> Result<Announcement> {
    if fields.branch_id.is_some() {
        fields.branch_id = branch.branch();
    }
    Ok(announcements::update(services.db(), &caller.scope, id, fields).await?)
}

/// Checks that the media file and IVRs named by `fields` belong to `tenant`.
async fn check_references(
    services: &impl Services,
    tenant: TenantId,
    fields: &UpdateAnnouncement,
    problems: &mut Problems,
) -> Result<()> {
    let media_file = fields.media_file_id;
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MediaFile,
        "mediaFileId",
        media_file,
        problems,
    )
    .await?;
    for (index, link) in fields.ivrs.iter().flatten().enumerate() {
        let field = format!("ivrs/{index}/id");
        tenancy::check_reference(
            services,
            tenant,
            Referenced::Ivr,
            &field,
            Some(link.id),
            problems,
        )
        .await?;
    }
    Ok(())
}
