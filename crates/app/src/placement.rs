//! Where a checked record lands, and the branch a checked change moves it to.

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

/// The branch a change moves a record to, as its `check_change` found it (none when the
/// change names no branch). Made only by this crate's checks, and read only by its
/// writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct BranchMove(Option<BranchId>);

impl BranchMove {
    /// A move the caller's checks found.
    pub(crate) fn checked(branch: Option<BranchId>) -> Self {
        BranchMove(branch)
    }

    /// The branch to write, where the change names one.
    pub(crate) fn branch(self) -> Option<BranchId> {
        self.0
    }
}
