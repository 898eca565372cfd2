//! Phone numbers: provisioned to a tenant, their settings naming a branch, an SMS
//! extension, a destination and a conduit of that tenant (a branch admin naming another
//! branch is refused).

use switchboard_domain::ids::TenantId;
use switchboard_domain::records::phone_number::{
    CreatePhoneNumber, PhoneNumber, PhoneNumberSettings, UpdatePhoneNumber,
};
use switchboard_domain::{Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{Result, Services};

/// Checks a number provisioned by `caller`: the tenant it goes to (answered) and what its
/// settings name.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreatePhoneNumber,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, Some(body.tenant_id)).await?;
    check_settings(services, caller, tenant, &body.settings, problems).await?;
    Ok(tenant)
}

/// Checks a change of `caller` to `current`'s settings.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &PhoneNumber,
    body: &UpdatePhoneNumber,
    problems: &mut Problems,
) -> Result<()> {
    let tenant = current.tenant_id;
    check_settings(services, caller, tenant, &body.settings, problems).await
}

/// Checks the branch, SMS extension, destination and conduit named by `settings` belong
/// to `tenant`.
async fn check_settings(
    services: &impl Services,
    caller: &Principal,
    tenant: TenantId,
    settings: &PhoneNumberSettings,
    problems: &mut Problems,
) -> Result<()> {
    if let Some(Some(branch)) = settings.branch_id {
        tenancy::branch_for_write(services, caller, tenant, Some(branch), problems).await?;
    }
    let sms_extension = settings.sms_ext_id.flatten().map(|e| e.get());
    tenancy::check_reference(
        services,
        tenant,
        Referenced::Extension,
        "smsExtId",
        sms_extension,
        problems,
    )
    .await?;
    if let Some(Some(destination)) = &settings.destination {
        let destination = Some(destination);
        tenancy::check_destination(services, tenant, "destination", destination, problems).await?;
    }
    let conduit = settings.conduit_id.flatten().map(|c| c.get());
    tenancy::check_reference(
        services,
        tenant,
        Referenced::Conduit,
        "conduitId",
        conduit,
        problems,
    )
    .await
}
