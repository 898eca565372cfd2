//! Call outcomes: a tenant's dispositions of a campaign call (`answered`, `voicemail`,
//! `not-interested`), each saying whether it ends the record (no further attempts) and
//! whether it puts the number on the tenant's opt-out list. Engine results name one, or
//! one of the built-in outcomes ([`BUILT_IN`]).

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed, Stored};
use crate::ids::{CallOutcomeId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{Bool, ID};

/// The outcome an engine reports when the callee pressed the opt-out key: it ends the
/// record and adds the number to the tenant's list whether or not the tenant defined it.
pub const OPTED_OUT: &str = "opted-out";

/// The outcomes every tenant has without defining them, as (name, ends the record, opts
/// out): the call was answered and connected (ends it); it was not answered, busy, or
/// could not be placed (tried again until `maxAttempts`); the callee opted out. A
/// tenant's own outcome of the same name decides instead, except that [`OPTED_OUT`]
/// always opts out.
pub const BUILT_IN: &[(&str, bool, bool)] = &[
    ("answered", true, false),
    ("no-answer", false, false),
    ("busy", false, false),
    ("failed", false, false),
    (OPTED_OUT, true, true),
];

/// Whether a built-in outcome `name` ends the record and opts out; `None` when `name` is
/// not built in.
pub fn built_in(name: &str) -> Option<(bool, bool)> {
    BUILT_IN
        .iter()
        .find(|(built, _, _)| *built == name)
        .map(|(_, ends, opts_out)| (*ends, *opts_out))
}

/// A call outcome.
#[derive(Clone, Debug, Serialize, ToSchema, Listed, Stored)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[stored(table = "call_outcomes")]
#[list(sort(id, name, tenant_id), filter = TenantFilter, search("name"))]
pub struct CallOutcome {
    /// The outcome's id.
    pub id: CallOutcomeId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name, unique in the tenant, as engine results name it.
    pub name: String,
    /// Whether a call with this outcome ends the record (no further attempts).
    pub ends_record: bool,
    /// Whether a call with this outcome adds the number to the tenant's opt-out list.
    pub opts_out: bool,
}

/// The body of `POST /v2/admin/call-outcomes/`.
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    update(
        name = UpdateCallOutcome,
        doc = "The body of `PATCH /v2/admin/call-outcomes/{id}`.",
        fixed(tenantId = "cannot be changed"),
    )
)]
pub struct CreateCallOutcome {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Its name, unique in the tenant.
    #[field(rule = NAME, column)]
    pub name: String,
    /// Whether it ends the record (default false).
    #[field(rule = Bool, default = false, column)]
    pub ends_record: bool,
    /// Whether it opts the number out (default false).
    #[field(rule = Bool, default = false, column)]
    pub opts_out: bool,
}
