//! The audited writes a transaction holds until it commits (see [`crate::audit`], which
//! starts and finishes them): kept below the transaction, which carries them.

use switchboard_domain::ids::TenantId;

use super::actor::Actor;

/// A row as the trail keeps it.
pub type Snapshot = serde_json::Map<String, serde_json::Value>;

/// A row as the trail keeps it, and the tenant whose trail it is in.
#[derive(Clone, Debug)]
pub(crate) struct Shot {
    pub(crate) fields: Snapshot,
    pub(crate) tenant: Option<TenantId>,
}

/// An audited write of this transaction: its entity, actor and the row before it (with
/// its child lists), finished at commit.
pub(crate) struct Pending {
    pub(crate) table: &'static str,
    pub(crate) entity: &'static str,
    pub(crate) actor: Actor,
    pub(crate) id: i64,
    pub(crate) before: Option<Shot>,
    pub(crate) secrets: Vec<&'static str>,
}
