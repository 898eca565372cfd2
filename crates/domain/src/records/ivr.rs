//! IVRs: the voice menus callers are routed to and announcements attach to.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed};
use crate::ids::{IvrId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{ID, PlanNumber, plan_number};

/// An IVR number: 1 to 32 dial characters, unique among the tenant's IVRs.
pub const NUMBER: PlanNumber = plan_number(1, 32);

/// An IVR.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, number, tenant_id), filter = TenantFilter, search("name", "number"))]
pub struct Ivr {
    /// The IVR's id.
    pub id: IvrId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// The number dialled to reach it, unique among the tenant's IVRs.
    pub number: String,
}

/// The body of `POST /v2/admin/ivrs/`.
#[derive(Clone, Debug, Body)]
#[body(placement(tenant))]
pub struct CreateIvr {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[field(rule = NAME)]
    pub name: String,
    /// Its number.
    #[field(rule = NUMBER)]
    pub number: String,
}

/// The body of `PATCH /v2/admin/ivrs/{id}`.
#[derive(Clone, Debug, Default, Body)]
pub struct UpdateIvr {
    /// Its name.
    #[field(rule = NAME)]
    pub name: Option<String>,
    /// Its number.
    #[field(rule = NUMBER)]
    pub number: Option<String>,
}
