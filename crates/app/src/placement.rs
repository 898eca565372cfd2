//! Where a checked record lands.

use switchboard_domain::ids::{BranchId, TenantId};

/// Where a new record lands, as a use case's `check_new` found it. Made only by this
/// crate's checks, so a write cannot be handed a tenant or branch nobody checked.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    tenant: TenantId,
    branch: Option<BranchId>,
}

impl Placement {
    /// A placement the caller's checks found.
    pub(crate) fn checked(tenant: TenantId, branch: Option<BranchId>) -> Self {
        Placement { tenant, branch }
    }

    /// The tenant.
    pub fn tenant(&self) -> TenantId {
        self.tenant
    }

    /// The branch, if any: none only where the record may have none, or where a problem
    /// of the same check says it is missing.
    pub fn branch(&self) -> Option<BranchId> {
        self.branch
    }
}
