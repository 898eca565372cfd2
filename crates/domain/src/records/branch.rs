//! Branches: the sites of a tenant.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed};
use crate::ids::{BranchId, TenantId};
use crate::list::TenantFilter;
use crate::validation::ID;

/// A branch.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
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
#[body(placement(tenant))]
pub struct CreateBranch {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// The branch's name.
    #[field(rule = NAME)]
    pub name: String,
}

/// The body of `PATCH /v2/admin/branches/{id}`.
#[derive(Clone, Debug, Default, Body)]
pub struct UpdateBranch {
    /// The branch's name.
    #[field(rule = NAME)]
    pub name: Option<String>,
}
