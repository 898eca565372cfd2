//! Partners: resellers that own tenants. Only platform admins create them.

use serde::Serialize;
use utoipa::ToSchema;

use super::NAME;
use crate::declare::{Body, Listed};
use crate::ids::PartnerId;
use crate::list::NoFilter;

/// A partner.
#[derive(Clone, Debug, Serialize, ToSchema, Listed)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[list(sort(id, name), filter = NoFilter, search("name"))]
pub struct Partner {
    /// The partner's id.
    pub id: PartnerId,
    /// The partner's name.
    pub name: String,
}

/// The body of `POST /v2/admin/partners/`.
#[derive(Clone, Debug, Body)]
#[body(update(
    name = UpdatePartner,
    doc = "The body of `PATCH /v2/admin/partners/{id}`: fields not sent stay unchanged.",
))]
pub struct CreatePartner {
    /// The partner's name.
    #[field(rule = NAME, column)]
    pub name: String,
}
