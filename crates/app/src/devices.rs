//! Desk phones: placed in their tenant (and a branch of it), their lines extensions of the
//! tenant that the caller reaches (no more than the model's accounts), and their button
//! layout the tenant's, for the same model.

use rand::RngCore;
use sha2::{Digest, Sha256};
use switchboard_db::devices::{self, Credentials, DeviceChanges};
use switchboard_domain::ids::{BranchId, ButtonLayoutId, DeviceId, ExtensionId, TenantId};
use switchboard_domain::records::device::{CreateDevice, CreatedDevice, Device, UpdateDevice};
use switchboard_domain::records::device_model;
use switchboard_domain::{Location, Principal, Problems};

use crate::{Error, Placement, Result, Services, tenancy};

/// The realm of the provisioning files' two HTTP schemes (Digest and Basic); part of
/// every Digest secret, so it never changes.
pub const REALM: &str = "Switchboard provisioning";

/// The stored form of a device's provisioning password (the Basic check compares it).
pub fn password_hash(password: &str) -> String {
    hex::encode(Sha256::digest(password.as_bytes()))
}

/// The HTTP Digest algorithms a device's file is offered with (RFC 7616), strongest first:
/// one hash for the secrets stored here and the answers the provisioning route checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigestAlgorithm {
    /// `SHA-256`.
    Sha256,
    /// `MD5`, for phones that know no other.
    Md5,
}

impl DigestAlgorithm {
    /// Its name in a challenge and an answer.
    pub fn name(self) -> &'static str {
        match self {
            DigestAlgorithm::Sha256 => "SHA-256",
            DigestAlgorithm::Md5 => "MD5",
        }
    }

    /// `H(text)`: the hash in lower-case hex.
    pub fn hash(self, text: &str) -> String {
        match self {
            DigestAlgorithm::Sha256 => hex::encode(Sha256::digest(text.as_bytes())),
            DigestAlgorithm::Md5 => hex::encode(md5::Md5::digest(text.as_bytes())),
        }
    }
}

/// A device's Digest secrets, H(username:realm:password) for MD5 and SHA-256, made with
/// its password (which is then forgotten).
pub fn digest_secrets(username: &str, password: &str) -> (String, String) {
    let a1 = format!("{username}:{REALM}:{password}");
    (
        DigestAlgorithm::Md5.hash(&a1),
        DigestAlgorithm::Sha256.hash(&a1),
    )
}

/// A new provisioning password for `username` (144 random bits, base64url), to be shown
/// once, with what is stored of it.
fn new_credentials(username: &str) -> (String, Credentials) {
    use base64::Engine;
    let mut bytes = [0u8; 18];
    rand::rng().fill_bytes(&mut bytes);
    let password = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let credentials = Credentials {
        username: username.to_owned(),
        secret_hash: password_hash(&password),
        digest_secrets: digest_secrets(username, &password),
    };
    (password, credentials)
}

/// Creates a device checked by [`check_new`] where it was placed, answering it with its
/// provisioning password (user name: its MAC), shown this once.
pub async fn write_new(
    services: &impl Services,
    placement: Placement,
    body: CreateDevice,
) -> Result<CreatedDevice> {
    let (password, credentials) = new_credentials(&body.mac);
    let (tenant, branch) = (placement.tenant(), placement.branch());
    let device = devices::create(
        services.db(),
        tenant,
        branch,
        body,
        credentials,
        services.sealer(),
    )
    .await?;
    Ok(CreatedDevice {
        device,
        provisioning_password: password,
    })
}

/// Writes a change to device `id` checked by [`check_change`] (`branch_id` its answer).
pub async fn write_change(
    services: &impl Services,
    caller: &Principal,
    id: DeviceId,
    body: UpdateDevice,
    branch_id: Option<Option<BranchId>>,
) -> Result<Device> {
    let changes = DeviceChanges {
        branch_id,
        name: body.name,
        mac: body.mac,
        model: body.model,
        lines: body.lines,
        button_layout_id: body.button_layout_id,
        description: body.description,
    };
    Ok(devices::update(services.db(), &caller.scope, id, changes).await?)
}

/// Replaces device `id`'s provisioning password, answering the device and the new
/// password (shown once); the old one stops working at once.
pub async fn rotate_credentials(
    services: &impl Services,
    caller: &Principal,
    id: DeviceId,
) -> Result<(Device, String)> {
    // The file the new password opens carries every line's SIP password: only a caller
    // that reaches every line's extension may have it (a branch admin may not, for another
    // branch's line a tenant admin put on a phone of its branch).
    let current = devices::get(services.db(), &caller.scope, id).await?;
    for line in &current.lines {
        match switchboard_db::extensions::get(services.db(), &caller.scope, line.id).await {
            Ok(_) => {}
            Err(switchboard_db::Error::NotFound) => {
                return Err(Error::Forbidden(
                    "the device has lines outside your scope, whose SIP passwords its file carries"
                        .into(),
                ));
            }
            Err(other) => return Err(other.into()),
        }
    }
    let (password, credentials) = new_credentials(&current.provisioning_username);
    let device = devices::rotate_credentials(
        services.db(),
        &caller.scope,
        id,
        credentials,
        services.sealer(),
    )
    .await?;
    Ok((device, password))
}

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
