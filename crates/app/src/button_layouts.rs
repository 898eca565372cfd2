//! Button layouts: what each key of a desk-phone model does, for the whole tenant (branch
//! admins use layouts but do not change them); every key fits the model and names records
//! of the tenant.

use switchboard_db::button_layouts;
use switchboard_domain::ids::TenantId;
use switchboard_domain::records::button_layout::{
    ButtonLayout, CreateButtonLayout, KeyInput, Target, UpdateButtonLayout, check_keys, targets,
};
use switchboard_domain::records::device_model;
use switchboard_domain::{Principal, Problems};

use crate::tenancy::{self, Referenced};
use crate::{Error, Result, Services};

/// Refuses a branch admin changing a layout: a layout serves the whole tenant.
pub fn tenant_wide(caller: &Principal) -> Result<()> {
    if caller.scope.own_branch().is_some() {
        return Err(Error::Forbidden(
            "button layouts are tenant-wide; a branch admin may read them only".into(),
        ));
    }
    Ok(())
}

/// Checks a new layout of `caller`: the tenant it lands in (answered) and its keys.
pub async fn check_new(
    services: &impl Services,
    caller: &Principal,
    body: &CreateButtonLayout,
    problems: &mut Problems,
) -> Result<TenantId> {
    let tenant = tenancy::tenant_for_write(services, caller, body.tenant_id).await?;
    check(services, tenant, &body.device_model, &body.keys, problems).await?;
    Ok(tenant)
}

/// Checks a change to `current`: sent keys fit the layout's model (the new one, when sent),
/// and a new model fits the keys the layout keeps.
pub async fn check_change(
    services: &impl Services,
    current: &ButtonLayout,
    body: &UpdateButtonLayout,
    problems: &mut Problems,
) -> Result<()> {
    let model = body
        .device_model
        .as_deref()
        .unwrap_or(&current.device_model);
    let kept: Vec<KeyInput>;
    let keys = match &body.keys {
        Some(keys) => keys,
        None if model != current.device_model => {
            kept = current
                .keys
                .iter()
                .map(|k| KeyInput {
                    index: k.index,
                    kind: k.kind,
                    value: k.value.clone(),
                    label: k.label.clone(),
                })
                .collect();
            &kept
        }
        None => return Ok(()),
    };
    check(services, current.tenant_id, model, keys, problems).await
}

/// Writes a layout for the tenant [`check_new`] answered.
pub async fn write_new(
    services: &impl Services,
    tenant: TenantId,
    body: CreateButtonLayout,
) -> Result<ButtonLayout> {
    Ok(button_layouts::create(services.db(), tenant, &body).await?)
}

/// Checks `keys` against `model` and the tenant's records: every broken rule at its
/// `'body/keys/N/…'` path.
async fn check(
    services: &impl Services,
    tenant: TenantId,
    model: &str,
    keys: &[KeyInput],
    problems: &mut Problems,
) -> Result<()> {
    if let Some(model) = device_model::find(model) {
        check_keys(model, keys, problems);
    }
    for (n, target) in targets(keys) {
        let field = format!("keys/{n}/value");
        match target {
            Target::Extension(id) => {
                let id = Some(id);
                tenancy::check_reference(
                    services,
                    tenant,
                    Referenced::Extension,
                    &field,
                    id,
                    problems,
                )
                .await?;
            }
            Target::PagingGroup(id) => {
                let id = Some(id);
                tenancy::check_reference(
                    services,
                    tenant,
                    Referenced::PagingGroup,
                    &field,
                    id,
                    problems,
                )
                .await?;
            }
        }
    }
    Ok(())
}
