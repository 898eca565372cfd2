//! Branches: the sites of a tenant.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed, Stored};
use crate::ids::{BranchId, TenantId};
use crate::list::TenantFilter;
use crate::validation::ID;

/// A branch.
#[derive(Clone, Debug, Serialize, ToSchema, Listed, Stored)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[stored(table = "branches")]
#[list(sort(id, name, tenant_id), filter = TenantFilter, search("name"))]
pub struct Branch {
    /// The branch's id.
    pub id: BranchId,
    /// The tenant the branch belongs to.
    pub tenant_id: TenantId,
    /// The branch's name.
    pub name: String,
}

/// The body of `POST /v2/admin/branches/`.
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    update(name = UpdateBranch, doc = "The body of `PATCH /v2/admin/branches/{id}`.")
)]
pub struct CreateBranch {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch's name.
    #[field(rule = NAME, column)]
    pub name: String,
}
