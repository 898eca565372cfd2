//! Desk phones: placed in their tenant (and a branch of it), their lines extensions of the
//! tenant that the caller reaches (no more than the model's accounts), and their button
//! layout the tenant's, for the same model.

use switchboard_db::devices;
use switchboard_domain::ids::{BranchId, ButtonLayoutId, ExtensionId, TenantId};
use switchboard_domain::records::device::{CreateDevice, Device, UpdateDevice};
use switchboard_domain::records::device_model;
use switchboard_domain::{Location, Principal, Problems};

use crate::{Placement, Result, Services, tenancy};

/// Checks a new device of `caller`: where it lands (answered), its lines and its layout.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateDevice,
    problems: &mut Problems,
) -> Result<Placement> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    let branch =
        tenancy::branch_for_write(services, caller, tenant, body.branch_id, problems).await?;
    let (lines, layout) = (Some(body.lines.as_slice()), body.button_layout_id);
    check_references(
        services,
        caller,
        (tenant, &body.model),
        lines,
        layout,
        problems,
    )
    .await?;
    Ok(Placement::checked(tenant, branch))
}

/// Checks a change of `caller` to `current`: a branch it moves to, answered when the body
/// sends one (`Some(None)`: no branch), and what the device names with the change — a new
/// model is checked against the lines and layout the device keeps, too.
pub async fn check_change(
    services: &impl Services,
    caller: &Principal,
    current: &Device,
    body: &UpdateDevice,
    problems: &mut Problems,
) -> Result<Option<Option<BranchId>>> {
    let tenant = current.tenant_id;
    let branch = match body.branch_id {
        Some(requested) => {
            Some(tenancy::branch_for_write(services, caller, tenant, requested, problems).await?)
        }
        None => None,
    };
    let model = body.model.as_deref().unwrap_or(&current.model);
    let layout = match body.button_layout_id {
        Some(layout) => layout,
        None => current.button_layout_id,
    };
    let current_lines: Vec<i64> = current.lines.iter().map(|l| l.id.get()).collect();
    let model_changed = model != current.model;
    let lines = body
        .lines
        .as_deref()
        .or_else(|| model_changed.then_some(current_lines.as_slice()));
    let layout = layout.filter(|_| body.button_layout_id.is_some() || model_changed);
    check_references(services, caller, (tenant, model), lines, layout, problems).await?;
    Ok(branch)
}

/// Checks what a device's body names beyond its own fields, for a device of `model` in
/// `tenant`: its lines (when sent) and its layout (when sent).
async fn check_references(
    services: &impl Services,
    caller: &Principal,
    (tenant, model): (TenantId, &str),
    lines: Option<&[i64]>,
    layout: Option<ButtonLayoutId>,
    problems: &mut Problems,
) -> Result<()> {
    if let (Some(lines), Some(entry)) = (lines, device_model::find(model)) {
        if i64::try_from(lines.len()).unwrap_or(i64::MAX) > entry.accounts {
            problems.add(
                Location::Body,
                "lines",
                format!(
                    "must hold at most {} lines (the accounts of {})",
                    entry.accounts, entry.id
                ),
            );
        }
        for (n, id) in lines.iter().enumerate() {
            let reached =
                switchboard_db::extensions::get(services.db(), &caller.scope, ExtensionId(*id))
                    .await;
            match reached {
                Ok(extension) if extension.tenant_id == tenant => {}
                Ok(_) | Err(switchboard_db::Error::NotFound) => problems.add(
                    Location::Body,
                    &format!("lines/{n}"),
                    "must name an extension of the tenant",
                ),
                Err(other) => return Err(other.into()),
            }
        }
    }
    if let Some(layout) = layout {
        match devices::layout_model(services.db(), tenant, layout).await? {
            None => problems.add(
                Location::Body,
                "buttonLayoutId",
                "must name a button layout of the tenant",
            ),
            Some(other) if other != model => problems.add(
                Location::Body,
                "buttonLayoutId",
                format!("is a layout for {other}, not for the device's model {model}"),
            ),
            Some(_) => {}
        }
    }
    Ok(())
}
