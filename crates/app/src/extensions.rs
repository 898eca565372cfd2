//! Extensions: placed in their tenant and a branch of it; a branch admin keeps them in
//! its own branch.

use switchboard_db::extensions;
use switchboard_domain::records::extension::{CreateExtension, Extension, UpdateExtension};
use switchboard_domain::{Principal, Problems};

use crate::{Placement, Result, Services, tenancy};

/// Checks a new extension of `caller`: where it lands (answered).
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateExtension,
    problems: &mut Problems,
) -> Result<Placement> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let branch =
        tenancy::branch_for_write(services, caller, tenant, body.branch_id, problems).await?;
    Ok(Placement::checked(tenant, branch))
}

/// Writes a new extension where [`check_new`] placed it.
pub async fn write_new(
    services: &impl Services,
    placement: Placement,
    mut body: CreateExtension,
) -> Result<Extension> {
    body.branch_id = placement.branch();
    Ok(extensions::create(services.db(), placement.tenant(), body).await?)
}

/// Checks a change of `caller` to `current`: a branch it moves to is of the tenant and in
/// the caller's scope, and a branch admin cannot take an extension out of its branch.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &Extension,
    body: &UpdateExtension,
    problems: &mut Problems,
) -> Result<()> {
    match body.branch_id {
        Some(Some(branch)) => {
            let tenant = current.tenant_id;
            tenancy::branch_for_write(services, caller, tenant, Some(branch), problems).await?;
            Ok(())
        }
        Some(None) => tenancy::check_leaving_branch(caller),
        None => Ok(()),
    }
}
