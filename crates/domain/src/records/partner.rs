//! Partners: resellers that own tenants. Only platform admins create them.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::NAME;
use crate::ids::PartnerId;
use crate::list::{ListSpec, SortField};
use std::collections::HashMap;

use crate::validation::{FromBody, FromQuery, ObjectReader, Problems};

/// A partner.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct Partner {
    /// The partner's id.
    pub id: PartnerId,
    /// The partner's name.
    pub name: String,
}

/// The body of `POST /v2/admin/partners/`.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct CreatePartner {
    /// The partner's name.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
}

impl FromBody for CreatePartner {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let name =
            ObjectReader::body(body, &mut problems).and_then(|mut r| r.required("name", &NAME));
        problems.finish(|| Some(CreatePartner { name: name? }))
    }
}

/// The body of `PATCH /v2/admin/partners/{id}`: fields not sent stay unchanged.
#[derive(Clone, Debug, Default, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct UpdatePartner {
    /// The partner's name.
    #[schema(nullable = false, min_length = 1, max_length = 255)]
    pub name: Option<String>,
}

impl FromBody for UpdatePartner {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let name = ObjectReader::body(body, &mut problems).map(|mut r| r.optional("name", &NAME));
        problems.finish(|| Some(UpdatePartner { name: name?.ok()? }))
    }
}

/// Sorting and search of the partner list.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "id",
        },
        SortField {
            name: "name",
            column: "name",
        },
    ],
    search_columns: &["name"],
    search_index: None,
};

/// The partner list has no filters beyond the shared list parameters.
#[derive(Clone, Copy, Debug, Default)]
pub struct PartnerFilter;

impl FromQuery for PartnerFilter {
    fn from_query(_: &HashMap<String, String>) -> Result<Self, Problems> {
        Ok(PartnerFilter)
    }
}

impl crate::list::ListFilter for PartnerFilter {
    const SPEC: &'static ListSpec = &LIST;
}
