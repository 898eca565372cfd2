//! Extensions: the dialable endpoints of a tenant, targets of `EXT` destinations.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed, OptionalRef};
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
    pub branch_id: OptionalRef<BranchId>,
    /// The number dialled to reach it, unique in its tenant.
    pub number: String,
    /// Its display name.
    pub name: String,
}

/// The body of `POST /v2/admin/extensions/`.
// `UpdateExtension`, the body of `PATCH`, is generated from it; a field with `column` is
// stored in the extension's row (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    update(name = UpdateExtension, doc = "The body of `PATCH /v2/admin/extensions/{id}`.")
)]
pub struct CreateExtension {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch, of the same tenant, or `null` (or 0, as an answer gives it) for none
    /// (a change detaches the extension from any branch); branch admins' extensions stay
    /// in their own.
    #[field(rule = ID, nullable, zero_none, column)]
    pub branch_id: Option<BranchId>,
    /// The number, unique in the tenant.
    #[field(rule = NUMBER, column)]
    pub number: String,
    /// The display name.
    #[field(rule = NAME, column)]
    pub name: String,
}
