//! Tenants: the customer businesses, each owned by a partner.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Filter, Listed};
use crate::ids::{PartnerId, TenantId};
use crate::validation::{ID, TimeZone};

/// A tenant.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name, partner_id), filter = PartnerFilter, search("name"))]
pub struct Tenant {
    /// The tenant's id.
    pub id: TenantId,
    /// The partner that owns the tenant.
    pub partner_id: PartnerId,
    /// The tenant's name.
    pub name: String,
    /// Its IANA time zone (desk phones' clocks are set to it); `UTC` until set.
    pub timezone: String,
    /// The country (ISO 3166 alpha-2) its national phone numbers are read in when
    /// campaign records and opt-outs are normalised to E.164; `US` until set.
    pub default_country: String,
}

/// The body of `POST /v2/admin/tenants/`.
#[derive(Clone, Debug, Body)]
pub struct CreateTenant {
    /// The tenant's name.
    #[field(rule = NAME)]
    pub name: String,
    /// The owning partner; partner admins may omit it (their own is used).
    #[field(rule = ID)]
    pub partner_id: Option<PartnerId>,
}

/// The body of `PATCH /v2/admin/tenants/{id}`.
#[derive(Clone, Debug, Default, Body)]
pub struct UpdateTenant {
    /// The tenant's name.
    #[field(rule = NAME)]
    pub name: Option<String>,
    /// Its IANA time zone; a change re-provisions the tenant's desk phones.
    #[field(rule = TimeZone)]
    pub timezone: Option<String>,
    /// The country its national phone numbers are read in (ISO 3166 alpha-2).
    #[field(rule = crate::phone::Country)]
    pub default_country: Option<String>,
}

/// Filters of the tenant list.
#[derive(Clone, Debug, Default, Filter)]
pub struct PartnerFilter {
    /// Only the tenants of this partner.
    #[field(rule = ID)]
    pub partner_id: Option<PartnerId>,
}
