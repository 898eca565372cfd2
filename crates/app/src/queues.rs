//! Call queues: every member, the hold music and the timeout destination are records of
//! the queue's tenant.

use switchboard_domain::ids::{MediaFileId, MusicOnHoldId, TenantId};
use switchboard_domain::records::destination::{DestType, DestinationInput};
use switchboard_domain::records::queue::{CreateQueue, Queue, QueueMemberInput, UpdateQueue};
use switchboard_domain::{Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{Result, Services};

/// Checks a new queue of `caller`: the tenant it lands in (answered) and its references.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateQueue,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let hold = (body.hold_media_file_id.get(), body.music_on_hold_id);
    let timeout = body.timeout_destination.as_ref();
    check_references(
        services,
        tenant,
        Some(&body.members),
        hold,
        timeout,
        problems,
    )
    .await?;
    Ok(tenant)
}

/// Checks a change to `current`: what it names is of the queue's tenant.
pub async fn check_change(
    services: &impl Services,
    current: &Queue,
    body: &UpdateQueue,
    problems: &mut Problems,
) -> Result<()> {
    let hold = (
        body.hold_media_file_id.and_then(|r| r.get()),
        body.music_on_hold_id.flatten(),
    );
    let timeout = body.timeout_destination.as_ref().and_then(Option::as_ref);
    let members = body.members.as_deref();
    check_references(
        services,
        current.tenant_id,
        members,
        hold,
        timeout,
        problems,
    )
    .await
}

/// Checks every reference a queue body makes belongs to `tenant`: the member
/// extensions, the hold music (a media file, a music on hold) and the timeout destination.
async fn check_references(
    services: &impl Services,
    tenant: TenantId,
    members: Option<&[QueueMemberInput]>,
    (hold_media_file_id, music_on_hold_id): (Option<MediaFileId>, Option<MusicOnHoldId>),
    timeout: Option<&DestinationInput>,
    problems: &mut Problems,
) -> Result<()> {
    if let Some(members) = members {
        let items: Vec<DestinationInput> = members
            .iter()
            .map(|m| DestinationInput {
                id: m.id.get(),
                dest_type: DestType::Ext,
                order: 0,
                type_src: None,
                number: None,
            })
            .collect();
        tenancy::check_destinations(services, tenant, "members", &items, problems).await?;
    }
    let hold_file = hold_media_file_id;
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MediaFile,
        "holdMediaFileId",
        hold_file,
        problems,
    )
    .await?;
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MusicOnHold,
        "musicOnHoldId",
        music_on_hold_id,
        problems,
    )
    .await?;
    tenancy::check_destination(services, tenant, "timeoutDestination", timeout, problems).await
}
