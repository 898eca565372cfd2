//! Extensions: the dialable endpoints of a tenant, targets of `EXT` destinations.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed};
use crate::ids::{BranchId, ExtensionId, TenantId};
use crate::list::BranchedFilter;
use crate::validation::{ID, PlanNumber, plan_number};

/// An extension number: 1 to 32 dial characters, unique in its tenant.
pub const NUMBER: PlanNumber = plan_number(1, 32);

/// An extension.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, number, name, tenant_id, branch_id), filter = BranchedFilter, search("number", "name"))]
pub struct Extension {
    /// The extension's id.
    pub id: ExtensionId,
    /// The tenant the extension belongs to.
    pub tenant_id: TenantId,
    /// The branch the extension belongs to; 0 when it has none.
    #[serde(serialize_with = "crate::ids::zero_when_none")]
    #[schema(value_type = i64, minimum = 0)]
    pub branch_id: Option<BranchId>,
    /// The number dialled to reach it, unique in its tenant.
    pub number: String,
    /// Its display name.
    pub name: String,
}

/// The body of `POST /v2/admin/extensions/`.
#[derive(Clone, Debug, Body)]
#[body(placement(tenant))]
pub struct CreateExtension {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant, or `null` (or 0, as an answer gives it); branch
    /// admins get their own.
    #[field(rule = ID, nullable, zero_none)]
    pub branch_id: Option<BranchId>,
    /// The number, unique in the tenant.
    #[field(rule = NUMBER)]
    pub number: String,
    /// The display name.
    #[field(rule = NAME)]
    pub name: String,
}

/// The body of `PATCH /v2/admin/extensions/{id}`.
#[derive(Clone, Debug, Default, Body)]
pub struct UpdateExtension {
    /// The branch; `null` (or 0, as an answer gives it) detaches the extension from any
    /// branch.
    #[field(rule = ID, zero_none)]
    pub branch_id: Option<Option<BranchId>>,
    /// The number, unique in the tenant.
    #[field(rule = NUMBER)]
    pub number: Option<String>,
    /// The display name.
    #[field(rule = NAME)]
    pub name: Option<String>,
}
