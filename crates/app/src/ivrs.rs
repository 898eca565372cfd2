//! IVRs: the greeting, each key's destination and the timeout and invalid paths are
//! records of the menu's tenant.

use switchboard_domain::ids::{AnnouncementId, MediaFileId, TenantId};
use switchboard_domain::records::destination::DestinationInput;
use switchboard_domain::records::ivr::{CreateIvr, Ivr, IvrOptionInput, UpdateIvr};
use switchboard_domain::{Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{Result, Services};

/// What an IVR body names beyond its own fields, each `None` when not sent or cleared.
struct References<'a> {
    /// The greeting: a media file, an announcement.
    greeting: (Option<MediaFileId>, Option<AnnouncementId>),
    /// The menu's keys.
    options: Option<&'a [IvrOptionInput]>,
    /// Where a caller who presses nothing goes.
    timeout: Option<&'a DestinationInput>,
    /// Where a caller who presses a key the menu lacks goes.
    invalid: Option<&'a DestinationInput>,
}

/// Checks a new IVR of `caller`: the tenant it lands in (answered) and its references.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateIvr,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let references = References {
        greeting: (
            body.greeting_media_file_id.get(),
            body.greeting_announcement_id.get(),
        ),
        options: Some(&body.options),
        timeout: body.timeout_destination.as_ref(),
        invalid: body.invalid_destination.as_ref(),
    };
    check_references(services, tenant, references, problems).await?;
    Ok(tenant)
}

/// Checks a change to `current`: what it names is of the IVR's tenant.
pub async fn check_change(
    services: &impl Services,
    current: &Ivr,
    body: &UpdateIvr,
    problems: &mut Problems,
) -> Result<()> {
    let references = References {
        greeting: (
            body.greeting_media_file_id.and_then(|g| g.get()),
            body.greeting_announcement_id.and_then(|g| g.get()),
        ),
        options: body.options.as_deref(),
        timeout: body.timeout_destination.as_ref().and_then(Option::as_ref),
        invalid: body.invalid_destination.as_ref().and_then(Option::as_ref),
    };
    check_references(services, current.tenant_id, references, problems).await
}

/// Checks every reference of an IVR body belongs to `tenant`.
async fn check_references(
    services: &impl Services,
    tenant: TenantId,
    references: References<'_>,
    problems: &mut Problems,
) -> Result<()> {
    let (media_file, announcement) = references.greeting;
    let field = "greetingMediaFileId";
    tenancy::check_reference(
        services,
        tenant,
        Referenced::MediaFile,
        field,
        media_file,
        problems,
    )
    .await?;
    let field = "greetingAnnouncementId";
    tenancy::check_reference(
        services,
        tenant,
        Referenced::Announcement,
        field,
        announcement,
        problems,
    )
    .await?;
    for (index, option) in references.options.unwrap_or_default().iter().enumerate() {
        let field = format!("options/{index}/destination");
        let destination = Some(&option.destination);
        tenancy::check_destination(services, tenant, &field, destination, problems).await?;
    }
    let (timeout, invalid) = (references.timeout, references.invalid);
    tenancy::check_destination(services, tenant, "timeoutDestination", timeout, problems).await?;
    tenancy::check_destination(services, tenant, "invalidDestination", invalid, problems).await
}
